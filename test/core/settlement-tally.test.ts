// Settlement totals made a row at a time and merged page by page (`svc liquidaciones`
// folds each page of the list into its own tally) equal the sums of every row at
// once, in integer cents, overall and per day of the service's zone.
import { describe, expect, it } from 'vitest';
import { porFecha, SettlementTally } from '../../src/domain/liquidaciones.js';

const cents = (c: bigint) => `${c / 100n}.${String(c % 100n).padStart(2, '0')}`;
const rows = Array.from({ length: 500 }, (_, i) => {
  const bruto = BigInt((i * 7919) % 100_000) + 1n;
  const fee = BigInt(i % 13);
  return {
    // An offset: the day is the service's (a UTC evening is the next day nowhere west of it).
    fecha_estimada: `2026-03-0${(i % 3) + 1}T23:30:00-03:00`,
    bruto: cents(bruto + fee),
    te_cobramos: cents(fee),
    te_queda: cents(bruto),
  };
});

describe('SettlementTally', () => {
  it('pages folded apart and merged give the sums of all the rows, per day and overall', () => {
    const pages = [rows.slice(0, 120), rows.slice(120, 121), rows.slice(121)];
    const tally = new SettlementTally(true, 'America/Argentina/Buenos_Aires');
    for (const page of pages) {
      const t = new SettlementTally(true, 'America/Argentina/Buenos_Aires');
      for (const r of page) t.add(r);
      tally.merge(t);
    }
    const sum = (k: 'bruto' | 'te_cobramos' | 'te_queda', day?: string) =>
      cents(
        rows
          .filter((r) => day === undefined || r.fecha_estimada.startsWith(day))
          .reduce((s, r) => s + BigInt(r[k].replace('.', '')), 0n),
      );
    expect(tally.count).toBe(500);
    expect(tally.totals()).toEqual({
      bruto: sum('bruto'),
      te_cobramos: sum('te_cobramos'),
      te_queda: sum('te_queda'),
    });
    const days = ['2026-03-01', '2026-03-02', '2026-03-03'];
    const want = days.map((fecha, k) => ({
      fecha,
      liquidaciones: [167, 167, 166][k],
      bruto: sum('bruto', fecha),
      te_cobramos: sum('te_cobramos', fecha),
      te_queda: sum('te_queda', fecha),
    }));
    expect(tally.porFecha()).toEqual(want);
    expect(porFecha(rows, 'America/Argentina/Buenos_Aires')).toEqual(want);
    // Without days asked for, none are kept.
    const plain = new SettlementTally();
    for (const r of rows) plain.add(r);
    expect(plain.porFecha()).toEqual([]);
    expect(plain.totals()).toEqual(tally.totals());
  });
});
