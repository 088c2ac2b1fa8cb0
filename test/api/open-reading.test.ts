// The client reads whatever the seed lets a service say: a small server of its own
// (not the sandbox, which says only what the seed shows) answers every endpoint with
// values svc does not know in every open field (states, `tipo`, `medio`), extra
// fields, and nulls where the seed allows them. Every read command exits 0 and shows
// the values (marked "(?)" in tables, bare in --json and --csv, counted in totals);
// a command that would decide from an unknown state says so and sends nothing.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svc } from '../helpers/inproc.js';

const cobro = (id: number, estado: string) => ({
  id,
  codigo: `K7QM3XW9P${id}`,
  concepto: `Pedido ${id}`,
  monto: '1500.00',
  monto_cobrado: '1500.00',
  estado,
  url: `https://pagar.example/K7QM3XW9P${id}`,
  cvu: null,
  qr: null,
  referencia: null,
  medios: { tarjeta: true, qr: true, transferencia: false, billetera: true },
  vencimiento: null,
  success_url: null,
  error_url: null,
  created_at: `2026-11-2${id} 10:00:00`,
  updated_at: `2026-11-2${id} 10:00:00`,
  disputa: { abierta: true },
});
const transaccion = {
  id: 7,
  cobro_id: 2,
  medio: 'billetera',
  monto: '1500.00',
  te_cobramos: '15.00',
  te_queda: '1485.00',
  estado: 'EN_REVISION',
  codigo: 'OP-7',
  fecha: '2026-11-22 10:00:01',
  acreditacion: '2026-11-22 10:00:01',
  red: 'nueva',
};
const devolucion = {
  id: 3,
  cobro_id: 2,
  monto: '100.00',
  tipo: 'total_con_cargo',
  estado: 'EN_DISPUTA',
  created_at: '2026-11-22 11:00:00',
  motivo: 'cliente',
};
const liquidacion = (id: number, bruto: string, estado: string) => ({
  id,
  transaccion_id: 7,
  cobro_id: 2,
  bruto,
  te_cobramos: '1.00',
  te_queda: `${Number(bruto) - 1}.00`,
  fecha_operacion: '2026-11-22 10:00:01',
  fecha_estimada: '2026-11-23 10:00:01',
  estado,
  banco: 'x',
});

const ROUTES: Record<string, unknown> = {
  'GET /v1/salud': { ok: true, name: 'otro servicio', version: 'v1', region: 'sur' },
  'GET /v1/cuenta': {
    data: { id: 1, email: 'a@b.c', nombre: 'Comercio', puede_cobrar: true, plan: 'pro' },
  },
  'GET /v1/cargos': {
    data: [
      { medio: 'billetera', label: 'Billetera', porcentaje: '1.5000', nuevo: true },
      { medio: 'qr', label: 'QR', porcentaje: '0.9900' },
    ],
  },
  'GET /v1/cobros': { data: [cobro(2, 'EN_DISPUTA'), cobro(1, 'PAGADA')], pagina: 1 },
  'GET /v1/cobros/2': { data: cobro(2, 'EN_DISPUTA') },
  'GET /v1/cobros/1': { data: cobro(1, 'PAGADA') },
  'POST /v1/cobros/1/sync': { data: cobro(1, 'EN_DISPUTA') },
  'GET /v1/transacciones': { data: [transaccion] },
  'GET /v1/transacciones/7': { data: transaccion },
  'GET /v1/devoluciones': { data: [devolucion] },
  'GET /v1/devoluciones/3': { data: devolucion },
  'GET /v1/liquidaciones': {
    data: [liquidacion(2, '300.00', 'acreditado'), liquidacion(1, '200.00', 'estimado')],
  },
};

let server: Server;
let env: Record<string, string>;
const calls: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const key = `${req.method} ${url.pathname}`;
    calls.push(`${key}${url.search}`);
    const body = ROUTES[key];
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { error: 'not_found', message: `no hay ${key}` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  env = {
    SVC_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    SVC_API_KEY: 'svc_test_otro_servicio',
  };
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const TTY = { SVC_FORCE_TTY: '1', COLUMNS: '250', SVC_PAGER: '' };

describe('every read command reads a service that says more than the seed shows', () => {
  it.each([
    [['salud'], ['otro servicio']],
    [['cuenta'], ['Comercio']],
    // 1.50 % on a terminal, 1.5000 piped.
    [['cargos'], ['billetera (?)', '1.50']],
    [
      ['cobro', 'listar'],
      ['EN_DISPUTA (?)', 'PAGADA'],
    ],
    [['cobro', 'ver', '2'], ['EN_DISPUTA (?)']],
    [
      ['transacciones', 'listar'],
      ['billetera (?)', 'EN_REVISION (?)'],
    ],
    [
      ['transacciones', 'ver', '7'],
      ['billetera (?)', 'EN_REVISION (?)', 'nueva'],
    ],
    [
      ['devoluciones', 'listar'],
      ['total_con_cargo (?)', 'EN_DISPUTA (?)'],
    ],
    [
      ['devoluciones', 'ver', '3'],
      ['total_con_cargo (?)', 'EN_DISPUTA (?)', 'cliente'],
    ],
    [['liquidaciones'], ['acreditado (?)', 'estimado', 'bruto 500.00', '(2 liquidaciones)']],
    [
      ['liquidaciones', '--por-fecha'],
      ['2026-11-23', '500.00'],
    ],
    [
      ['caso', '2'],
      ['EN_DISPUTA (?)', 'billetera (?)', 'total_con_cargo (?)', 'acreditado (?)'],
    ],
  ])(
    '%j: exit 0 on a terminal and piped, the values shown (marked) — never exit 6',
    async (args, shownValues) => {
      for (const extra of [TTY, {}]) {
        const r = await svc(args, { env: { ...env, ...extra } });
        expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0);
        for (const v of shownValues) expect(`${r.stdout}${r.stderr}`, args.join(' ')).toContain(v);
      }
    },
  );

  it.each([
    [
      ['cobro', 'listar'],
      ['EN_DISPUTA', 'disputa'],
    ],
    [
      ['transacciones', 'listar'],
      ['billetera', 'EN_REVISION', 'red'],
    ],
    [
      ['devoluciones', 'listar'],
      ['total_con_cargo', 'motivo'],
    ],
    [['liquidaciones'], ['acreditado', 'banco']],
  ])('%j --json and --csv keep the values bare, extra fields included', async (args, values) => {
    const json = await svc([...args, '--json'], { env });
    expect(json.exitCode, json.stderr).toBe(0);
    for (const v of values) expect(json.stdout).toContain(`"${v}"`);
    expect(json.stdout).not.toContain('(?)');
    const csv = await svc([...args, '--csv'], { env });
    expect(csv.exitCode, csv.stderr).toBe(0);
    for (const v of values) expect(csv.stdout).toContain(v);
    expect(csv.stdout).not.toContain('(?)');
  });

  it('--estado and --medio take a value svc does not know as typed, for the service to filter by', async () => {
    calls.length = 0;
    const r = await svc(['cobro', 'listar', '--estado', 'EN_DISPUTA', '--json'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(calls).toContain('GET /v1/cobros?estado=EN_DISPUTA');
    expect(r.stderr).toMatch(/aviso: --estado EN_DISPUTA no es un valor que svc conozca/);
    const t = await svc(
      ['transacciones', 'listar', '--medio', 'billetera', '--estado', 'acreditado'],
      { env },
    );
    expect(t.exitCode, t.stderr).toBe(0);
    expect(calls).toContain('GET /v1/transacciones?medio=billetera&estado=ACREDITADO');
    // A near miss of a known value is still a typo.
    const typo = await svc(['cobro', 'listar', '--estado', 'PAGDA'], { env });
    expect(typo.exitCode).toBe(2);
    expect(typo.stderr).toContain('¿quisiste decir PAGADA?');
  });

  it('devolver on a request in a state svc does not know says so and sends nothing', async () => {
    for (const extra of [['--dry-run'], ['--yes']]) {
      calls.length = 0;
      const r = await svc(['devolver', '2', '--monto', '10.00', ...extra], { env });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toMatch(
        /^error: el cobro 2 está "EN_DISPUTA", un estado que svc no conoce: no sabe si admite devoluciones y no envía nada/m,
      );
      expect(calls.filter((c) => c.startsWith('POST'))).toEqual([]);
    }
  });

  it('sync shows a new state svc does not know, and says so', async () => {
    const r = await svc(['sync', '1', '--yes'], { env: { ...env, ...TTY } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('EN_DISPUTA (?)');
    expect(r.stderr).toMatch(/aviso: EN_DISPUTA es un estado que svc no conoce/);
  });

  it('webhook conciliar names no event for a state svc does not know', async () => {
    // No journal here: --anteriores judges every request as never told.
    const r = await svc(['webhook', 'conciliar', '--json', '--anteriores'], { env });
    expect(r.exitCode).not.toBe(6);
    // One JSON object per line.
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { cobro_id: number; arreglo: string });
    expect(out.find((d) => d.cobro_id === 2)?.arreglo).toMatch(
      /^ninguno: EN_DISPUTA es un estado que svc no conoce/,
    );
  });
});
