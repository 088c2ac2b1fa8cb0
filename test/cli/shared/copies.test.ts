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
  noPidNamespace,
  singlePlanTrial,
  type Attack,
} from '../../helpers/copies.js';
import { startSandbox, type Sandbox } from '../../helpers/sandbox.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb?.stop());

if (noPidNamespace) console.log(`skipped: "otro espacio de pids" attacks: ${noPidNamespace}`);
const attacks: Attack[] = ['copias', 'enlace duro', 'otro espacio de pids'];
const can = (a: Attack) => a !== 'otro espacio de pids' || noPidNamespace === null;

describe('one plan, one batch: whatever its name or namespace', () => {
  it.each(attacks)('a refund plan applied at once through %s: one refund', async (attack) => {
    if (!can(attack)) return;
    expect(await singlePlanTrial(sb, attack)).toBe(1);
  });

  it.each(attacks)(
    'a batch refund plan applied at once through %s: one refund per row',
    async (attack) => {
      if (!can(attack)) return;
      expect(await batchPlanTrial(sb, attack)).toEqual([1, 1, 1]);
    },
  );

  it.each(attacks)(
    'a batch CSV of requests run at once through %s: one request per referencia',
    async (attack) => {
      if (!can(attack)) return;
      expect(await csvTrial(sb, attack)).toEqual([1, 1, 1]);
    },
  );
});
