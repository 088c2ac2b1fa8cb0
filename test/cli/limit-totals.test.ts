// --limit cuts rows, never a total: every list is newest first and --limit keeps the
// newest n, in every format (table on a terminal, piped rows, --csv, --json), with
// --cobro and the service's own filters; the totals of `liquidaciones` and each day's
// sums of `--por-fecha` are of the whole filtered set, with "mostrando n de m" saying
// what was cut. Settlements on several days: two on the newest date, so a day's sum
// taken from the first n settlements shows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cobro, Devolucion, Liquidacion, Transaccion } from '../../src/api/schemas.js';
import { svc } from '../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';

type Format = 'json' | 'csv' | 'piped' | 'table';
const FORMATS: Format[] = ['json', 'csv', 'piped', 'table'];
const cents = (s: string) => BigInt(s.replace('.', ''));
const sum = (xs: string[]) => {
  const c = xs.reduce((s, x) => s + cents(x), 0n);
  return `${c / 100n}.${String(c % 100n).padStart(2, '0')}`;
};

let sb: Sandbox;
const cobros: Cobro[] = [];

/** Runs a list in one format; returns the first column of each row shown (ids, or dates with --por-fecha). */
async function rowsOf(
  args: string[],
  format: Format,
): Promise<{ keys: string[]; stderr: string; stdout: string }> {
  const extra = format === 'json' ? ['--json'] : format === 'csv' ? ['--csv'] : [];
  const env =
    format === 'table' ? { ...sb.env, SVC_FORCE_TTY: '1', COLUMNS: '250', SVC_PAGER: '' } : sb.env;
  const r = await svc([...args, ...extra], { env });
  expect(r.exitCode, `${args.join(' ')} (${format}): ${r.stderr}`).toBe(0);
  let keys: string[];
  if (format === 'json') {
    keys = (JSON.parse(r.stdout) as Record<string, unknown>[]).map((x) => String(x.id ?? x.fecha));
  } else {
    let lines = r.stdout.split(/\r?\n/).filter((l) => l !== '');
    if (format === 'csv' || format === 'table') lines = lines.slice(1); // the header
    // On a terminal, the totals follow the table.
    if (format === 'table') lines = lines.filter((l) => !l.startsWith('total'));
    keys = lines.map(
      (l) =>
        l.split(format === 'csv' ? ',' : format === 'piped' ? '\t' : /\s+/).filter(Boolean)[0]!,
    );
  }
  return { keys, stderr: r.stderr, stdout: r.stdout };
}

/** The totals line of `liquidaciones`: on stdout on a terminal, on stderr otherwise. */
function totalsLine(format: Format, out: { stdout: string; stderr: string }): string {
  const text = format === 'table' ? out.stdout : out.stderr;
  return text.split('\n').find((l) => l.startsWith('total')) ?? '';
}

beforeAll(async () => {
  sb = await startSandbox();
  const pay = async (monto: string, medio: string) => {
    const c = (await sb.api('POST', '/v1/cobros', { concepto: `Orden ${monto}`, monto })).body
      .data as Cobro;
    expect((await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, { medio })).status).toBe(200);
    cobros.push(c);
    return c;
  };
  // One settlement a day earlier than the other two.
  const a = await pay('100.00', 'qr');
  // A refund on the first day too, so every list spans two days.
  expect((await sb.api('POST', `/v1/cobros/${a.id}/devoluciones`, { monto: '5.00' })).status).toBe(
    201,
  );
  // Then the clock moves on to the day a's settlement arrives (the next business day, which
  // may be days later): b and c are paid a later day and settle a later business day.
  const [liq] = (await sb.api('GET', '/v1/liquidaciones')).body.data as Liquidacion[];
  const at = (local: string) => Date.parse(`${local.replace(' ', 'T')}Z`);
  const days = (at(liq!.fecha_estimada) - at(liq!.fecha_operacion)) / 86_400_000;
  expect((await sb.api('POST', '/_sandbox/reloj', { avanzar: `${days}d` })).status).toBe(200);
  const b = await pay('200.00', 'qr');
  const c = await pay('300.00', 'qr');
  expect((await sb.api('POST', `/v1/cobros/${b.id}/devoluciones`, { monto: '10.00' })).status).toBe(
    201,
  );
  expect((await sb.api('POST', `/v1/cobros/${c.id}/devoluciones`, { monto: '20.00' })).status).toBe(
    201,
  );
  expect((await sb.api('POST', `/v1/cobros/${c.id}/devoluciones`, { monto: '30.00' })).status).toBe(
    201,
  );
});
afterAll(() => sb?.stop());

describe('every list is newest first, and --limit keeps the newest n in every format', () => {
  const LISTS: { args: string[]; path: string; date: string }[] = [
    { args: ['cobro', 'listar'], path: '/v1/cobros', date: 'created_at' },
    { args: ['transacciones', 'listar'], path: '/v1/transacciones', date: 'fecha' },
    { args: ['devoluciones', 'listar'], path: '/v1/devoluciones', date: 'created_at' },
    { args: ['liquidaciones'], path: '/v1/liquidaciones', date: 'fecha_operacion' },
  ];
  for (const list of LISTS) {
    it(`${list.args.join(' ')}: newest first; --limit 2 the two newest; with --cobro, that request's newest`, async () => {
      const all = (await sb.api('GET', list.path)).body.data as ({
        id: number;
        cobro_id?: number;
      } & Record<string, string>)[];
      expect(all.length).toBeGreaterThanOrEqual(3);
      // Newest first by the id the service gave in creation order.
      const newest = [...all].sort((a, b) => b.id - a.id);
      for (const format of FORMATS) {
        const whole = await rowsOf(list.args, format);
        expect(whole.keys, format).toEqual(newest.map((x) => String(x.id)));
        const limited = await rowsOf([...list.args, '--limit', '2'], format);
        expect(limited.keys, format).toEqual(newest.slice(0, 2).map((x) => String(x.id)));
        if (format === 'json') expect(limited.stderr).toBe('');
        // A list shown without totals is read only until it has the rows shown.
        else
          expect(limited.stderr, format).toMatch(
            list.args[0] === 'liquidaciones'
              ? new RegExp(`^mostrando 2 de ${all.length}\\b`, 'm')
              : /^mostrando 2; hay más \(svc no leyó el resto de la lista\)$/m,
          );
        expect(newest[0]![list.date]! >= newest[newest.length - 1]![list.date]!).toBe(true);
        if (list.args[0] === 'cobro') continue;
        const c = cobros[2]!;
        const mine = newest.filter((x) => x.cobro_id === c.id);
        const one = await rowsOf([...list.args, '--cobro', c.codigo, '--limit', '1'], format);
        expect(one.keys, format).toEqual([String(mine[0]!.id)]);
      }
    });
  }

  it('cobro listar --estado with --limit: the newest of those the service filtered', async () => {
    for (const format of FORMATS) {
      const r = await rowsOf(
        ['cobro', 'listar', '--estado', 'DEVUELTA_PARCIALMENTE', '--limit', '1'],
        format,
      );
      expect(r.keys, format).toEqual([String(cobros[2]!.id)]);
    }
  });
});

describe('--limit never cuts a total', () => {
  it('liquidaciones --limit 1: the newest row, the totals of all three, in every format', async () => {
    const all = (await sb.api('GET', '/v1/liquidaciones')).body.data as Liquidacion[];
    const bruto = sum(all.map((l) => l.bruto));
    const queda = sum(all.map((l) => l.te_queda));
    expect(bruto).toBe('600.00');
    for (const format of FORMATS) {
      const r = await rowsOf(['liquidaciones', '--limit', '1'], format);
      expect(r.keys, format).toEqual([String(Math.max(...all.map((l) => l.id)))]);
      if (format === 'json') continue; // the rows only: no total in it
      const line = totalsLine(format, r);
      // A terminal says it in words, as `caso` does; piped, the field names a script reads.
      if (format === 'table')
        expect(line).toMatch(
          new RegExp(
            `^total: bruto ${bruto}, te cobramos \\d+\\.\\d\\d, te queda ${queda} \\(3 liquidaciones\\)$`,
          ),
        );
      else
        expect(line, format).toMatch(
          new RegExp(`^total\\tbruto ${bruto}\\t.*\\tte_queda ${queda}\\t`),
        );
      expect(line, format).toContain('(3 liquidaciones)');
      expect(r.stderr, format).toMatch(/^mostrando 1 de 3; los totales son de todas$/m);
    }
  });

  it('liquidaciones --por-fecha --limit 1: the newest date with the sum of all its settlements, in every format', async () => {
    const all = (await sb.api('GET', '/v1/liquidaciones')).body.data as Liquidacion[];
    const days = [...new Set(all.map((l) => l.fecha_estimada.slice(0, 10)))].sort();
    expect(days.length).toBeGreaterThan(1);
    const last = days[days.length - 1]!;
    const ofLast = all.filter((l) => l.fecha_estimada.startsWith(last));
    // The newest date holds more than the newest settlement: a sum of the first n shows.
    expect(ofLast.length).toBeGreaterThan(1);
    const dayBruto = sum(ofLast.map((l) => l.bruto));
    for (const format of FORMATS) {
      const r = await rowsOf(['liquidaciones', '--por-fecha', '--limit', '1'], format);
      expect(r.keys, format).toEqual([last]);
      if (format === 'json') {
        expect(JSON.parse(r.stdout)).toEqual([
          {
            fecha: last,
            liquidaciones: ofLast.length,
            bruto: dayBruto,
            te_cobramos: sum(ofLast.map((l) => l.te_cobramos)),
            te_queda: sum(ofLast.map((l) => l.te_queda)),
          },
        ]);
        continue;
      }
      const row = r.stdout.split(/\r?\n/).find((l) => l.startsWith(last))!;
      expect(
        row
          .split(format === 'csv' ? ',' : /\s+/)
          .filter(Boolean)
          .slice(1, 3),
        format,
      ).toEqual([String(ofLast.length), dayBruto]);
      expect(totalsLine(format, r), format).toMatch(/bruto 600\.00\b.*\(3 liquidaciones\)/);
      expect(r.stderr, format).toMatch(
        new RegExp(`^mostrando 1 de ${days.length} fechas; los totales son de todas$`, 'm'),
      );
    }
  });

  it('liquidaciones --cobro with --limit: the totals are of that request, whole', async () => {
    for (const format of ['piped', 'table'] as const) {
      const r = await rowsOf(
        ['liquidaciones', '--cobro', String(cobros[1]!.id), '--limit', '1'],
        format,
      );
      expect(r.keys).toHaveLength(1);
      expect(totalsLine(format, r)).toMatch(/bruto 200\.00\b.*\(1 liquidación\)/);
      // Nothing was cut: no "mostrando".
      expect(r.stderr).not.toContain('mostrando');
    }
  });

  it('caso counts every refund and settlement of the request', async () => {
    const c = cobros[2]!;
    const r = await svc(['caso', String(c.id), '--json'], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const caso = JSON.parse(r.stdout) as {
      devoluciones: Devolucion[];
      transacciones: Transaccion[];
      liquidaciones: Liquidacion[];
    };
    expect(caso.devoluciones.map((d) => d.monto).sort()).toEqual(['20.00', '30.00']);
    const text = await svc(['caso', String(c.id)], { env: sb.env });
    expect(text.stdout).toMatch(/total devuelto 50\.00; queda por devolver 250\.00/);
  });
});

describe('--desde and --hasta: whole days of the service, on every list, and totals follow them', () => {
  const LISTS: { args: string[]; path: string; date: string }[] = [
    { args: ['cobro', 'listar'], path: '/v1/cobros', date: 'created_at' },
    { args: ['transacciones', 'listar'], path: '/v1/transacciones', date: 'fecha' },
    { args: ['devoluciones', 'listar'], path: '/v1/devoluciones', date: 'created_at' },
    { args: ['liquidaciones'], path: '/v1/liquidaciones', date: 'fecha_estimada' },
    {
      args: ['liquidaciones', '--por', 'operacion'],
      path: '/v1/liquidaciones',
      date: 'fecha_operacion',
    },
  ];
  for (const list of LISTS) {
    it(`${list.args.join(' ')}: each bound keeps its days, in every format`, async () => {
      const all = (await sb.api('GET', list.path)).body.data as ({ id: number } & Record<
        string,
        string
      >)[];
      const days = [...new Set(all.map((x) => x[list.date]!.slice(0, 10)))].sort();
      // The fixture moved the sandbox's clock a day or more between its payments: two days at least.
      expect(days.length, list.path).toBeGreaterThan(1);
      const [first, last] = [days[0]!, days[days.length - 1]!];
      const ids = (keep: (day: string) => boolean) =>
        all
          .filter((x) => keep(x[list.date]!.slice(0, 10)))
          .sort((a, b) => b.id - a.id)
          .map((x) => String(x.id));
      const dmy = (day: string) => day.split('-').reverse().join('/');
      for (const format of FORMATS) {
        expect((await rowsOf([...list.args, '--desde', last], format)).keys, format).toEqual(
          ids((d) => d >= last),
        );
        expect((await rowsOf([...list.args, '--hasta', dmy(first)], format)).keys, format).toEqual(
          ids((d) => d <= first),
        );
        expect(
          (await rowsOf([...list.args, '--desde', first, '--hasta', first], format)).keys,
          format,
        ).toEqual(ids((d) => d === first));
      }
    });
  }

  it('liquidaciones --desde: the totals and each day are of the days kept, not of every settlement', async () => {
    const all = (await sb.api('GET', '/v1/liquidaciones')).body.data as Liquidacion[];
    const last = all
      .map((l) => l.fecha_estimada.slice(0, 10))
      .sort()
      .pop()!;
    const kept = all.filter((l) => l.fecha_estimada.startsWith(last));
    expect(kept.length).toBeLessThan(all.length);
    for (const format of ['piped', 'table', 'csv'] as const) {
      const r = await rowsOf(['liquidaciones', '--desde', last], format);
      expect(totalsLine(format, r), format).toContain(`bruto ${sum(kept.map((l) => l.bruto))}`);
      expect(totalsLine(format, r), format).toContain(`(${kept.length} liquidaci`);
      const days = await rowsOf(
        ['liquidaciones', '--por-fecha', '--hasta', last, '--desde', last],
        format,
      );
      expect(days.keys, format).toEqual([last]);
    }
  });

  it.each([
    [['--desde', '31/02/2026'], /^error: --desde "31\/02\/2026" no es una fecha del calendario$/m],
    [
      ['--hasta', 'pasado'],
      /^error: --hasta "pasado" no es una fecha \(hoy, ayer, mañana, 7d, -7d, \+7d, esta-semana, semana-pasada, este-mes, mes-pasado, 2026-11-01, 01\/11\/2026 o 01\/11\)$/m,
    ],
    [
      ['--desde', '2026-11-10', '--hasta', '01/11/2026'],
      /^error: --desde 2026-11-10 es posterior a --hasta 2026-11-01: no queda ningún día$/m,
    ],
  ])('%j: exit 2 with one line, before anything is read', async (flags, message) => {
    for (const args of [['cobro', 'listar'], ['liquidaciones']]) {
      const r = await svc([...args, ...flags], { env: sb.env });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe('');
    }
  });
});
