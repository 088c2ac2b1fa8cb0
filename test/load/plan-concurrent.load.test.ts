// Ten trials each of 2, 4 and 8 applies of one refund plan at once, and ten applies
// killed with SIGKILL at a random moment then resumed: exactly one refund every time
// (the few-trial version is test/cli/devolver/plan-concurrent.test.ts).
import { afterAll, beforeAll, describe, it } from 'vitest';
import { applyAtOnce, killAndApplyAgain } from '../helpers/plans.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ spawned: [] });
});
afterAll(() => sb?.stop());

describe('devolver --aplicar under load: exactly once', () => {
  it.each([2, 4, 8])('%i applies at once, 10 trials', async (n) => {
    for (let t = 0; t < 10; t++) await applyAtOnce(sb, n);
  });
  it('SIGKILL at random points, 10 trials', async () => {
    for (let t = 0; t < 10; t++) await killAndApplyAgain(sb);
  });
});
