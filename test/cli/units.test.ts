// Unit tests of the pure parts of the write commands: flag checks of crear, the refund
// plan of devolver, the field parser and exit mapping of api, the terminal QR.
import qrcode from 'qrcode-generator';
import { describe, expect, it } from 'vitest';
import { isYes, sameAmount } from '../../src/cli/context.js';
import type { Cobro, Devolucion, Transaccion } from '../../src/api/schemas.js';
import { bodyFromFlags, shellQuote, textProblem } from '../../src/cli/commands/cobro/crear.js';
import {
  checkCommands,
  parseRefundFlags,
  planRefund,
} from '../../src/cli/commands/devolver/devolver.js';
import { exitCodeOf, parseFields } from '../../src/cli/commands/api/api.js';
import { UsageError } from '../../src/errors.js';
import { cobroPairs } from '../../src/output/cobro.js';
import { qrMatrix, renderQr } from '../../src/output/terminal-qr.js';

const NOW = Date.parse('2026-06-15T12:00:00-03:00');
const BA = 'America/Argentina/Buenos_Aires';

const cobro = (over: Partial<Cobro> = {}): Cobro => ({
  id: 42,
  codigo: 'ABC123',
  concepto: 'Pedido',
  monto: '1500.00',
  monto_cobrado: '1500.00',
  estado: 'PAGADA',
  url: 'https://pagar.example/ABC123',
  cvu: null,
  qr: null,
  referencia: null,
  medios: { tarjeta: true, qr: true, transferencia: true },
  vencimiento: '2026-06-22 12:00:00',
  success_url: null,
  error_url: null,
  created_at: '2026-06-15 12:00:00',
  updated_at: '2026-06-15 12:00:00',
  ...over,
});
const dev = (monto: string, cobro_id = 42): Devolucion => ({
  id: 1,
  cobro_id,
  monto,
  tipo: 'parcial',
  estado: 'DEVUELTA_PARCIALMENTE',
  created_at: '2026-06-15 12:00:00',
});
const tx = (over: Partial<Transaccion> = {}): Transaccion => ({
  id: 7,
  cobro_id: 42,
  medio: 'qr',
  monto: '1500.00',
  te_cobramos: '10.00',
  te_queda: '1490.00',
  estado: 'ACREDITADO',
  codigo: 'OP1',
  fecha: '2026-06-15 12:00:00',
  acreditacion: '2026-06-15 12:00:00',
  ...over,
});

describe('cobro crear flags', () => {
  const flags = (o: Record<string, unknown>) => bodyFromFlags(o, NOW, BA);

  it('builds the body with every flag, the amount normalised and only disabled medios sent', () => {
    expect(
      flags({
        concepto: 'Pedido 1042',
        monto: '1500.5',
        vencimiento: '+3d',
        referencia: 'ped-1042',
        successUrl: 'https://tienda.example/ok',
        errorUrl: 'https://tienda.example/error',
        tarjeta: false,
        qr: true,
        transferencia: true,
      }),
    ).toEqual({
      concepto: 'Pedido 1042',
      monto: '1500.50',
      vencimiento: '2026-06-18T12:00:00-03:00',
      referencia: 'ped-1042',
      success_url: 'https://tienda.example/ok',
      error_url: 'https://tienda.example/error',
      tarjeta: false,
    });
  });

  it.each([
    [{ monto: '1e3' }, /--monto/],
    [{ monto: '-5' }, /negativo/],
    [{ monto: '1.234' }, /más de dos decimales/],
    [{ monto: '1,5' }, /coma/],
    [{ monto: '' }, /vacío/],
    [{ monto: '0' }, /cero/],
    [{ successUrl: 'http://tienda.example/ok' }, /--success-url .* no es una URL https/],
    [{ errorUrl: 'javascript:alert(1)' }, /--error-url/],
    [{ vencimiento: '2020-01-01' }, /--vencimiento .*ya pasó/],
    [{ vencimiento: 'pronto' }, /--vencimiento .*no es una fecha/],
    [{ tarjeta: false, qr: false, transferencia: false }, /ningún medio de pago/],
    [{ concepto: '   ' }, /--concepto está vacío/],
    [{ concepto: 'x'.repeat(201) }, /201 caracteres \(máximo 200\)/],
    [{ concepto: 'a\u001b[31mb' }, /caracteres de control/],
    [{ referencia: 'r'.repeat(101) }, /--referencia tiene 101/],
    [{ referencia: 'a\tb' }, /control/],
  ])('refuses %j', (o, message) => {
    expect(() => flags(o)).toThrow(UsageError);
    expect(() => flags(o)).toThrow(message);
  });

  it('quotes suggested commands for the shell', () => {
    expect(shellQuote('pedido-1042')).toBe('pedido-1042');
    expect(shellQuote('Pedido 1042')).toBe(`'Pedido 1042'`);
    expect(shellQuote(`it's $HOME`)).toBe(`'it'\\''s $HOME'`);
  });

  it('counts characters, not UTF-16 units', () => {
    expect(textProblem('ñ'.repeat(200), 200)).toBeUndefined();
    expect(textProblem('😀'.repeat(200), 200)).toBeUndefined();
    expect(textProblem('😀'.repeat(201), 200)).toMatch(/201/);
  });
});

describe('answers at a prompt', () => {
  it.each(['s', 'S', 'si', 'Sí', 'SÍ', 'y', 'yes', ' s '])('%j confirms', (a) =>
    expect(isYes(a)).toBe(true),
  );
  it.each(['', 'n', 'no', 'sisi', 'ok', 'claro'])('%j declines', (a) =>
    expect(isYes(a)).toBe(false),
  );
  it('a typed amount is the same in any spelling the prompts read, and nothing else is', () => {
    for (const t of ['4', '4.0', '4.00', ' 4.00 ', '4,00', '4,0', '$4', '$ 4,00'])
      expect(sameAmount(t, '4.00')).toBe(true);
    for (const t of ['4.01', '40', '4,01', '4,001', '0', '', 'cuatro'])
      expect(sameAmount(t, '4.00')).toBe(false);
    for (const t of ['1.500,50', '1500,50', '1500.50']) expect(sameAmount(t, '1500.50')).toBe(true);
    expect(sameAmount('1.500.000', '1500000.00')).toBe(true);
    // 1.500 could be 1500.00 or 1.50: it confirms neither.
    expect(sameAmount('1.500', '1500.00')).toBe(false);
    expect(sameAmount('1.500', '1.50')).toBe(false);
  });
});

describe('devolver', () => {
  it('parses --monto | --total and --transaccion', () => {
    expect(parseRefundFlags(['42'], { monto: '500' })).toEqual({
      ref: { kind: 'id', id: 42 },
      amount: 50000n,
      total: false,
      transaccion: undefined,
    });
    expect(parseRefundFlags(['42'], { total: true, transaccion: '7' })).toEqual({
      ref: { kind: 'id', id: 42 },
      amount: undefined,
      total: true,
      transaccion: 7,
    });
    expect(() => parseRefundFlags(['42'], {})).toThrow(/--monto <monto> o --total/);
    expect(() => parseRefundFlags(['42'], { monto: '1', total: true })).toThrow(/no los dos/);
    expect(() => parseRefundFlags(['42'], { monto: '1.234' })).toThrow(
      /--monto: .*más de dos decimales/,
    );
    expect(() => parseRefundFlags(['x'], { total: true })).toThrow(UsageError);
    // The code on the payer's receipt, in any case, or the merchant's exact reference.
    expect(parseRefundFlags(['k7qm3xw9pa'], { total: true }).ref).toEqual({
      kind: 'codigo',
      codigo: 'K7QM3XW9PA',
    });
    expect(parseRefundFlags([], { total: true, referencia: 'pedido 7' }).ref).toEqual({
      kind: 'referencia',
      referencia: 'pedido 7',
    });
    expect(() => parseRefundFlags(['42'], { total: true, referencia: 'pedido 7' })).toThrow(
      /de una sola forma/,
    );
    expect(() => parseRefundFlags([], { total: true })).toThrow(/falta el cobro/);
    expect(() => parseRefundFlags(['K7QM3XW9P'], { total: true })).toThrow(/ni un código de cobro/);
    expect(() => parseRefundFlags(['42'], { total: true, transaccion: '-1' })).toThrow(
      /--transaccion/,
    );
  });

  it('computes what is left exactly from the refunds of this cobro only', () => {
    const c = cobro({ monto_cobrado: '1000.10', estado: 'DEVUELTA_PARCIALMENTE' });
    const refunds = [dev('0.10'), dev('0.20'), dev('999.00', 43)];
    const plan = planRefund({ ref: { kind: 'id', id: 42 }, total: true }, c, refunds);
    expect(plan).toEqual({
      cobrado: 100010n,
      refunded: 30n,
      refunds: 2,
      left: 99980n,
      amount: 99980n,
    });
    expect(
      planRefund({ ref: { kind: 'id', id: 42 }, total: false, amount: 99980n }, c, refunds).amount,
    ).toBe(99980n);
    expect(() =>
      planRefund({ ref: { kind: 'id', id: 42 }, total: false, amount: 99981n }, c, refunds),
    ).toThrow(/supera lo que queda por devolver del cobro 42: 999.80/);
  });

  it.each(['PENDIENTE', 'EN_PROCESO', 'CANCELADO', 'DEVUELTA'] as const)(
    'refuses a cobro in %s',
    (estado) => {
      expect(() =>
        planRefund({ ref: { kind: 'id', id: 42 }, total: true }, cobro({ estado }), []),
      ).toThrow(new RegExp(`está ${estado}.*no admite devoluciones`));
    },
  );

  it('checks the transaction belongs to the cobro, is credited and covers the amount', () => {
    const c = cobro();
    expect(
      planRefund(
        { ref: { kind: 'id', id: 42 }, total: false, amount: 100n, transaccion: 7 },
        c,
        [],
        tx(),
      ).amount,
    ).toBe(100n);
    expect(() =>
      planRefund(
        { ref: { kind: 'id', id: 42 }, total: false, amount: 100n },
        c,
        [],
        tx({ cobro_id: 43 }),
      ),
    ).toThrow(/es del cobro 43, no del 42/);
    expect(() =>
      planRefund(
        { ref: { kind: 'id', id: 42 }, total: false, amount: 100n },
        c,
        [],
        tx({ estado: 'RECHAZADO' }),
      ),
    ).toThrow(/RECHAZADO/);
    expect(() =>
      planRefund(
        { ref: { kind: 'id', id: 42 }, total: false, amount: 100_000n },
        c,
        [],
        tx({ monto: '500.00' }),
      ),
    ).toThrow(/supera el monto de la transacción 7/);
  });

  it('names the exact commands to check an unknown outcome', () => {
    expect(checkCommands(42)).toBe(`svc devoluciones listar --cobro 42  o  svc cobro ver 42`);
  });
});

describe('api', () => {
  it('parses k=v as strings and k:=json as raw JSON', () => {
    expect(
      parseFields([
        'concepto=Pedido = 1',
        'monto=10.00',
        'tarjeta:=false',
        'transaccion_id:=7',
        'x:=null',
        'o:={"a":[1]}',
      ]),
    ).toEqual({
      concepto: 'Pedido = 1',
      monto: '10.00',
      tarjeta: false,
      transaccion_id: 7,
      x: null,
      o: { a: [1] },
    });
    expect(() => parseFields(['sinigual'])).toThrow(/clave=valor/);
    expect(() => parseFields(['n:=nope'])).toThrow(/no es JSON/);
  });

  it('maps statuses to the exit codes of main', () => {
    expect(exitCodeOf(200, {})).toBe(0);
    expect(exitCodeOf(201, {})).toBe(0);
    expect(exitCodeOf(400, { error: 'create_failed' })).toBe(1);
    expect(exitCodeOf(401, { error: 'unauthorized' })).toBe(3);
    expect(exitCodeOf(403, { error: 'comercio_no_listo' })).toBe(4);
    expect(exitCodeOf(403, { error: 'other' })).toBe(1);
    expect(exitCodeOf(404, { error: 'not_found' })).toBe(5);
    expect(exitCodeOf(500, 'x')).toBe(1);
  });
});

describe('output', () => {
  it('puts the payer link first', () => {
    const pairs = cobroPairs(cobro({ referencia: 'r1' }), { short: true });
    expect(pairs.map(([k]) => k)).toEqual([
      'url',
      'id',
      'codigo',
      'estado',
      'monto',
      'vencimiento',
      'referencia',
    ]);
    expect(cobroPairs(cobro())[0]).toEqual(['url', 'https://pagar.example/ABC123']);
    expect(cobroPairs(cobro()).find(([k]) => k === 'qr')?.[1]).toBe('(todavía no)');
  });

  it('draws the QR modules faithfully with half blocks', () => {
    const payload = 'SVCQR1|ABC123|1500.00';
    const lines = renderQr(payload, { color: false });
    const m = qrMatrix(payload);
    expect(lines).toHaveLength(Math.ceil(m.length / 2));
    // decode the drawing back into modules (blocks are light modules) and compare with the library
    const qr = qrcode(0, 'M');
    qr.addData(payload, 'Byte');
    qr.make();
    const n = qr.getModuleCount();
    for (let r = 0; r < n; r++) {
      for (let c = 0; c < n; c++) {
        const row = r + 2;
        const ch = [...lines[Math.floor(row / 2)]!][c + 2]!;
        const lightTop = ch === '█' || ch === '▀';
        const lightBottom = ch === '█' || ch === '▄';
        const light = row % 2 === 0 ? lightTop : lightBottom;
        expect(light, `module ${r},${c}`).toBe(!qr.isDark(r, c));
      }
    }
    // with colour every cell is an upper half block between SGR codes
    const colored = renderQr(payload, { color: true });
    expect(colored[0]).toMatch(/^\u001b\[97;107m▀+\u001b\[0m$/);
  });
});
