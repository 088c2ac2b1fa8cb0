// Exactly once through the files themselves: a refund plan (single and batch) and a
// batch CSV of payment requests applied at the same moment through copies, a hard
// link, and from a second PID namespace (a container sharing the folder), each waits
// for one lock (the plan by what it is, not by its name) and the service counts one
// refund per row, one request per referencia. One trial each here; test/load/
// copies.load.test.ts runs many.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  batchPlanTrial,
  csvTrial,
  skipUnmountable,
  ATTACKS,
  singlePlanTrial,
} from '../../helpers/copies.js';
import { startSandbox, type Sandbox } from '../../helpers/sandbox.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb?.stop());

describe('one plan, one batch: whatever its name or namespace', () => {
  it.for(ATTACKS)(
    'a refund plan applied at once through %s: one refund',
    async (attack, { skip }) => {
      skipUnmountable(attack, skip);
      expect(await singlePlanTrial(sb, attack)).toBe(1);
    },
  );

  it.for(ATTACKS)(
    'a batch refund plan applied at once through %s: one refund per row',
    async (attack, { skip }) => {
      skipUnmountable(attack, skip);
      expect(await batchPlanTrial(sb, attack)).toEqual([1, 1, 1]);
    },
  );

  it.for(ATTACKS)(
    'a batch CSV of requests run at once through %s: one request per referencia',
    async (attack, { skip }) => {
      skipUnmountable(attack, skip);
      expect(await csvTrial(sb, attack)).toEqual([1, 1, 1]);
    },
  );
});
