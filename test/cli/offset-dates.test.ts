// A service that writes some dates in ISO 8601 with an offset (`2026-11-27T01:50:00Z`)
// and others local, as the seed shows them: svc reads both, shows both in the service's
// zone, and filters, sorts and sums by day as the instants they are. Proved against two
// sandboxes given the same clock and the same moves, one plain and one with
// `--fechas-con-zona`: every output a person reads is the same, and --json keeps what
// each service sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cobro } from '../../src/api/schemas.js';
import { tempDir } from '../helpers/cli.js';
import { svc } from '../helpers/inproc.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';

const MINUTE = 60_000;
// 22:40 in Buenos Aires on 26 November is already the 27th in UTC: a day apart.
const START = Date.parse('2026-11-27T01:40:00Z');

let plain: InProcessSandbox;
let zoned: InProcessSandbox;

/** The same moves on a sandbox whose clock is `at`: requests, payments, refunds ten minutes apart. */
async function play(sb: InProcessSandbox, clock: { now: number }): Promise<void> {
  const tick = () => (clock.now += 10 * MINUTE);
  const make = async (monto: string) => {
    const c = (await sb.api('POST', '/v1/cobros', { concepto: `Orden ${monto}`, monto })).body
      .data as Cobro;
    expect((await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, { medio: 'qr' })).status).toBe(
      200,
    );
    tick();
    return c;
  };
  const a = await make('1000.00'); // id 1: 22:40 local, its dates in UTC on the zoned one
  const refund = async (c: Cobro, monto: string) => {
    expect((await sb.api('POST', `/v1/cobros/${c.id}/devoluciones`, { monto })).status).toBe(201);
    tick();
  };
  await refund(a, '100.00'); // refund 1 at 22:50 (UTC on the zoned one)
  const b = await make('200.00'); // id 2 at 23:00, local on both
  await refund(a, '50.00'); // refund 2 at 23:10, local
  await refund(b, '20.00'); // refund 3 at 23:20, UTC
  clock.now += 60 * MINUTE; // past midnight local: the 27th on both counts
  await make('300.00'); // id 3 at 00:30 of the 27th
}

const clocks = { plain: { now: START }, zoned: { now: START } };

beforeAll(async () => {
  plain = await startSandbox({ now: () => clocks.plain.now });
  zoned = await startSandbox({
    now: () => clocks.zoned.now,
    latitude: { offsetDates: true },
    uncheckedReplies: true,
  });
  await play(plain, clocks.plain);
  await play(zoned, clocks.zoned);
});
afterAll(async () => {
  await plain?.stop();
  await zoned?.stop();
});

// One data folder for both services' runs: `caso` names the journal it looked in.
const data = tempDir('svc-offset-dates-');
const run = (sb: InProcessSandbox, args: string[]) =>
  svc(args, { env: { ...sb.env, SVC_TZ: 'America/Argentina/Buenos_Aires', SVC_DATA_DIR: data } });

/** Output with what differs between two sandboxes left out: the address (its port), and each request's random code. */
async function same(sb: InProcessSandbox, text: string): Promise<string> {
  let out = text.replaceAll(sb.base_url, 'BASE');
  for (const c of (await sb.api('GET', '/v1/cobros')).body.data as Cobro[])
    out = out.replaceAll(c.codigo, `CODIGO-${c.id}`);
  return out;
}

describe('dates with an offset: read and shown in the service zone', () => {
  it('the zoned sandbox sends odd ids in UTC with Z, the others local', async () => {
    const r = await zoned.api('GET', '/v1/devoluciones');
    const dates = (r.body.data as { id: number; created_at: string }[])
      .map((d) => [d.id, d.created_at])
      .sort((x, y) => Number(x[0]) - Number(y[0]));
    expect(dates).toEqual([
      [1, '2026-11-27T01:50:00Z'],
      [2, '2026-11-26 23:10:00'],
      [3, '2026-11-27T02:20:00Z'],
    ]);
  });

  it.each([
    ['cobro listar'],
    ['transacciones listar'],
    ['devoluciones listar'],
    ['liquidaciones'],
    ['liquidaciones --por-fecha'],
    ['liquidaciones --por-fecha --json'],
    ['liquidaciones --por operacion --desde 2026-11-26 --hasta 2026-11-26'],
    ['cobro listar --desde 2026-11-26 --hasta 2026-11-26'],
    ['cobro listar --desde 2026-11-27'],
    ['devoluciones listar --hasta 2026-11-26'],
    ['transacciones listar --desde 2026-11-27'],
    ['caso 1'],
    ['caso 1 --markdown'],
    ['cobro ver 1'],
    ['transacciones ver 1'],
    ['devoluciones ver 1'],
    ['devoluciones ver 3'],
    ['devolver 1 --total --dry-run'],
  ])('svc %s: the same as against a service that writes local dates', async (line) => {
    const args = line.split(' ');
    const [p, z] = [await run(plain, args), await run(zoned, args)];
    expect(p.exitCode, p.stderr).toBe(0);
    expect({
      code: z.exitCode,
      out: await same(zoned, z.stdout),
      err: await same(zoned, z.stderr),
    }).toEqual({ code: 0, out: await same(plain, p.stdout), err: await same(plain, p.stderr) });
  });

  it('--desde and --hasta take a date with an offset by its day in the service zone', async () => {
    const r = await run(zoned, [
      'cobro',
      'listar',
      '--desde',
      '2026-11-26',
      '--hasta',
      '2026-11-26',
      '--json',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    // Request 1 at 22:40 local (01:40 UTC on the 27th) and request 2 at 23:00: both the 26th.
    expect((JSON.parse(r.stdout) as Cobro[]).map((c) => c.id).sort((a, b) => a - b)).toEqual([
      1, 2,
    ]);
  });

  it('caso orders its timeline by instant: the refund at 22:50 (sent in UTC) before the one at 23:10', async () => {
    const r = await run(zoned, ['caso', '1']);
    expect(r.exitCode, r.stderr).toBe(0);
    const timeline = r.stdout.slice(r.stdout.indexOf('línea de tiempo'));
    const first = timeline.indexOf('2026-11-26 22:50:00\tdevolución parcial de 100.00');
    const second = timeline.indexOf('2026-11-26 23:10:00\tdevolución parcial de 50.00');
    expect(first).toBeGreaterThan(-1);
    expect(second).toBeGreaterThan(first);
    expect(r.stdout).not.toContain('T01:50:00Z');
  });

  it('--json keeps each date as the service sent it', async () => {
    const r = await run(zoned, ['devoluciones', 'listar', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('"created_at": "2026-11-27T01:50:00Z"');
    expect(r.stdout).toContain('"created_at": "2026-11-26 23:10:00"');
  });
});

describe('records a write answers with', () => {
  it('cobro crear and sync show the dates of an odd id in the service zone', async () => {
    const out: Record<string, string>[] = [];
    for (const sb of [plain, zoned]) {
      await run(sb, ['cobro', 'crear', '--concepto', 'Par', '--monto', '1.00']);
      const made = await run(sb, ['cobro', 'crear', '--concepto', 'Impar', '--monto', '1.00']);
      const synced = await run(sb, ['sync', '5']);
      expect([made.exitCode, synced.exitCode], made.stderr + synced.stderr).toEqual([0, 0]);
      out.push({
        made: await same(sb, made.stdout),
        synced: await same(sb, synced.stdout + synced.stderr),
      });
    }
    expect(out[1]).toEqual(out[0]);
    expect(out[1]!.made).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/);
    const sent = await zoned.api('GET', '/v1/cobros/5');
    expect((sent.body.data as Cobro).created_at).toMatch(/Z$/);
  });
});
