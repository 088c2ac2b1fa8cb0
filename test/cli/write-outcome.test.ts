// A write (POST) answered with anything but a refusal the seed names has an unknown
// outcome: a 500 with a JSON body after the service wrote is "puede haberse hecho o no"
// (exit 6) as a cut connection is, with check commands that run as printed; batch rows
// stay in doubt and are looked up, never written `rechazado`/`rechazada`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paidCobros, refundsPer, requestsCsv } from '../helpers/batches.js';
import { expectNoStack, tempDir } from '../helpers/cli.js';
import { svc } from '../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';
import { refusedWrite } from '../../src/api/service-errors.js';
import { checkCommandFor, refundCheck } from '../../src/cli/outcome.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb?.stop());

/** `svc sandbox fallas agregar --tipo 500-despues` on a route: the next write is made, then answered 500. */
async function fail500After(ruta: string, veces = 1): Promise<void> {
  const r = await svc(
    [
      'sandbox',
      'fallas',
      'agregar',
      '--ruta',
      ruta,
      '--metodo',
      'POST',
      '--tipo',
      '500-despues',
    ].concat(veces > 1 ? ['--veces', String(veces)] : []),
    { env: sb.env },
  );
  expect(r.exitCode, r.stderr).toBe(0);
}

/** The commands after `→ para verificar:`, each as argv (they hold no quotes here). */
function checks(stderr: string): string[][] {
  const line = stderr.split('\n').find((l) => l.startsWith('→ para verificar: '));
  expect(line, stderr).toBeDefined();
  return line!
    .slice('→ para verificar: '.length)
    .split('  o  ')
    .map((c) => c.trim().split(/ +/));
}

const byReferencia = async (ref: string) =>
  ((await sb.api('GET', '/v1/cobros')).body.data as { referencia: string | null }[]).filter(
    (c) => c.referencia === ref,
  ).length;

describe('a write answered 500 (JSON) after the service wrote', () => {
  it('devolver: exit 6, "puede haberse hecho o no", and each check command runs as printed and shows the refund', async () => {
    const [c] = await paidCobros(sb, 1, '50.00');
    await fail500After(`/v1/cobros/${c!.id}/devoluciones`);
    const r = await svc(['devolver', String(c!.id), '--monto', '5.00', '--yes'], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(6);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: la devolución de 5\\.00 del cobro ${c!.id} puede haberse hecho o no \\(POST /v1/cobros/${c!.id}/devoluciones: HTTP 500 internal_error, una respuesta que no dice si se hizo\\); no la repitas sin verificar$`,
        'm',
      ),
    );
    expectNoStack(r.stderr);
    expect(await refundsPer(sb, [c!.id])).toEqual([1]);
    const cmds = checks(r.stderr);
    expect(cmds.map((a) => a.slice(0, 3).join(' '))).toEqual([
      'svc devoluciones listar',
      'svc cobro ver',
    ]);
    for (const argv of cmds) {
      expect(argv[0]).toBe('svc');
      const run = await svc(argv.slice(1), { env: sb.env });
      expect(run.exitCode, `${argv.join(' ')}: ${run.stderr}`).toBe(0);
    }
    const listed = await svc([...cmds[0]!.slice(1), '--json'], { env: sb.env });
    expect(JSON.parse(listed.stdout).map((d: { monto: string }) => d.monto)).toEqual(['5.00']);
  });

  it('cobro crear with a referencia: exit 6, and the printed check finds the request', async () => {
    const ref = `pedido-${Date.now()}`;
    await fail500After('/v1/cobros');
    const r = await svc(
      ['cobro', 'crear', '--concepto', 'Pedido', '--monto', '12.00', '--referencia', ref],
      { env: sb.env },
    );
    expect(r.exitCode, r.stderr).toBe(6);
    expect(r.stderr).toMatch(/el cobro de 12\.00 puede haberse creado o no \(.*HTTP 500/);
    expect(await byReferencia(ref)).toBe(1);
    const [argv] = checks(r.stderr);
    expect(argv).toEqual(['svc', 'cobro', 'listar', '--q', ref]);
    const found = await svc([...argv!.slice(1), '--json'], { env: sb.env });
    expect(found.exitCode).toBe(0);
    expect(JSON.parse(found.stdout)).toHaveLength(1);
  });

  it('svc api POST: the body as sent, exit 6 and the check', async () => {
    const [c] = await paidCobros(sb, 1, '20.00');
    await fail500After(`/v1/cobros/${c!.id}/devoluciones`);
    const r = await svc(['api', 'POST', `/v1/cobros/${c!.id}/devoluciones`, '-f', 'monto=1.00'], {
      env: sb.env,
    });
    expect(r.exitCode).toBe(6);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: 'internal_error' });
    expect(r.stderr).toContain('puede haberse hecho o no');
    expect(r.stderr).toContain(`→ para verificar: svc devoluciones listar --cobro ${c!.id}`);
  });

  it('cobro crear --lote: the row is looked up, found, and never written rechazado', async () => {
    const { path, refs } = requestsCsv(3, `r500-${Date.now()}`);
    await fail500After('/v1/cobros');
    const resultado = join(tempDir('svc-cobros-'), 'resultado.csv');
    const r = await svc(['cobro', 'crear', '--lote', path, '--resultado', resultado, '--json'], {
      env: sb.env,
    });
    await sb.api('DELETE', '/_sandbox/fallas');
    expect(r.exitCode, r.stderr).toBe(0);
    const estados = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).estado as string);
    expect(estados).not.toContain('rechazado');
    expect(estados).toEqual(['creado', 'creado', 'creado']);
    for (const ref of refs) expect(await byReferencia(ref)).toBe(1);
  });

  it('devolver --aplicar of a batch: the row is looked up, found, and never written rechazada', async () => {
    const rows = await paidCobros(sb, 3);
    const ids = rows.map((x) => x.id);
    const dir = tempDir('svc-lote-');
    writeFileSync(
      join(dir, 'lote.csv'),
      `cobro,monto\n${ids.map((id) => `${id},10.00`).join('\n')}\n`,
    );
    const plan = join(dir, 'lote.json');
    const made = await svc(['devolver', '--lote', join(dir, 'lote.csv'), '--plan', plan], {
      env: sb.env,
    });
    expect(made.exitCode, made.stderr).toBe(0);
    await fail500After('/v1/cobros*');
    const r = await svc(['devolver', '--aplicar', plan, '--yes', '--json'], { env: sb.env });
    await sb.api('DELETE', '/_sandbox/fallas');
    expect(r.exitCode, r.stderr).toBe(0);
    const estados = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).estado as string);
    expect(estados).not.toContain('rechazada');
    expect(estados).toEqual(['hecha', 'hecha', 'hecha']);
    expect(await refundsPer(sb, ids)).toEqual([1, 1, 1]);
  });
});

describe('which answers to a write mean "not done"', () => {
  it('only the refusals the seed names, and 429', () => {
    const refused: [number, string][] = [
      [400, 'create_failed'],
      [400, 'refund_failed'],
      [400, 'sync_failed'],
      [401, 'unauthorized'],
      [401, 'otro'],
      [403, 'comercio_no_listo'],
      [404, 'not_found'],
      [429, 'rate_limited'],
    ];
    const unknown: [number, string][] = [
      [500, 'internal_error'],
      [502, 'bad_gateway'],
      [503, 'unavailable'],
      [400, 'validation_error'],
      [403, 'forbidden'],
      [409, 'conflict'],
      [418, 'teapot'],
      [422, 'monto_invalido'],
    ];
    for (const [http, code] of refused)
      expect(refusedWrite(http, code), `${http} ${code}`).toBe(true);
    for (const [http, code] of unknown)
      expect(refusedWrite(http, code), `${http} ${code}`).toBe(false);
  });

  it('a named refusal of a refund is still exit 1; a 422 of its own is exit 6', async () => {
    const [c] = await paidCobros(sb, 1, '30.00');
    /** `devolver` of 1.00 on c, the service answering it `status` with error `code`. */
    const refundAnswered = async (status: number, code: string) => {
      await sb.api('POST', '/_sandbox/fallas', {
        method: 'POST',
        path: `/v1/cobros/${c!.id}/devoluciones`,
        action: 'respond',
        status,
        body: { error: code, message: 'no' },
      });
      return svc(['devolver', String(c!.id), '--monto', '1.00'], { env: sb.env });
    };
    const refused = await refundAnswered(400, 'refund_failed');
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(/^error: refund_failed \(HTTP 400\): "no"$/m);
    const odd = await refundAnswered(422, 'monto_invalido');
    expect(odd.exitCode).toBe(6);
    expect(odd.stderr).toMatch(/puede haberse hecho o no \(.*HTTP 422 monto_invalido/);
  });
});

describe('check commands carry the flags the write was made with', () => {
  it('--profile, --live and --base-url, quoted for a shell, on one line', () => {
    const flags = { profile: 'caja 2', live: true, baseUrl: 'https://api.example.com' };
    expect(refundCheck(7, flags)).toBe(
      "svc devoluciones listar --cobro 7 --profile 'caja 2' --live --base-url https://api.example.com  o  svc cobro ver 7 --profile 'caja 2' --live --base-url https://api.example.com",
    );
    expect(checkCommandFor('/v1/cobros/9/sync', { live: true })).toBe('svc cobro ver 9 --live');
    expect(checkCommandFor('/v1/cobros', {})).toBe('svc cobro listar');
    expect(refundCheck(7)).not.toMatch(/\n|jq/);
  });
});

describe('a rerun after an unknown outcome never pays twice', () => {
  /** One person's machine: the same data folder for every run. */
  const machine = () => ({ ...sb.env, SVC_DATA_DIR: tempDir('svc-data-') });

  it('devolver run again after a 500 after writing: the refund is found, none is sent, exit 0', async () => {
    const [c] = await paidCobros(sb, 1, '50.00');
    const env = machine();
    await fail500After(`/v1/cobros/${c!.id}/devoluciones`);
    const args = ['devolver', String(c!.id), '--monto', '5.00', '--yes'];
    const first = await svc(args, { env });
    expect(first.exitCode, first.stderr).toBe(6);
    const made = (await sb.api('GET', '/v1/devoluciones')).body.data.filter(
      (d: { cobro_id: number }) => d.cobro_id === c!.id,
    );
    expect(made).toHaveLength(1);
    const dry = await svc([...args.slice(0, 4), '--dry-run'], { env });
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stderr).toMatch(
      new RegExp(
        `una devolución de 5\\.00 a este cobro quedó en duda el \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}: ya está hecha \\(devolución ${made[0].id}\\)`,
      ),
    );
    expect(dry.stderr).toMatch(/prueba \(--dry-run\): .*no se enviaría otra/);
    const again = await svc(args, { env });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toMatch(
      new RegExp(`ya está hecha \\(devolución ${made[0].id}\\); no se envía otra`),
    );
    expect(again.stdout).toMatch(new RegExp(`^id\\t${made[0].id}$`, 'm'));
    expect(await refundsPer(sb, [c!.id])).toEqual([1]);
    // Looked up and settled: a third run is a new refund, asked for on purpose.
    const third = await svc(args, { env });
    expect(third.exitCode, third.stderr).toBe(0);
    expect(third.stderr).not.toMatch(/quedó en duda/);
    expect(await refundsPer(sb, [c!.id])).toEqual([2]);
  });

  it('devolver run again when the first was not made: says so and sends it once', async () => {
    const [c] = await paidCobros(sb, 1, '50.00');
    const env = machine();
    await sb.api('POST', '/_sandbox/fallas', {
      method: 'POST',
      path: `/v1/cobros/${c!.id}/devoluciones`,
      action: 'respond',
      status: 503,
      body: { error: 'unavailable', message: 'en mantenimiento' },
    });
    const args = ['devolver', String(c!.id), '--monto', '5.00', '--yes'];
    expect((await svc(args, { env })).exitCode).toBe(6);
    expect(await refundsPer(sb, [c!.id])).toEqual([0]);
    const again = await svc(args, { env });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/quedó en duda el .*: no está hecha .*; se sigue con esta/);
    expect(await refundsPer(sb, [c!.id])).toEqual([1]);
  });

  it('cobro crear run again after a 500 after writing: the request with that referencia is found, none is created', async () => {
    const env = machine();
    const ref = `pedido-77-${Date.now()}`;
    await fail500After('/v1/cobros');
    const args = [
      'cobro',
      'crear',
      '--concepto',
      'Pedido 77',
      '--monto',
      '20.00',
      '--referencia',
      ref,
    ];
    expect((await svc(args, { env })).exitCode).toBe(6);
    const again = await svc([...args, '--json'], { env });
    expect(again.exitCode, again.stderr).toBe(0);
    const shownId = JSON.parse(again.stdout).id as number;
    expect(again.stderr).toContain(`un cobro de 20.00 con la referencia ${ref} quedó en duda el `);
    expect(again.stderr).toContain(`ya está hecho (cobro ${shownId}); no se crea otro`);
    expect(await byReferencia(ref)).toBe(1);
  });
});
