// Refund plans against a real sandbox: one person writes the plan (nothing is sent),
// another applies it exactly once. An edited plan, a second application (the same
// file, or a copy taken before it was marked, as on another machine), another profile
// and a request that changed since are all refused with no POST.
import { readFileSync, statSync, writeFileSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoStack, svcSpawned, tempDir } from '../../helpers/cli.js';
import { svc } from '../../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../../helpers/sandbox.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb?.stop());

async function paid(monto: string): Promise<number> {
  const id = (await sb.api('POST', '/v1/cobros', { concepto: 'Con plan', monto })).body.data
    .id as number;
  expect((await sb.api('POST', `/_sandbox/cobros/${id}/pagar`, {})).status).toBe(200);
  return id;
}
const refundPosts = async (id: number) =>
  ((await sb.api('GET', '/_sandbox/log')).body.data as { method: string; path: string }[]).filter(
    (e) => e.method === 'POST' && e.path === `/v1/cobros/${id}/devoluciones`,
  ).length;

describe('devolver --plan, then --aplicar', () => {
  it('writes a 0600 plan and sends nothing; applying it makes one refund and marks the file; a second try, or a copy, makes none', async () => {
    const id = await paid('1500.00');
    const dir = tempDir('svc-plan-');
    const file = join(dir, 'plan.json');
    const made = await svcSpawned(['devolver', String(id), '--monto', '200', '--plan', file], {
      env: sb.env,
    });
    expect(made.exitCode, made.stderr).toBe(0);
    expect(made.stderr).toMatch(/plan escrito en .*plan\.json \(nada se envió\)/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const plan = JSON.parse(readFileSync(file, 'utf8'));
    expect(plan).toMatchObject({
      version: 2,
      cobro: { id, estado: 'PAGADA', monto_cobrado: '1500.00', devuelto: '0.00', devoluciones: [] },
      monto: '200.00',
      transaccion_id: null,
      modo: 'test',
      aplicado: null,
    });
    expect(plan.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await refundPosts(id)).toBe(0);
    const copy = join(dir, 'copia.json');
    copyFileSync(file, copy);

    // A dry run of the approval checks everything and sends nothing; the plan stays unapplied.
    const rehearsed = await svc(['devolver', '--aplicar', file, '--dry-run'], { env: sb.env });
    expect(rehearsed.exitCode, rehearsed.stderr).toBe(0);
    expect(rehearsed.stderr).toMatch(/--dry-run\): el plan .* se puede aplicar; no se envió nada/);
    expect(await refundPosts(id)).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).aplicado).toBeNull();

    const applied = await svcSpawned(['devolver', '--aplicar', file, '--yes', '--json'], {
      env: sb.env,
    });
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect(JSON.parse(applied.stdout)).toMatchObject({ cobro_id: id, monto: '200.00' });
    expect(await refundPosts(id)).toBe(1);
    expect(JSON.parse(readFileSync(file, 'utf8')).aplicado).toMatchObject({
      devolucion_id: JSON.parse(applied.stdout).id,
    });

    const again = await svc(['devolver', '--aplicar', file, '--yes'], { env: sb.env });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toMatch(/el plan ya se aplicó/);
    const elsewhere = await svc(['devolver', '--aplicar', copy, '--yes'], { env: sb.env });
    expect(elsewhere.exitCode).toBe(2);
    expect(elsewhere.stderr).toMatch(
      /ya tiene una devolución de 200\.00 hecha después del plan .*acá o en otra máquina/,
    );
    expect(await refundPosts(id)).toBe(1);
    expectNoStack(again.stderr + elsewhere.stderr);
  });

  it('refuses an edited plan, another profile, and a request that changed since: exit 1, nothing sent', async () => {
    const id = await paid('100.00');
    const dir = tempDir('svc-plan-');
    const file = join(dir, 'plan.json');
    expect(
      (await svc(['devolver', String(id), '--monto', '10', '--plan', file], { env: sb.env }))
        .exitCode,
    ).toBe(0);

    const edited = join(dir, 'editado.json');
    writeFileSync(edited, readFileSync(file, 'utf8').replace('"10.00"', '"90.00"'));
    const e = await svc(['devolver', '--aplicar', edited, '--yes'], { env: sb.env });
    expect(e.exitCode).toBe(1);
    expect(e.stderr).toMatch(/fue modificado después de escrito \(su digest no coincide\)/);

    const other = await svc(['devolver', '--aplicar', file, '--yes'], {
      env: { ...sb.env, SVC_PROFILE: 'otro' },
    });
    expect(other.exitCode).toBe(1);
    expect(other.stderr).toMatch(/el plan se hizo con el perfil "default" y estás usando "otro"/);

    expect((await sb.api('POST', `/v1/cobros/${id}/devoluciones`, { monto: '5.00' })).status).toBe(
      201,
    );
    const changed = await svc(['devolver', '--aplicar', file, '--yes'], { env: sb.env });
    expect(changed.exitCode).toBe(1);
    expect(changed.stderr).toMatch(
      /cambió desde que se hizo el plan \(estado PAGADA → DEVUELTA_PARCIALMENTE; devuelto 0\.00 → 5\.00\)/,
    );
    expect(await refundPosts(id)).toBe(1);
  });

  it.each([
    [['devolver', '1', '--monto', '1', '--plan', 'EXISTS'], /ya existe/],
    [['devolver', '--aplicar', 'MISSING'], /no existe/],
    [['devolver', '--aplicar', 'NOTAPLAN'], /no es un plan de devolución de svc/],
    [['devolver', '1', '--aplicar', 'NOTAPLAN'], /--aplicar toma todo del plan/],
  ])('%j: exit 2 before any request', async (args, message) => {
    const dir = tempDir('svc-plan-');
    writeFileSync(join(dir, 'EXISTS'), '{}');
    writeFileSync(join(dir, 'NOTAPLAN'), '{"version":1}');
    const r = await svc(
      args.map((a) => (/^[A-Z]+$/.test(a) ? join(dir, a) : a)),
      { env: sb.env },
    );
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});
