// A refund plan is applied exactly once: several `svc devolver --aplicar` processes
// started at the same moment on one plan make one refund between them (the plan is
// locked from its check until it is marked), the others refuse naming that refund
// (exit 2, already_applied); an apply killed with SIGKILL at any point leaves a
// lock that the next apply takes over, and the refund made is never made twice.
import { execa } from 'execa';
import { readFileSync, existsSync, writeFileSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcSpawned, tempDir } from '../../helpers/cli.js';
import { svc } from '../../helpers/inproc.js';
import { applyAtOnce, killAndApplyAgain, planFor, refundsOf } from '../../helpers/plans.js';
import { startSandbox, type Sandbox } from '../../helpers/sandbox.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb?.stop());

describe('devolver --aplicar: exactly once', () => {
  // One trial each of 2 and 4 here (npm test); test/load/plan-concurrent.load.test.ts runs
  // ten each of 2, 4 and 8, on every Node in CI (.ci/run).
  it('2 applies at once, the second started while the first holds the plan: one refund, the second waited and refuses naming it', async () => {
    await applyAtOnce(sb, 2, { overlap: true });
  });

  it('4 applies at once: one refund, the plan names it, the others refuse naming it', async () => {
    await applyAtOnce(sb, 4);
  });

  it('SIGKILL at a random point of an apply, then apply again until it refuses: one refund, named, the stale lock taken over', async () => {
    await killAndApplyAgain(sb);
  });

  it('waits while a live process holds the plan, and takes over a lock whose process is gone', async () => {
    const { id, file } = await planFor(sb, '20.00');
    // A lock held by a live process (this test's): the apply waits and says so.
    writeFileSync(
      `${file}.lock`,
      JSON.stringify({ pid: process.pid, host: hostname(), desde: new Date().toISOString() }),
    );
    const child = svcSpawned(['devolver', '--aplicar', file, '--yes'], { env: sb.env });
    await new Promise((r) => setTimeout(r, 1500));
    expect(await refundsOf(sb, id)).toHaveLength(0);
    // Its holder dies (a pid that no longer runs): the waiting apply takes over and applies.
    const dead = await execa('node', ['-e', 'process.stdout.write(String(process.pid))']);
    writeFileSync(
      `${file}.lock`,
      JSON.stringify({
        pid: Number(dead.stdout),
        host: hostname(),
        desde: new Date().toISOString(),
      }),
    );
    const r = await child;
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /otro proceso \(pid \d+\) está aplicando el plan .*esperando a que termine/,
    );
    expect(await refundsOf(sb, id)).toHaveLength(1);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('a plan records who prepared it and why; applying shows both and records who applied it', async () => {
    const { file } = await planFor(sb, '30.00', 'producto fallado, ticket 881');
    const plan = JSON.parse(readFileSync(file, 'utf8'));
    const me = userInfo().username;
    expect(plan).toMatchObject({
      version: 2,
      preparado_por: me,
      motivo: 'producto fallado, ticket 881',
    });
    const r = await svc(['devolver', '--aplicar', file, '--yes'], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`preparado por +${me}\\n`));
    expect(r.stderr).toMatch(/motivo +producto fallado, ticket 881\n/);
    expect(JSON.parse(readFileSync(file, 'utf8')).aplicado).toMatchObject({ aplicado_por: me });
    // The motivo is under the digest: changing it is editing the plan.
    const edited = join(tempDir('svc-plan-'), 'editado.json');
    writeFileSync(edited, JSON.stringify({ ...plan, motivo: 'otro motivo' }));
    const e = await svc(['devolver', '--aplicar', edited, '--yes'], { env: sb.env });
    expect(e.exitCode).toBe(1);
    expect(e.stderr).toMatch(/digest no coincide/);
  });
});
