// Totals in one streamed pass: each item is added up as it arrives and let go, and
// only the rows shown are kept. Against a local service whose lists hold 200,000
// settlements (and refunds), `liquidaciones --por-fecha`, `liquidaciones --limit 3`
// and `devolver --total` answer in a 40 MB heap; read whole (the list's text, then a
// parsed object per matched row) they ran out of memory before printing anything.
// The figures are the exact sums in integer cents, computed here on the same data.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoStack, svcSpawned, tempDir } from '../../helpers/cli.js';
import { journalEntryAs } from '../../helpers/journal.js';
import { closeServer, onLoopback } from '../../helpers/loopback.js';

const N = 200_000;
const KEY = 'svc_test_0123456789abcdef0123456789abcdef';

const cents = (c: bigint) => `${c / 100n}.${String(c % 100n).padStart(2, '0')}`;
const brutoOf = (i: number) => BigInt((i % 997) * 100 + (i % 100) + 100);
const feeOf = (i: number) => BigInt(i % 37);
const dayOf = (i: number) =>
  `2026-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`;

function settlement(i: number) {
  return {
    id: i + 1,
    transaccion_id: i + 1,
    cobro_id: (i % 5000) + 1,
    bruto: cents(brutoOf(i)),
    te_cobramos: cents(feeOf(i)),
    te_queda: cents(brutoOf(i) - feeOf(i)),
    fecha_operacion: `${dayOf(i)} 10:00:00`,
    fecha_estimada: `${dayOf(i)} 12:00:00`,
    estado: 'estimado',
  };
}

/** Writes `{"data":[…]}` of `n` items a slice at a time, as a service streams a long list. */
function stream(res: ServerResponse, n: number, item: (i: number) => unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"data":[');
  let i = 0;
  const more = () => {
    let text = '';
    for (let k = 0; k < 500 && i < n; k++, i++) text += `${i ? ',' : ''}${JSON.stringify(item(i))}`;
    if (i >= n) {
      res.end(`${text}]}`);
      return;
    }
    if (res.write(text)) setImmediate(more);
    else res.once('drain', more);
  };
  more();
}

/** Refunds: one in 50 is of request 7 (0.01 to 0.50 each). */
function refund(i: number) {
  return {
    id: i + 1,
    cobro_id: i % 50 === 0 ? 7 : (i % 5000) + 8,
    monto: cents(BigInt((i % 50) + 1)),
    tipo: 'parcial',
    estado: 'DEVUELTA_PARCIALMENTE',
    created_at: `${dayOf(i)} 10:00:00`,
  };
}

const cobro7 = {
  id: 7,
  codigo: 'C7',
  concepto: 'Cuota',
  monto: '90000.00',
  monto_cobrado: '90000.00',
  estado: 'DEVUELTA_PARCIALMENTE',
  url: 'http://127.0.0.1/c/7',
  cvu: null,
  qr: null,
  referencia: null,
  medios: { tarjeta: true, qr: true, transferencia: true },
  vencimiento: null,
  success_url: null,
  error_url: null,
  created_at: '2026-01-01 10:00:00',
  updated_at: '2026-01-01 10:00:00',
};

let server: Server;
let env: Record<string, string>;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/v1/liquidaciones') return stream(res, N, settlement);
    if (req.url === '/v1/devoluciones') return stream(res, N, refund);
    if (req.url === '/v1/cobros')
      return stream(res, N, (i) => ({
        ...cobro7,
        id: i + 1,
        codigo: `C${String(i + 1).padStart(9, '0')}`,
        estado: 'PAGADA',
      }));
    if (req.url === '/v1/cobros/7') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ data: cobro7 }));
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":"not_found","message":"no"}');
  });
  const url = await onLoopback(server);
  env = {
    SVC_BASE_URL: url,
    SVC_API_KEY: KEY,
    SVC_TZ: 'America/Argentina/Buenos_Aires',
    NODE_OPTIONS: '--max-old-space-size=40',
  };
});
afterAll(() => closeServer(server));

describe('totals in one streamed pass, memory for what is shown', () => {
  it('liquidaciones --por-fecha: 200,000 settlements in a 40 MB heap, each day exact', async () => {
    const days = new Map<string, { n: number; bruto: bigint; fee: bigint }>();
    for (let i = 0; i < N; i++) {
      const d = days.get(dayOf(i)) ?? { n: 0, bruto: 0n, fee: 0n };
      d.n++;
      d.bruto += brutoOf(i);
      d.fee += feeOf(i);
      days.set(dayOf(i), d);
    }
    const want = [...days.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([fecha, d]) => ({
        fecha,
        liquidaciones: d.n,
        bruto: cents(d.bruto),
        te_cobramos: cents(d.fee),
        te_queda: cents(d.bruto - d.fee),
      }));
    const r = await svcSpawned(['liquidaciones', '--por-fecha', '--json'], {
      env,
      timeout: 120_000,
    });
    expect(r.exitCode, r.stderr.slice(-2000)).toBe(0);
    expectNoStack(r.stderr);
    expect(JSON.parse(r.stdout)).toEqual(want);
  }, 150_000);

  it('liquidaciones --limit 3: three rows, the totals of all 200,000, in a 40 MB heap', async () => {
    let bruto = 0n;
    let fee = 0n;
    for (let i = 0; i < N; i++) {
      bruto += brutoOf(i);
      fee += feeOf(i);
    }
    const r = await svcSpawned(['liquidaciones', '--limit', '3'], { env, timeout: 120_000 });
    expect(r.exitCode, r.stderr.slice(-2000)).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(3);
    expect(r.stdout.split('\n')[0]).toMatch(/^1\t/);
    expect(r.stderr).toBe(
      `total\tbruto ${cents(bruto)}\tte_cobramos ${cents(fee)}\tte_queda ${cents(bruto - fee)}\t(200000 liquidaciones)\n` +
        'mostrando 3 de 200000; los totales son de todas\n',
    );
  }, 150_000);

  it('devolver --total --dry-run: what is left of a request with 4,000 of 200,000 refunds, in a 40 MB heap', async () => {
    let refunded = 0n;
    for (let i = 0; i < N; i += 50) refunded += BigInt((i % 50) + 1);
    const left = cents(9_000_000n - refunded);
    const r = await svcSpawned(['devolver', '7', '--total', '--dry-run'], {
      env,
      timeout: 120_000,
    });
    expect(r.exitCode, r.stderr.slice(-2000)).toBe(0);
    expectNoStack(r.stderr);
    expect(r.stdout + r.stderr).toContain(`${cents(refunded)} (4000 devoluciones)`);
    expect(r.stdout + r.stderr).toContain(left);
  }, 150_000);

  it('liquidaciones conciliar: a month of statement against 200,000 settlements, in a 40 MB heap', async () => {
    const days = new Map<string, { cents: bigint; ids: number }>();
    for (let i = 0; i < N; i++) {
      if (!dayOf(i).startsWith('2026-03-')) continue;
      const d = days.get(dayOf(i)) ?? { cents: 0n, ids: 0 };
      d.cents += brutoOf(i) - feeOf(i);
      d.ids++;
      days.set(dayOf(i), d);
    }
    const statement = join(tempDir('svc-stream-'), 'extracto.csv');
    const credits = [...days.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
    writeFileSync(
      statement,
      `fecha,importe\n${credits.map(([d, c]) => `${d},${cents(c.cents)}`).join('\n')}\n`,
    );
    const r = await svcSpawned(['liquidaciones', 'conciliar', statement, '--json'], {
      env,
      timeout: 120_000,
    });
    expectNoStack(r.stderr);
    expect(r.exitCode, r.stderr.slice(-2000)).toBe(0);
    const filas = (
      JSON.parse(r.stdout) as {
        filas: { fecha: string; estado: string; esperado: string; liquidaciones: number[] }[];
      }
    ).filas;
    expect(filas.map((f) => [f.fecha, f.estado, f.esperado, f.liquidaciones.length])).toEqual(
      credits.map(([d, c]) => [d, 'coincide', cents(c.cents), c.ids]),
    );
  }, 150_000);

  it('webhook conciliar: 200,000 requests judged as they arrive against the journal, in a 40 MB heap', async () => {
    const journal = join(tempDir('svc-stream-'), 'webhooks.jsonl');
    const at = (n: number) => `2026-11-01T12:00:0${n}.000Z`;
    const lines = [1, 2, 3, 4, 5, 6, 7, 8].map((id) =>
      JSON.stringify(
        journalEntryAs(`evt_${String(id).padStart(12, '0')}`, {
          cobro_id: id,
          estado: id <= 5 ? 'PAGADA' : 'PENDIENTE',
          event: id <= 5 ? 'payment.approved' : 'payment.created',
          outcome: 'forwarded',
          status: 200,
          target: 'http://127.0.0.1:9/',
          received_at: at(id),
        }),
      ),
    );
    writeFileSync(journal, `${lines.join('\n')}\n`);
    const r = await svcSpawned(['webhook', 'conciliar', '--journal', journal, '--json'], {
      env,
      timeout: 120_000,
    });
    expectNoStack(r.stderr);
    expect(r.exitCode, r.stderr.slice(-2000)).toBe(1);
    const diffs = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { cobro_id: number; app: string; accion: string });
    expect(diffs.map((d) => [d.cobro_id, d.app, d.accion])).toEqual([
      [6, 'PENDIENTE', 'trigger'],
      [7, 'PENDIENTE', 'trigger'],
      [8, 'PENDIENTE', 'trigger'],
    ]);
    expect(JSON.parse(r.stderr.split('\n')[0]!)).toEqual({
      cobros: N,
      juzgados: 8,
      diferencias: 3,
      anteriores: N - 8,
      journal_desde: at(1),
    });
  }, 150_000);

  it('devolver --lote --plan: three rows checked against 200,000 requests and refunds, in a 40 MB heap', async () => {
    const dir = tempDir('svc-stream-');
    const lote = join(dir, 'lote.csv');
    writeFileSync(lote, 'cobro,monto\n7,0.01\nc000000009,0.02\n8,0.03\n');
    const plan = join(dir, 'plan.json');
    const r = await svcSpawned(['devolver', '--lote', lote, '--plan', plan], {
      env,
      timeout: 120_000,
    });
    expectNoStack(r.stderr);
    expect(r.exitCode, r.stderr.slice(-2000)).toBe(0);
    const filas = (
      JSON.parse(readFileSync(plan, 'utf8')) as {
        filas: { cobro_id: number; monto: string; antes: number[] }[];
      }
    ).filas;
    // Each row's request found by id or code, with the refunds it already has.
    expect(filas.map((f) => [f.cobro_id, f.monto, f.antes.length])).toEqual([
      [7, '0.01', N / 50],
      [9, '0.02', 40],
      [8, '0.03', 0],
    ]);
  }, 150_000);
});
