// A refund plan is applied exactly once: several `svc devolver --aplicar` processes
// started at the same moment on one plan make one refund between them (the plan is
// locked from its check until it is marked), the others refuse naming that refund
// (exit 2, already_applied); an apply killed with SIGKILL at any point leaves a
// lock that the next apply takes over, and the refund made is never made twice.
import { execa } from 'execa';
import { readFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, expectNoStack, svc as spawned, tempDir } from '../../helpers/cli.js';
import { svcInProcess as svc } from '../../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../../helpers/sandbox.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb?.stop());

async function planFor(monto: string, motivo?: string): Promise<{ id: number; file: string }> {
  const id = (await sb.api('POST', '/v1/cobros', { concepto: 'Plan concurrente', monto: '1000.00' })).body.data.id as number;
  expect((await sb.api('POST', `/_sandbox/cobros/${id}/pagar`, {})).status).toBe(200);
  const file = join(tempDir('svc-plan-'), 'plan.json');
  const made = await svc(['devolver', String(id), '--monto', monto, '--plan', file, ...(motivo ? ['--motivo', motivo] : [])], { env: sb.env });
  expect(made.exitCode, made.stderr).toBe(0);
  return { id, file };
}
const refundsOf = async (id: number) => ((await sb.api('GET', '/v1/devoluciones')).body.data as { id: number; cobro_id: number }[]).filter((d) => d.cobro_id === id);

describe('devolver --aplicar: exactly once', () => {
  // Trials per number of processes at once: 2 and 4 three times, 8 twice (28 processes).
  it.each([
    [2, 3],
    [4, 3],
    [8, 2],
  ])('%i applies at once, %i trials: one refund every time, the plan names it, the others refuse naming it', async (n, trials) => {
    for (let t = 0; t < trials; t++) {
      const { id, file } = await planFor('150.00');
      const runs = await Promise.all(Array.from({ length: n }, () => spawned(['devolver', '--aplicar', file, '--yes', '--json'], { env: sb.env })));
      const refunds = await refundsOf(id);
      expect(refunds, `trial ${t}: ${runs.map((r) => r.stderr).join('\n')}`).toHaveLength(1);
      const made = refunds[0]!.id;
      const ok = runs.filter((r) => r.exitCode === 0);
      expect(ok).toHaveLength(1);
      expect(JSON.parse(ok[0]!.stdout).id).toBe(made);
      for (const r of runs.filter((x) => x.exitCode !== 0)) {
        expect(r.exitCode, r.stderr).toBe(2);
        const err = JSON.parse(r.stderr.trim().split('\n').pop()!);
        expect(err.error).toBe('already_applied');
        expect(err.message).toContain(`devolución ${made}`);
        expectNoStack(r.stderr);
      }
      expect(JSON.parse(readFileSync(file, 'utf8')).aplicado.devolucion_id).toBe(made);
      expect(existsSync(`${file}.lock`)).toBe(false);
    }
  });

  it('SIGKILL at a random point of an apply, then apply again until it refuses: one refund, named, the stale lock taken over', async () => {
    for (let t = 0; t < 4; t++) {
      const { id, file } = await planFor('75.00');
      const child = execa('node', [BIN, 'devolver', '--aplicar', file, '--yes'], { cwd: ROOT, env: { ...process.env, ...sb.env, SVC_CONFIG_DIR: tempDir('svc-config-'), SVC_KEYRING: 'off' }, reject: false });
      // Somewhere from before the lock to after the plan is marked (a build starts in ~0.2-1 s).
      await new Promise((r) => setTimeout(r, 150 + Math.floor(Math.random() * 900)));
      child.kill('SIGKILL');
      await child;
      let last = await spawned(['devolver', '--aplicar', file, '--yes', '--json'], { env: sb.env });
      if (last.exitCode === 0) last = await spawned(['devolver', '--aplicar', file, '--yes', '--json'], { env: sb.env });
      const refunds = await refundsOf(id);
      expect(refunds, last.stderr).toHaveLength(1);
      expect(last.exitCode, last.stderr).toBe(2);
      expect(JSON.parse(last.stderr.trim().split('\n').pop()!)).toMatchObject({ error: 'already_applied' });
      expect(last.stderr).toContain(`devolución ${refunds[0]!.id}`);
      expect(existsSync(`${file}.lock`)).toBe(false);
    }
  });

  it('waits while a live process holds the plan, and takes over a lock whose process is gone', async () => {
    const { id, file } = await planFor('20.00');
    // A lock held by a live process (this test's): the apply waits and says so.
    writeFileSync(`${file}.lock`, JSON.stringify({ pid: process.pid, host: (await import('node:os')).hostname(), desde: new Date().toISOString() }));
    const child = spawned(['devolver', '--aplicar', file, '--yes'], { env: sb.env });
    await new Promise((r) => setTimeout(r, 1500));
    expect(await refundsOf(id)).toHaveLength(0);
    // Its holder dies (a pid that no longer runs): the waiting apply takes over and applies.
    const dead = await execa('node', ['-e', 'process.stdout.write(String(process.pid))']);
    writeFileSync(`${file}.lock`, JSON.stringify({ pid: Number(dead.stdout), host: (await import('node:os')).hostname(), desde: new Date().toISOString() }));
    const r = await child;
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/otro proceso \(pid \d+\) está aplicando el plan .*esperando a que termine/);
    expect(await refundsOf(id)).toHaveLength(1);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('a plan records who prepared it and why; applying shows both and records who applied it', async () => {
    const { file } = await planFor('30.00', 'producto fallado, ticket 881');
    const plan = JSON.parse(readFileSync(file, 'utf8'));
    const me = (await import('node:os')).userInfo().username;
    expect(plan).toMatchObject({ version: 2, preparado_por: me, motivo: 'producto fallado, ticket 881' });
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
