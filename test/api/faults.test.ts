// Faults, read commands: each read command against every fault the sandbox can inject
// (POST /_sandbox/fallas). Each must give one clear `error:` line on stderr (maybe a
// `→` suggestion), the exit code of docs/salida-y-codigos.md, no stack trace and nothing on
// stdout a script could take for a result; GETs are retried within their budget
// (3 attempts, counted from the faults the sandbox used up).
// POSTs, no service at all, retries that heal and --json: faults-writes.test.ts.
import { describe, expect, it } from 'vitest';
import { CONCURRENCY, FAULTS, READS, runWithFault, type Cmd } from './fault-cases.js';
import type { InProcessSandbox } from '../helpers/sandbox.js';
import { expectOneErrorLine, faultSandbox, pool, type Fixture } from '../helpers/fixtures.js';

let sb: InProcessSandbox;
let fx: Fixture;

faultSandbox((s, f) => ((sb = s), (fx = f)));

describe('read commands under every injected fault', () => {
  for (const f of FAULTS) {
    it(`${f.key}: exit ${f.exit}, one error line, ${f.getAttempts} attempt(s)`, async () => {
      await sb.clearFaults();
      // Commands on the same path (cuenta, login) go in separate rounds, faults cleared
      // between them: each counts the attempts of its own fault, none left over by another.
      const results = new Map<Cmd, Awaited<ReturnType<typeof runWithFault>>>();
      const rounds: Cmd[][] = [];
      for (const cmd of READS) {
        const round = rounds.find((r) => !r.some((c) => c.path(fx) === cmd.path(fx)));
        if (round) round.push(cmd);
        else rounds.push([cmd]);
      }
      // Commands that only wait out a delay all wait at once; the others take turns.
      const width = f.fault.action === 'delay' ? READS.length : CONCURRENCY;
      for (const round of rounds) {
        await pool(
          round,
          width,
          async (cmd) => void results.set(cmd, await runWithFault(sb, fx, cmd, f)),
        );
        await sb.clearFaults();
      }
      READS.forEach((cmd) => {
        const { r, attempts } = results.get(cmd)!;
        expectOneErrorLine(r, f.exit, f.line, `svc ${cmd.args(fx).join(' ')} with ${f.key}`);
        const what = `${cmd.name} attempts with ${f.key}`;
        if (f.getAttemptsAtLeast === undefined) expect(attempts, what).toBe(f.getAttempts);
        else {
          expect(attempts, what).toBeGreaterThanOrEqual(f.getAttemptsAtLeast);
          expect(attempts, what).toBeLessThanOrEqual(f.getAttempts);
        }
      });
    });
  }
});
