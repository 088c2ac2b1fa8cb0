// The money flows once more against a service that differs from svc's sandbox within
// the seed: lists paged three items at a time (has_more, next, Link) and writes answered
// 500 with a JSON body after the service wrote. Every figure svc states is checked
// against the sum over all pages read straight from the service; every write in doubt
// is exit 6 "puede haberse hecho o no", and a rerun as a person types it makes exactly
// one refund or one request, counted at the service over all pages.
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Liquidacion } from '../../src/api/schemas.js';
import { requestsCsv } from '../helpers/batches.js';
import { tempDir } from '../helpers/cli.js';
import { svc } from '../helpers/inproc.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';

const PAGE = 3;
const cents = (s: string) => BigInt(s.replace('.', ''));
const money = (c: bigint) => `${c / 100n}.${String(c % 100n).padStart(2, '0')}`;
const sum = (xs: string[]) => money(xs.reduce((s, x) => s + cents(x), 0n));

interface Devolucion {
  id: number;
  cobro_id: number;
  monto: string;
}
interface Transaccion {
  id: number;
  cobro_id: number;
  monto: string;
}

let sb: InProcessSandbox;
/** The oldest paid request: its transaction, refund and settlement sit on the last pages. */
let oldest: number;
let others: number[];

/** Every page of a /v1 list, read as the pages point (`next`), and how many pages it took. */
async function allPages<T>(path: string): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let url: string | null = path;
  let pages = 0;
  while (url !== null && pages < 200) {
    const r = await sb.api('GET', url.replace(sb.base_url, ''));
    expect(r.status, r.text).toBe(200);
    expect((r.body.data as T[]).length).toBeLessThanOrEqual(PAGE);
    items.push(...(r.body.data as T[]));
    url = (r.body.next as string | null) ?? null;
    pages++;
  }
  return { items, pages };
}

const refundsOf = async (id: number) =>
  (await allPages<Devolucion>('/v1/devoluciones')).items.filter((d) => d.cobro_id === id);
const requestsWith = async (ref: string) =>
  (await allPages<{ referencia: string | null }>('/v1/cobros')).items.filter(
    (c) => c.referencia === ref,
  ).length;

async function pay(monto: string, medio = 'qr'): Promise<number> {
  const c = await sb.cobro({ concepto: `Orden ${monto}`, monto });
  expect((await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, { medio })).status).toBe(200);
  return c.id;
}

/** `svc sandbox fallas agregar --tipo 500-despues`: the next POST on `ruta` is made, then answered 500 (JSON). */
async function fail500After(ruta: string): Promise<void> {
  const r = await svc(
    ['sandbox', 'fallas', 'agregar', '--ruta', ruta, '--metodo', 'POST', '--tipo', '500-despues'],
    { env: sb.env },
  );
  expect(r.exitCode, r.stderr).toBe(0);
}

/** Someone else's writes after ours, so what we look for is pushed off the first page. */
async function othersWrite(n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const id = others[i % others.length]!;
    const r = await sb.api('POST', `/v1/cobros/${id}/devoluciones`, { monto: '0.10' });
    expect(r.status, r.text).toBe(201);
  }
}

/**
 * Newer requests whose referencia holds `ref` (a search for it finds them too): the
 * request with exactly `ref` is now past the first page of that search.
 */
async function lookalikes(ref: string): Promise<void> {
  for (let i = 1; i <= PAGE + 1; i++)
    await sb.cobro({ concepto: 'Otro', monto: '1.00', referencia: `${ref}-bis-${i}` });
}

/** One person's machine: the same data folder for every run. */
const machine = () => ({ ...sb.env, SVC_DATA_DIR: tempDir('svc-data-') });

beforeAll(async () => {
  sb = await startSandbox({ pageSize: PAGE });
  oldest = await pay('1000.00');
  expect(
    (await sb.api('POST', `/v1/cobros/${oldest}/devoluciones`, { monto: '123.45' })).status,
  ).toBe(201);
  others = [];
  for (const [monto, medio] of [
    ['200.00', 'debito'],
    ['310.50', 'qr'],
    ['400.00', 'credito'],
    ['515.25', 'qr'],
    ['600.00', 'debito'],
    ['70.10', 'qr'],
    ['80.00', 'credito'],
  ] as const)
    others.push(await pay(monto, medio));
  await othersWrite(4);
  // Several pages in every list the flows read.
  expect((await allPages('/v1/liquidaciones')).pages).toBeGreaterThanOrEqual(3);
  expect((await allPages('/v1/devoluciones')).pages).toBeGreaterThanOrEqual(2);
});
afterAll(() => sb?.stop());

describe('figures on a paged service are the sum over all pages', () => {
  it('liquidaciones: totals and --por-fecha', async () => {
    const { items } = await allPages<Liquidacion>('/v1/liquidaciones');
    const bruto = sum(items.map((l) => l.bruto));
    const queda = sum(items.map((l) => l.te_queda));
    const r = await svc(['liquidaciones'], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`total\tbruto ${bruto}\t`);
    expect(r.stderr).toContain(`te_queda ${queda}\t(${items.length} liquidaciones)`);
    const byDay = new Map<string, bigint>();
    for (const l of items) {
      const d = l.fecha_estimada.slice(0, 10);
      byDay.set(d, (byDay.get(d) ?? 0n) + cents(l.te_queda));
    }
    const porFecha = await svc(['liquidaciones', '--por-fecha', '--json'], { env: sb.env });
    expect(porFecha.exitCode, porFecha.stderr).toBe(0);
    const days = JSON.parse(porFecha.stdout) as {
      fecha: string;
      bruto: string;
      te_queda: string;
    }[];
    expect(sum(days.map((d) => d.bruto))).toBe(bruto);
    expect(Object.fromEntries(days.map((d) => [d.fecha.slice(0, 10), d.te_queda]))).toEqual(
      Object.fromEntries([...byDay].map(([d, c]) => [d, money(c)])),
    );
  });

  it('conciliar: a statement of every page credited coincides; one day short is named', async () => {
    const { items } = await allPages<Liquidacion>('/v1/liquidaciones');
    const byDay = new Map<string, bigint>();
    for (const l of items) {
      const d = l.fecha_estimada.slice(0, 10);
      byDay.set(d, (byDay.get(d) ?? 0n) + cents(l.te_queda));
    }
    const days = [...byDay].sort(([a], [b]) => (a < b ? -1 : 1));
    const dir = tempDir('svc-extracto-');
    const write = (rows: [string, bigint][]) => {
      const path = join(dir, `extracto-${Math.random().toString(36).slice(2)}.csv`);
      writeFileSync(
        path,
        `Date,Description,Amount\n${rows.map(([d, c]) => `${d},Acreditación,${money(c)}`).join('\n')}\n`,
      );
      return path;
    };
    const r = await svc(['liquidaciones', 'conciliar', write(days), '--json'], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      filas: { fecha: string; estado: string; esperado: string }[];
      coincide: boolean;
    };
    expect(out.filas.map((f) => [f.fecha, f.estado, f.esperado])).toEqual(
      days.map(([d, c]) => [d, 'coincide', money(c)]),
    );
    // One centavo short on the last day: not the same money, exit 1.
    const short = days.map(([d, c], i): [string, bigint] => [
      d,
      i === days.length - 1 ? c - 1n : c,
    ]);
    const off = await svc(['liquidaciones', 'conciliar', write(short)], { env: sb.env });
    expect(off.exitCode, off.stderr).toBe(1);
    const [lastDay, lastCents] = days.at(-1)!;
    // FALTA on a business day; `pendiente` when that day is a national holiday (the credit
    // may still come the next business day, after the statement ends): never `coincide`.
    expect(off.stdout, off.stdout).toMatch(
      new RegExp(`^${lastDay}\t(FALTA|pendiente)\t${money(lastCents).replace('.', '\\.')}\t`, 'm'),
    );
  });

  it('caso of the oldest request: its transaction and refund from the last pages', async () => {
    const txs = (await allPages<Transaccion>('/v1/transacciones')).items.filter(
      (t) => t.cobro_id === oldest,
    );
    const devs = await refundsOf(oldest);
    const r = await svc(['caso', String(oldest), '--json'], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const caso = JSON.parse(r.stdout);
    expect(caso.transacciones.map((t: { monto: string }) => t.monto)).toEqual(
      txs.map((t) => t.monto),
    );
    expect(sum(caso.devoluciones.map((d: { monto: string }) => d.monto))).toBe(
      sum(devs.map((d) => d.monto)),
    );
    expect(caso.devoluciones).toHaveLength(devs.length);
  });

  it('devolver --total --dry-run: "ya devuelto" and what is left count every page', async () => {
    const devs = await refundsOf(oldest);
    const done = sum(devs.map((d) => d.monto));
    const left = money(100000n - cents(done));
    const r = await svc(['devolver', String(oldest), '--total', '--dry-run'], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = r.stdout + r.stderr;
    expect(out).toMatch(new RegExp(`ya devuelto\\s+${done.replace('.', '\\.')} `));
    expect(out).toMatch(new RegExp(`a devolver:\\s+${left.replace('.', '\\.')}`));
    expect(await refundsOf(oldest)).toHaveLength(devs.length);
  });
});

describe('writes answered 500 after the service wrote, then rerun', () => {
  it('devolver: exit 6, the refund found past the first page on rerun, one refund made', async () => {
    const id = others[1]!;
    const before = await refundsOf(id);
    const env = machine();
    await fail500After(`/v1/cobros/${id}/devoluciones`);
    const args = ['devolver', String(id), '--monto', '7.25', '--yes'];
    const first = await svc(args, { env });
    expect(first.exitCode, first.stderr).toBe(6);
    expect(first.stderr).toMatch(
      new RegExp(`la devolución de 7\\.25 del cobro ${id} puede haberse hecho o no \\(.*HTTP 500`),
    );
    const made = (await refundsOf(id)).filter((d) => !before.some((b) => b.id === d.id));
    expect(made.map((d) => d.monto)).toEqual(['7.25']);
    // Others refund meanwhile: the one in doubt is now past the first page.
    await othersWrite(PAGE + 1);
    const again = await svc(args, { env });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toMatch(
      new RegExp(`ya está hecha \\(devolución ${made[0]!.id}\\); no se envía otra`),
    );
    const after = await refundsOf(id);
    expect(after.filter((d) => d.monto === '7.25')).toHaveLength(1);
    const own = (ds: Devolucion[]) => ds.filter((d) => d.monto !== '0.10').length;
    expect(own(after) - own(before)).toBe(1);
  });

  it('cobro crear --referencia: exit 6, the request found past the first page on rerun, one made', async () => {
    const env = machine();
    const ref = `latitud-${Date.now()}`;
    await fail500After('/v1/cobros');
    const args = [
      'cobro',
      'crear',
      '--concepto',
      'Pedido',
      '--monto',
      '45.60',
      '--referencia',
      ref,
    ];
    const first = await svc(args, { env });
    expect(first.exitCode, first.stderr).toBe(6);
    expect(first.stderr).toMatch(/el cobro de 45\.60 puede haberse creado o no \(.*HTTP 500/);
    expect(await requestsWith(ref)).toBe(1);
    await lookalikes(ref);
    const again = await svc([...args, '--json'], { env });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/ya está hecho \(cobro \d+\); no se crea otro/);
    expect(await requestsWith(ref)).toBe(1);
  });

  it('cobro crear --lote: a row answered 500 after writing is found, not rejected; a rerun creates none', async () => {
    const { path, refs } = requestsCsv(5, `lat-lote-${Date.now()}`);
    await fail500After('/v1/cobros');
    const env = machine();
    const r = await svc(['cobro', 'crear', '--lote', path, '--json'], { env });
    await sb.clearFaults();
    expect(r.exitCode, r.stderr).toBe(0);
    const estados = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).estado as string);
    expect(estados).toEqual(refs.map(() => 'creado'));
    for (const ref of refs) await lookalikes(ref);
    const again = await svc(['cobro', 'crear', '--lote', path, '--json'], { env });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(
      again.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).estado as string),
    ).toEqual(refs.map(() => 'ya_creado'));
    // From another machine (a copy of the file, without the ledger kept beside the
    // original): the referencias are looked up over every page of the service's list,
    // and the batch is refused whole: nothing is created.
    const copy = join(tempDir('svc-cobros-'), 'cobros.csv');
    copyFileSync(path, copy);
    const elsewhere = await svc(['cobro', 'crear', '--lote', copy, '--json'], { env: machine() });
    expect(elsewhere.exitCode, elsewhere.stderr).toBe(2);
    expect(elsewhere.stderr).toContain(`ya hay un cobro con la referencia "${refs[0]}"`);
    for (const ref of refs) expect(await requestsWith(ref), ref).toBe(1);
  });

  it('devolver --lote plan and --aplicar: "total" is what is left over all pages; a 500 after writing is hecha; a rerun pays nothing', async () => {
    const target = [oldest, others[2]!, others[3]!];
    const left = new Map<number, string>();
    for (const id of target) {
      const c = (await sb.api('GET', `/v1/cobros/${id}`)).body.data as { monto: string };
      left.set(id, money(cents(c.monto) - cents(sum((await refundsOf(id)).map((d) => d.monto)))));
    }
    const before = new Map<number, number>();
    for (const id of target) before.set(id, (await refundsOf(id)).length);
    const dir = tempDir('svc-lote-');
    const csv = join(dir, 'lote.csv');
    writeFileSync(csv, `cobro,monto\n${target.map((id) => `${id},total`).join('\n')}\n`);
    const plan = join(dir, 'lote.json');
    const env = machine();
    const made = await svc(['devolver', '--lote', csv, '--plan', plan], { env });
    expect(made.exitCode, made.stderr).toBe(0);
    await fail500After('/v1/cobros*');
    const r = await svc(['devolver', '--aplicar', plan, '--yes', '--json'], { env });
    await sb.clearFaults();
    expect(r.exitCode, r.stderr).toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { estado: string });
    expect(rows.map((x) => x.estado)).toEqual(['hecha', 'hecha', 'hecha']);
    const again = await svc(['devolver', '--aplicar', plan, '--yes', '--json'], { env });
    expect(again.exitCode, again.stderr).toBe(2);
    expect(again.stderr).toContain('"error":"already_applied"');
    for (const id of target) {
      const devs = await refundsOf(id);
      expect(devs.length - before.get(id)!, `cobro ${id}`).toBe(1);
      expect(
        devs.some((d) => d.monto === left.get(id)),
        `cobro ${id}`,
      ).toBe(true);
      // Everything refunded, once: the request's amount exactly.
      const c = (await sb.api('GET', `/v1/cobros/${id}`)).body.data as { monto: string };
      expect(sum(devs.map((d) => d.monto)), `cobro ${id}`).toBe(c.monto);
    }
  });
});
