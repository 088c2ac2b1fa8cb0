// Exactly once through copies, hard links and a second PID namespace, many trials of
// each (the one-trial versions are test/cli/shared/copies.test.ts): prints the trials
// and the refunds or requests the service counted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  batchPlanTrial,
  csvTrial,
  skipUnmountable,
  ATTACKS,
  singlePlanTrial,
} from '../helpers/copies.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';

// 15 on the machine's Node; CI runs the other Node majors with fewer
// (SVC_COPIES_TRIALS): the locks are svc's code, not Node's, and each trial costs seconds.
const TRIALS = Number(process.env.SVC_COPIES_TRIALS ?? 15);
const ROWS = 5;

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ spawned: ['--ready-delay', '0'] });
});
afterAll(() => sb?.stop());

describe(`${TRIALS} trials of each attack`, () => {
  it.for(ATTACKS)('a refund plan through %s', { timeout: 600_000 }, async (attack, { skip }) => {
    skipUnmountable(attack, skip);
    const counts: number[] = [];
    for (let t = 0; t < TRIALS; t++) counts.push(await singlePlanTrial(sb, attack));
    console.log(`single plan, ${attack}: ${TRIALS} trials, refunds per trial ${counts.join(' ')}`);
    expect(counts).toEqual(counts.map(() => 1));
  });

  it.for(ATTACKS)(
    `a batch plan of ${ROWS} rows through %s`,
    { timeout: 600_000 },
    async (attack, { skip }) => {
      skipUnmountable(attack, skip);
      const totals: number[] = [];
      for (let t = 0; t < TRIALS; t++) {
        const per = await batchPlanTrial(sb, attack, ROWS);
        totals.push(per.reduce((a, b) => a + b, 0));
        expect(per).toEqual(per.map(() => 1));
      }
      console.log(
        `batch plan, ${attack}: ${TRIALS} trials, refunds per trial (${ROWS} rows) ${totals.join(' ')}`,
      );
    },
  );

  it.for(ATTACKS)(
    `a batch CSV of ${ROWS} requests through %s`,
    { timeout: 600_000 },
    async (attack, { skip }) => {
      skipUnmountable(attack, skip);
      const totals: number[] = [];
      for (let t = 0; t < TRIALS; t++) {
        const per = await csvTrial(sb, attack, ROWS);
        totals.push(per.reduce((a, b) => a + b, 0));
        expect(per).toEqual(per.map(() => 1));
      }
      console.log(
        `batch CSV, ${attack}: ${TRIALS} trials, requests per trial (${ROWS} rows) ${totals.join(' ')}`,
      );
    },
  );
});
