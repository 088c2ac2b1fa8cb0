// svc sandbox --generar N: a year of history made by the sandbox's own handlers at past
// moments, written to the data file at once, loaded again by the next start.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectNoStack, tempDir } from '../helpers/cli.js';
import { svc } from '../helpers/inproc.js';
import { startSandbox } from '../helpers/sandbox.js';

const DAY = 86_400_000;
type Row = Record<string, any>;

describe('svc sandbox --generar', () => {
  it('makes a consistent year that date filters and caso find, and a second start loads it', async () => {
    const file = join(tempDir('svc-gen-'), 'anio.jsonl');
    const s = await startSandbox({ spawned: ['--data', file, '--generar', '400'] });
    let cobros: Row[];
    try {
      expect(s.stderr()).toMatch(/generados 400 cobros del \d{4}-\d{2}-\d{2} .* al /);
      const list = await svc(['cobro', 'listar', '--json'], { env: s.env });
      expect(list.exitCode).toBe(0);
      cobros = JSON.parse(list.stdout) as Row[];
      expect(cobros).toHaveLength(400);
      expect(new Set(cobros.map((c) => c.referencia)).size).toBe(400);
      expect(cobros.map((c) => c.referencia)).toContain('PED-0000001');
      // Spread over the year before now: the oldest is about a year old, the newest of today.
      const created = cobros.map((c) => Date.parse(c.created_at.replace(' ', 'T') + 'Z'));
      const span = Math.max(...created) - Math.min(...created);
      expect(span).toBeGreaterThan(360 * DAY);
      expect(span).toBeLessThan(366 * DAY);
      // Every fate is there.
      const estados = new Set(cobros.map((c) => c.estado));
      for (const e of [
        'PAGADA',
        'PAGADA_PARCIALMENTE',
        'CANCELADO',
        'DEVUELTA',
        'DEVUELTA_PARCIALMENTE',
      ])
        expect(estados).toContain(e);

      // Paid requests have their transactions and settlements; refunded ones their refunds.
      const txs = (await s.list('/v1/transacciones')) as Row[];
      const liqs = (await s.list('/v1/liquidaciones')) as Row[];
      const devs = (await s.list('/v1/devoluciones')) as Row[];
      const cents = (a: string) => Math.round(Number(a) * 100);
      for (const c of cobros) {
        const paid = txs.filter((t) => t.cobro_id === c.id && t.estado === 'ACREDITADO');
        expect(
          paid.reduce((n, t) => n + cents(t.monto), 0),
          `cobro ${c.id}`,
        ).toBe(cents(c.monto_cobrado));
        for (const t of paid)
          expect(
            liqs.filter((l) => l.transaccion_id === t.id),
            `transacción ${t.id}`,
          ).toHaveLength(1);
        if (c.estado.startsWith('DEVUELTA'))
          expect(
            devs.some((d) => d.cobro_id === c.id),
            `cobro ${c.id}`,
          ).toBe(true);
        if (c.estado === 'PAGADA') expect(c.monto_cobrado).toBe(c.monto);
        if (c.estado === 'PAGADA_PARCIALMENTE')
          expect(cents(c.monto_cobrado)).toBeLessThan(cents(c.monto));
      }

      // Date filters find the past: a window of last winter's months holds some, all inside it.
      const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
      const now = Date.now();
      const [desde, hasta] = [day(now - 200 * DAY), day(now - 100 * DAY)];
      const win = await svc(['cobro', 'listar', '--desde', desde, '--hasta', hasta, '--json'], {
        env: s.env,
      });
      expect(win.exitCode).toBe(0);
      const inWindow = JSON.parse(win.stdout) as Row[];
      expect(inWindow.length).toBeGreaterThan(50);
      expect(inWindow.length).toBeLessThan(400);
      expect(inWindow.map((c) => c.id)).toEqual(
        cobros
          .filter((c) => c.created_at.slice(0, 10) >= desde && c.created_at.slice(0, 10) <= hasta)
          .map((c) => c.id),
      );

      // caso finds one by its reference, with its history.
      const paidOne = cobros.find((c) => c.estado === 'DEVUELTA')!;
      const caso = await svc(['caso', paidOne.referencia, '--json'], { env: s.env });
      expect(caso.exitCode).toBe(0);
      const found = JSON.parse(caso.stdout);
      expect(JSON.stringify(found)).toContain(paidOne.codigo);
    } finally {
      await s.stop();
    }

    // A second start loads the same year (no --generar).
    const again = await startSandbox({ spawned: ['--data', file] });
    try {
      const list = await svc(['cobro', 'listar', '--json'], { env: again.env });
      expect(list.exitCode).toBe(0);
      const reloaded = JSON.parse(list.stdout) as Row[];
      expect(reloaded.map((c) => [c.id, c.estado, c.monto_cobrado, c.created_at])).toEqual(
        cobros.map((c) => [c.id, c.estado, c.monto_cobrado, c.created_at]),
      );
      // The history's notifications count as delivered: none is owed.
      expect(again.stderr()).not.toMatch(/generados/);
    } finally {
      await again.stop();
    }

    // A data file that has requests is not generated over: exit 1, the file as it was.
    const before = readFileSync(file, 'utf8');
    const r = await svc(['sandbox', '--port', '0', '--json', '--data', file, '--generar', '5']);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/--generar: .*ya tiene cobros/);
    expectNoStack(r.stderr);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('refuses a count that is not one, and --escenario beside it (exit 2)', async () => {
    const esc = join(tempDir('svc-gen-'), 'esc.json');
    writeFileSync(esc, '{"cobros":[]}');
    for (const args of [
      ['--generar', '0'],
      ['--generar', 'mil'],
      ['--generar', '3', '--escenario', esc],
    ]) {
      const r = await svc(['sandbox', '--port', '0', '--json', ...args]);
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/--generar/);
      expectNoStack(r.stderr);
    }
  });
});
