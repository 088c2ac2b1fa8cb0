// Scenarios: `svc sandbox --escenario FILE` starts with exactly the state the file
// describes, built through the sandbox's own API (so transactions, fees, states and
// events are what real calls give); `svc sandbox escenario exportar` writes a running
// sandbox's state in that form and starting from the export gives the same lists;
// a bad file or a refused step stops the start naming the path, exit 2. `svc sandbox`
// runs through main() in this process, and as the built binary for its log lines.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { BIN, ROOT, tempDir } from '../../helpers/cli.js';
import { svc } from '../../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../../helpers/sandbox.js';

const dir = tempDir('svc-escenario-');
const write = (name: string, value: unknown) => {
  const file = join(dir, name);
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
};
const scenario = {
  cobros: [
    { concepto: 'Pagado', monto: '1500.00', referencia: 'p-1', pagos: [{ medio: 'qr' }] },
    {
      concepto: 'Parcial y devuelto',
      monto: '1000.00',
      pagos: [
        { medio: 'debito', monto: '400.00' },
        { medio: 'credito', monto: '100.00' },
      ],
      devoluciones: [{ monto: '50.00', transaccion: 1 }],
    },
    { concepto: 'Rechazado', monto: '20.00', rechazar: true },
    { concepto: 'Abierto', monto: '40.00', vencimiento: '+3d', tarjeta: false },
  ],
};

/**
 * The lists of a sandbox without what differs between two runs (codes, links, times;
 * the expiry of a request already closed, which a scenario does not carry).
 */
async function lists(sb: Sandbox) {
  const open = (x: Record<string, unknown>) =>
    x.estado === 'PENDIENTE' || x.estado === 'EN_PROCESO';
  const strip = (x: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(x).filter(
        ([k]) =>
          ![
            'codigo',
            'url',
            'cvu',
            'qr',
            'created_at',
            'updated_at',
            'fecha',
            'acreditacion',
            'fecha_operacion',
            'fecha_estimada',
          ].includes(k) &&
          (k !== 'vencimiento' || open(x)),
      ),
    );
  const get = async (p: string) =>
    ((await sb.api('GET', p)).body.data as Record<string, unknown>[]).map(strip);
  return {
    cobros: await get('/v1/cobros'),
    transacciones: await get('/v1/transacciones'),
    devoluciones: await get('/v1/devoluciones'),
    liquidaciones: await get('/v1/liquidaciones'),
  };
}

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ argv: ['--escenario', write('escenario.json', scenario)] });
});
afterAll(() => sb?.stop());

describe('svc sandbox --escenario', () => {
  it('starts with exactly those requests, transactions, refunds and events', async () => {
    const cobros = (await sb.api('GET', '/v1/cobros')).body.data as {
      id: number;
      estado: string;
      monto_cobrado: string;
      medios: { tarjeta: boolean };
    }[];
    expect(cobros.map((c) => [c.id, c.estado, c.monto_cobrado])).toEqual([
      [4, 'PENDIENTE', '0.00'],
      [3, 'CANCELADO', '0.00'],
      [2, 'DEVUELTA_PARCIALMENTE', '500.00'],
      [1, 'PAGADA', '1500.00'],
    ]);
    expect(cobros[0]!.medios.tarjeta).toBe(false);
    const txs = (await sb.api('GET', '/v1/transacciones')).body.data as {
      cobro_id: number;
      medio: string;
      monto: string;
      estado: string;
    }[];
    expect(txs.map((t) => [t.cobro_id, t.medio, t.monto, t.estado]).reverse()).toEqual([
      [1, 'qr', '1500.00', 'ACREDITADO'],
      [2, 'debito', '400.00', 'ACREDITADO'],
      [2, 'credito', '100.00', 'ACREDITADO'],
      [3, 'transferencia', '20.00', 'RECHAZADO'],
    ]);
    const refunds = (await sb.api('GET', '/v1/devoluciones')).body.data;
    expect(refunds).toMatchObject([{ cobro_id: 2, monto: '50.00', tipo: 'parcial' }]);
    const events = (
      (await sb.api('GET', '/_sandbox/eventos')).body.data as {
        body: { event: string; cobro_id: number };
      }[]
    ).map((e) => [e.body.cobro_id, e.body.event]);
    expect(events).toEqual([
      [1, 'payment.created'],
      [1, 'payment.approved'],
      [2, 'payment.created'],
      [2, 'payment.partially_paid'],
      [2, 'payment.partially_paid'],
      [2, 'payment.partially_refunded'],
      [3, 'payment.created'],
      [3, 'payment.rejected'],
      [4, 'payment.created'],
    ]);
  });

  it('escenario exportar, then a sandbox started from the export: the same lists', async () => {
    const exported = await svc(['sandbox', 'escenario', 'exportar'], { env: sb.env });
    expect(exported.exitCode, exported.stderr).toBe(0);
    const again = await startSandbox({
      argv: ['--escenario', write('exportado.json', exported.stdout)],
    });
    try {
      expect(await lists(again)).toEqual(await lists(sb));
    } finally {
      await again.stop();
    }
  });

  it("export, restart, import: the same `svc cobro listar`, ids and codes included, and the live rehearsal merchant's requests too", async () => {
    const live = { ...sb.env, SVC_API_KEY: sb.api_key_live! };
    // Ids interleaved between the two merchants: 5 rehearsal, 6 test, 7 rehearsal.
    for (const [env, args] of [
      [
        live,
        [
          '--live',
          '--yes',
          'cobro',
          'crear',
          '--concepto',
          'Ensayo abierto',
          '--monto',
          '70.00',
          '--referencia',
          'e-1',
        ],
      ],
      [sb.env, ['cobro', 'crear', '--concepto', 'Test pagado', '--monto', '15.00']],
      [
        live,
        ['--live', '--yes', 'cobro', 'crear', '--concepto', 'Ensayo pagado', '--monto', '90.00'],
      ],
      [sb.env, ['sandbox', 'pagar', '6']],
      [live, ['--live', 'sandbox', 'pagar', '7', '--medio', 'debito']],
      [live, ['--live', '--yes', 'devolver', '7', '--monto', '10.00']],
    ] as const) {
      const r = await svc([...args], { env });
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
    const listing = async (box: Sandbox) => [
      await svc(['cobro', 'listar'], { env: box.env }),
      await svc(['--live', 'cobro', 'listar'], {
        env: { ...box.env, SVC_API_KEY: box.api_key_live! },
      }),
      await svc(['--live', 'devoluciones', 'listar', '--json'], {
        env: { ...box.env, SVC_API_KEY: box.api_key_live! },
      }),
    ];
    const exported = await svc(['sandbox', 'escenario', 'exportar'], { env: sb.env });
    expect(exported.exitCode, exported.stderr).toBe(0);
    const before = await listing(sb);
    expect(
      before[0]!.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]),
    ).toEqual(['6', '4', '3', '2', '1']);
    expect(
      before[1]!.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]),
    ).toEqual(['7', '5']);
    const again = await startSandbox({
      argv: ['--escenario', write('con-ids.json', exported.stdout)],
    });
    try {
      const after = await listing(again);
      for (const r of after) expect(r.exitCode, r.stderr).toBe(0);
      // Piped rows whole: id, code, state, amounts, concepto, referencia, expiry.
      expect(after[0]!.stdout).toBe(before[0]!.stdout);
      expect(after[1]!.stdout).toBe(before[1]!.stdout);
      const refunds = (r: { stdout: string }) =>
        (JSON.parse(r.stdout) as { cobro_id: number; monto: string }[]).map((d) => [
          d.cobro_id,
          d.monto,
        ]);
      expect(refunds(after[2]!)).toEqual(refunds(before[2]!));
      expect(refunds(after[2]!)).toEqual([[7, '10.00']]);
    } finally {
      await again.stop();
    }
  });

  it("the scenario's own requests are not printed as log lines; requests after the banner are", async () => {
    const proc = execa(
      'node',
      [BIN, 'sandbox', '--port', '0', '--escenario', write('log.json', scenario)],
      {
        cwd: ROOT,
        env: { SVC_CONFIG_DIR: tempDir('svc-config-'), NO_COLOR: '1' },
        reject: false,
        buffer: false,
        stdin: 'ignore',
      },
    );
    let out = '';
    let err = '';
    proc.stdout!.on('data', (d) => (out += String(d)));
    const until = (what: () => boolean, label: string) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${label} not seen in 20 s:\n${err}`)),
          20_000,
        );
        const check = () => {
          if (!what()) return;
          clearTimeout(timer);
          proc.stderr!.off('data', onErr);
          resolve();
        };
        const onErr = (d: unknown) => {
          err += String(d);
          check();
        };
        proc.stderr!.on('data', onErr);
        check();
      });
    try {
      await until(() => err.includes('Ctrl-C para detener.'), 'the ready line');
      expect(err).not.toMatch(/\/v1\/|\/_sandbox\//);
      const base = /escuchando en (\S+)/.exec(out)![1]!;
      const key = /clave test \(listo\)\s+(\S+)/.exec(out)![1]!;
      expect(
        (await fetch(`${base}/v1/cobros`, { headers: { authorization: `Bearer ${key}` } })).status,
      ).toBe(200);
      await until(
        () => /GET\s+\/v1\/cobros\s+200/.test(err),
        'the log line of a request after the banner',
      );
    } finally {
      proc.kill('SIGINT');
      await proc;
    }
  });

  it.each([
    ['not JSON', '{', /--escenario .*: no es JSON válido \(línea 1, columna 2\)$/m],
    [
      'a bad medio',
      { cobros: [{ concepto: 'x', monto: '1.00', pagos: [{ medio: 'efectivo' }] }] },
      /cobros\[0\]\.pagos\[0\]\.medio: no es "transferencia"/,
    ],
    [
      'a bad amount',
      {
        cobros: [
          { concepto: 'x', monto: '1.00' },
          { concepto: 'y', monto: '1.00', pagos: [{ medio: 'qr', monto: '1,5' }] },
        ],
      },
      /cobros\[1\]\.pagos\[0\]\.monto: un monto decimal/,
    ],
    // JSON.parse would keep the last "monto" without a word; the file must say one thing.
    [
      'a key written twice',
      '{"cobros": [\n  {"concepto": "x",\n   "monto": "1.00",\n   "monto": "900.00"}\n]}',
      /^error: --escenario .*: cobros\[0\]\.monto aparece dos veces \(líneas 3 y 4\)$/m,
    ],
    [
      'a key written twice on one line, deep',
      '{"cobros":[{"concepto":"x","monto":"1.00","pagos":[{"medio":"qr","medio":"debito"}]}]}',
      /: cobros\[0\]\.pagos\[0\]\.medio aparece dos veces \(línea 1\)$/m,
    ],
    [
      'the same key spelled with an escape',
      '{"cobros":[],"cobro\\u0073":[]}',
      /: cobros aparece dos veces/,
    ],
    [
      'an unknown field',
      { cobros: [{ concepto: 'x', monto: '1.00', pagado: true }] },
      /cobros\[0\]: campo desconocido: pagado/,
    ],
    // A field of the wrong type is not a missing one.
    [
      'an amount as a JSON number',
      { cobros: [{ concepto: 'x', monto: 10 }] },
      /cobros\[0\]\.monto: se esperaba string$/m,
    ],
    [
      'a concepto left out',
      { cobros: [{ monto: '1.00' }] },
      /cobros\[0\]\.concepto: falta \(string\)$/m,
    ],
    [
      'a refund of a payment that is not there',
      {
        cobros: [
          {
            concepto: 'x',
            monto: '1.00',
            pagos: [{ medio: 'qr' }],
            devoluciones: [{ monto: '1.00', transaccion: 1 }],
          },
        ],
      },
      /cobros\[0\]\.devoluciones\[0\]\.transaccion: no hay pagos\[1\]/,
    ],
    [
      'an id without its codigo',
      { cobros: [{ id: 3, concepto: 'x', monto: '1.00' }] },
      /cobros\[0\]: id y codigo van juntos/,
    ],
    [
      'ids out of order',
      {
        cobros: [
          { id: 3, codigo: 'AAAAAAAAAA', concepto: 'x', monto: '1.00' },
          { id: 2, codigo: 'BBBBBBBBBB', concepto: 'y', monto: '1.00' },
        ],
      },
      /cobros\[1\]\.id: 2 no sigue al anterior \(3\)/,
    ],
    [
      'a code the sandbox never makes',
      { cobros: [{ id: 1, codigo: 'abc', concepto: 'x', monto: '1.00' }] },
      /cobros\[0\]: el sandbox lo rechazó \(HTTP 400: codigo: diez letras y dígitos/,
    ],
    [
      'a code twice',
      {
        cobros: [
          { id: 1, codigo: 'AAAAAAAAAA', concepto: 'x', monto: '1.00' },
          { id: 2, codigo: 'AAAAAAAAAA', concepto: 'y', monto: '1.00' },
        ],
      },
      /cobros\[1\]: el sandbox lo rechazó \(HTTP 400: codigo: "AAAAAAAAAA" ya es de otro cobro/,
    ],
    [
      'a hace that is no duration',
      { cobros: [{ hace: 'ayer', concepto: 'x', monto: '1.00' }] },
      /cobros\[0\]\.hace: "ayer" no es una duración/,
    ],
    [
      'a request older than the one before it',
      {
        cobros: [
          { hace: '2d', concepto: 'x', monto: '1.00' },
          { hace: '3d', concepto: 'y', monto: '1.00' },
        ],
      },
      /cobros\[1\]\.hace: 3d es antes que el cobro anterior/,
    ],
    [
      'a step the sandbox refuses',
      {
        cobros: [
          {
            concepto: 'x',
            monto: '10.00',
            pagos: [{ medio: 'qr', monto: '5.00' }],
            devoluciones: [{ monto: '6.00' }],
          },
        ],
      },
      /cobros\[0\]\.devoluciones\[0\]: el sandbox lo rechazó \(HTTP 400/,
    ],
  ])('%s: exit 2 naming where', async (name, value, message) => {
    const r = await svc([
      'sandbox',
      '--port',
      '0',
      '--escenario',
      write(`${name.replace(/\W/g, '-')}.json`, value),
    ]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});

describe('svc sandbox --escenario with hace: a past to try date filters on', () => {
  const DAY = 86_400_000;
  /** The day of a local `YYYY-MM-DD HH:MM:SS` date, in days since the epoch (zone-free). */
  const dayOf = (local: string) => Date.parse(`${local.slice(0, 10)}T00:00:00Z`) / DAY;
  const past = {
    cobros: [
      {
        hace: '40d',
        concepto: 'Viejo',
        monto: '100.00',
        pagos: [{ medio: 'qr' }],
        devoluciones: [{ monto: '10.00' }],
      },
      { hace: '20d', concepto: 'Vencido', monto: '200.00' },
      { hace: '1d', concepto: 'Abierto', monto: '300.00', vencimiento: '+3d' },
      { concepto: 'Hoy', monto: '400.00' },
    ],
  };

  it('each request, its payments and refunds are dated that long before the start', async () => {
    const sb = await startSandbox({ argv: ['--escenario', write('pasado.json', past)] });
    try {
      const cobros = await sb.list('/v1/cobros');
      const today = dayOf((await sb.api('GET', '/_sandbox/reloj')).body.data.ahora);
      const age = (c: { created_at: string }) => today - dayOf(c.created_at);
      // A day either way: the zone's midnight may fall between two moments of one run.
      const ages = cobros.map(age).reverse();
      expect(ages[0]).toBeGreaterThanOrEqual(39);
      expect(ages[0]).toBeLessThanOrEqual(41);
      expect(ages[1]).toBeGreaterThanOrEqual(19);
      expect(ages[1]).toBeLessThanOrEqual(21);
      expect(ages[2]).toBeLessThanOrEqual(2);
      expect(ages[3]).toBeLessThanOrEqual(1);
      // The 20-day-old request expired a week after it was made, as the service does.
      expect(cobros.map((c) => c.estado).reverse()).toEqual([
        'DEVUELTA_PARCIALMENTE',
        'CANCELADO',
        'PENDIENTE',
        'PENDIENTE',
      ]);
      const [tx] = await sb.list('/v1/transacciones');
      const [dev] = await sb.list('/v1/devoluciones');
      expect(today - dayOf(tx.fecha)).toBeGreaterThanOrEqual(39);
      expect(today - dayOf(dev.created_at)).toBeGreaterThanOrEqual(39);
      // The clock is back where it was: a request made now is dated today.
      expect(age(await sb.cobro())).toBeLessThanOrEqual(1);
      // Date filters find the past.
      const since = new Date((today - 30) * DAY).toISOString().slice(0, 10);
      const r = await svc(['cobro', 'listar', '--desde', since, '--json'], { env: sb.env });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).map((c: { concepto: string }) => c.concepto)).toEqual([
        'Pedido de prueba',
        'Hoy',
        'Abierto',
        'Vencido',
      ]);
    } finally {
      await sb.stop();
    }
  });

  it('escenario exportar writes hace: a sandbox started from the export has the same past', async () => {
    const sb = await startSandbox({ argv: ['--escenario', write('pasado2.json', past)] });
    let again: Sandbox | undefined;
    try {
      const exported = await svc(['sandbox', 'escenario', 'exportar'], { env: sb.env });
      expect(exported.exitCode, exported.stderr).toBe(0);
      // Whole days ago (the export runs a few seconds after the start).
      expect(
        JSON.parse(exported.stdout).cobros.map(
          (c: { hace?: string }) => /^\d+(?=d)/.exec(c.hace ?? '')?.[0] ?? '0',
        ),
      ).toEqual(['40', '20', '1', '0']);
      again = await startSandbox({
        argv: ['--escenario', write('pasado2-exportado.json', exported.stdout)],
      });
      // Each list's dates as days before its sandbox's today, newest first.
      const ages = async (s: Sandbox) => {
        const today = dayOf((await s.api('GET', '/_sandbox/reloj')).body.data.ahora);
        const days = (xs: Record<string, string>[], field: string) =>
          xs.map((x) => today - dayOf(x[field]!));
        return {
          cobros: days(await s.list('/v1/cobros'), 'created_at'),
          estados: (await s.list('/v1/cobros')).map((c) => c.estado),
          transacciones: days(await s.list('/v1/transacciones'), 'fecha'),
          devoluciones: days(await s.list('/v1/devoluciones'), 'created_at'),
        };
      };
      expect(await ages(again)).toEqual(await ages(sb));
    } finally {
      await again?.stop();
      await sb.stop();
    }
  });
});
