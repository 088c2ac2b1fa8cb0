// Trials of applying one refund plan from several processes at once, and of an
// apply killed with SIGKILL then resumed: shared by test/cli/devolver (a few trials,
// in npm test) and test/load (many). Each trial asserts exactly one refund.
import { execa } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { BIN, ROOT, expectNoStack, svcSpawned, tempDir } from './cli.js';
import { svc } from './inproc.js';
import type { Sandbox } from './sandbox.js';

/** How long the first apply's refund is held at the service when applies must overlap. */
const HOLD_MS = 6000;

/** A paid request of 1000.00 and a plan to refund `monto` of it, written in-process. */
export async function planFor(
  sb: Sandbox,
  monto: string,
  motivo?: string,
): Promise<{ id: number; file: string }> {
  const id = (
    await sb.api('POST', '/v1/cobros', { concepto: 'Plan concurrente', monto: '1000.00' })
  ).body.data.id as number;
  expect((await sb.api('POST', `/_sandbox/cobros/${id}/pagar`, {})).status).toBe(200);
  const file = join(tempDir('svc-plan-'), 'plan.json');
  const made = await svc(
    [
      'devolver',
      String(id),
      '--monto',
      monto,
      '--plan',
      file,
      ...(motivo ? ['--motivo', motivo] : []),
    ],
    { env: sb.env },
  );
  expect(made.exitCode, made.stderr).toBe(0);
  return { id, file };
}

export const refundsOf = async (sb: Sandbox, id: number) =>
  (
    (await sb.api('GET', '/v1/devoluciones')).body.data as { id: number; cobro_id: number }[]
  ).filter((d) => d.cobro_id === id);

const lastJson = (stderr: string) =>
  JSON.parse(stderr.trim().split('\n').pop()!) as { error: string; message: string };

/**
 * `n` applies of one plan started at once: one refund, the plan names it, the others
 * exit 2 naming it. With `overlap`, by construction rather than by timing: the first
 * apply's refund is held at the service for HOLD_MS (a delay fault, before the refund
 * is made), the others start once it is there, and each must say it waited for the
 * plan's lock. Without the lock they would find no refund yet and make their own (the
 * request has room for several).
 */
export async function applyAtOnce(
  sb: Sandbox,
  n: number,
  opts: { overlap?: boolean } = {},
): Promise<void> {
  const { id, file } = await planFor(sb, '150.00');
  const apply = (json = true) =>
    svcSpawned(['devolver', '--aplicar', file, '--yes', ...(json ? ['--json'] : [])], {
      env: sb.env,
    });

  if (opts.overlap) {
    const fault = await sb.fault({
      method: 'POST',
      path: `/v1/cobros/${id}/devoluciones`,
      action: 'delay',
      delay_ms: HOLD_MS,
    });
    const first = apply();
    const deadline = Date.now() + 30_000;
    while ((await sb.faultsLeft()).has(fault) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect((await sb.faultsLeft()).has(fault), 'the first apply’s refund reached the service').toBe(
      false,
    );
    // Without --json, so each says it waited for the lock.
    const others = await Promise.all(Array.from({ length: n - 1 }, () => apply(false)));
    for (const r of others) {
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr, 'it waited for the plan’s lock while the first held it').toMatch(
        /está aplicando el plan .*esperando a que termine/,
      );
      expect(r.stderr).toMatch(/devolución \d+/);
      expectNoStack(r.stderr);
    }
    const one = await first;
    expect(one.exitCode, one.stderr).toBe(0);
    const refunds = await refundsOf(sb, id);
    expect(refunds, others.map((r) => r.stderr).join('\n')).toHaveLength(1);
    expect(JSON.parse(one.stdout).id).toBe(refunds[0]!.id);
    for (const r of others) expect(r.stderr).toContain(`devolución ${refunds[0]!.id}`);
    expect(existsSync(`${file}.lock`)).toBe(false);
    return;
  }
  const runs = await Promise.all(Array.from({ length: n }, () => apply()));
  const refunds = await refundsOf(sb, id);
  expect(refunds, runs.map((r) => r.stderr).join('\n')).toHaveLength(1);
  const made = refunds[0]!.id;
  const ok = runs.filter((r) => r.exitCode === 0);
  expect(ok).toHaveLength(1);
  expect(JSON.parse(ok[0]!.stdout).id).toBe(made);
  for (const r of runs.filter((x) => x.exitCode !== 0)) {
    expect(r.exitCode, r.stderr).toBe(2);
    const err = lastJson(r.stderr);
    expect(err.error).toBe('already_applied');
    expect(err.message).toContain(`devolución ${made}`);
    expectNoStack(r.stderr);
  }
  expect(JSON.parse(readFileSync(file, 'utf8')).aplicado.devolucion_id).toBe(made);
  expect(existsSync(`${file}.lock`)).toBe(false);
}

/** An apply killed with SIGKILL at a random moment, then applied again until it refuses: one refund, named. */
export async function killAndApplyAgain(sb: Sandbox): Promise<void> {
  const { id, file } = await planFor(sb, '75.00');
  const child = execa('node', [BIN, 'devolver', '--aplicar', file, '--yes'], {
    cwd: ROOT,
    env: { ...process.env, ...sb.env, SVC_CONFIG_DIR: tempDir('svc-config-'), SVC_KEYRING: 'off' },
    reject: false,
  });
  // Somewhere from before the lock to after the plan is marked (svc starts in ~0.2-1 s).
  await new Promise((r) => setTimeout(r, 150 + Math.floor(Math.random() * 900)));
  child.kill('SIGKILL');
  await child;
  let last = await svcSpawned(['devolver', '--aplicar', file, '--yes', '--json'], { env: sb.env });
  if (last.exitCode === 0)
    last = await svcSpawned(['devolver', '--aplicar', file, '--yes', '--json'], { env: sb.env });
  const refunds = await refundsOf(sb, id);
  expect(refunds, last.stderr).toHaveLength(1);
  expect(last.exitCode, last.stderr).toBe(2);
  expect(lastJson(last.stderr).error).toBe('already_applied');
  expect(last.stderr).toContain(`devolución ${refunds[0]!.id}`);
  expect(existsSync(`${file}.lock`)).toBe(false);
}
