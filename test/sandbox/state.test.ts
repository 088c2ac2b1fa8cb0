// Unit tests of the pure parts: the state machine, the refund rules, the fee table.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ESTADOS_COBRO, type EstadoCobro } from '../../src/api/enums.js';
import * as state from '../../src/sandbox/state.js';
import { FEES, allowedMedios, cargos, split } from '../../src/sandbox/fees.js';
import { createClock, parseIsoWithOffset } from '../../src/sandbox/time.js';
import { WALL_CLOCK } from '../../src/domain/dates.js';

const others = (allowed: readonly EstadoCobro[]) =>
  ESTADOS_COBRO.filter((e) => !allowed.includes(e));

describe('state machine', () => {
  it('creation is PENDIENTE with payment.created', () => {
    expect(state.created()).toEqual({ estado: 'PENDIENTE', event: 'payment.created' });
  });

  it('start: PENDIENTE -> EN_PROCESO (payment.pending); refused elsewhere', () => {
    expect(state.start('PENDIENTE')).toEqual({ estado: 'EN_PROCESO', event: 'payment.pending' });
    for (const e of others(['PENDIENTE']))
      expect(() => state.start(e)).toThrow(state.TransitionError);
  });

  it('pay in full -> PAGADA (payment.approved), in part -> PAGADA_PARCIALMENTE (payment.partially_paid)', () => {
    for (const from of ['PENDIENTE', 'EN_PROCESO', 'PAGADA_PARCIALMENTE'] as const) {
      expect(state.pay({ estado: from, monto: 1000n, cobrado: 0n, amount: 1000n })).toMatchObject({
        estado: 'PAGADA',
        event: 'payment.approved',
        cobrado: 1000n,
      });
      expect(state.pay({ estado: from, monto: 1000n, cobrado: 0n, amount: 1n })).toMatchObject({
        estado: 'PAGADA_PARCIALMENTE',
        event: 'payment.partially_paid',
      });
    }
    expect(
      state.pay({ estado: 'PAGADA_PARCIALMENTE', monto: 1000n, cobrado: 600n, amount: 400n }),
    ).toMatchObject({ estado: 'PAGADA', cobrado: 1000n });
    for (const e of others(state.PAYABLE))
      expect(() => state.pay({ estado: e, monto: 1000n, cobrado: 0n, amount: 1n })).toThrow(
        state.TransitionError,
      );
  });

  it('paying more than what is left is refused', () => {
    expect(() =>
      state.pay({ estado: 'PAGADA_PARCIALMENTE', monto: 1000n, cobrado: 600n, amount: 401n }),
    ).toThrow(/es más de lo que falta pagar \(4\.00\)/);
  });

  it('reject and expire: PENDIENTE/EN_PROCESO -> CANCELADO (payment.rejected)', () => {
    for (const from of state.OPEN) {
      expect(state.reject(from)).toEqual({ estado: 'CANCELADO', event: 'payment.rejected' });
      expect(state.expire(from)).toEqual({ estado: 'CANCELADO', event: 'payment.rejected' });
    }
    for (const e of others(state.OPEN)) {
      expect(() => state.reject(e)).toThrow(state.TransitionError);
      expect(() => state.expire(e)).toThrow(state.TransitionError);
    }
  });

  it('isExpired only for open requests past their expiry', () => {
    expect(state.isExpired('PENDIENTE', 1000, 1000)).toBe(true);
    expect(state.isExpired('EN_PROCESO', 1000, 999)).toBe(false);
    expect(state.isExpired('PAGADA', 1000, 5000)).toBe(false);
    expect(state.isExpired('PENDIENTE', null, 5000)).toBe(false);
  });

  it('refund: allowed states, DEVUELTA when nothing is left, else DEVUELTA_PARCIALMENTE', () => {
    for (const from of state.REFUNDABLE) {
      expect(
        state.refund({ estado: from, cobrado: 1000n, devuelto: 0n, amount: 1000n }),
      ).toMatchObject({
        estado: 'DEVUELTA',
        event: 'payment.refunded',
        tipo: 'total',
      });
      expect(
        state.refund({ estado: from, cobrado: 1000n, devuelto: 0n, amount: 999n }),
      ).toMatchObject({
        estado: 'DEVUELTA_PARCIALMENTE',
        event: 'payment.partially_refunded',
        tipo: 'parcial',
        devuelto: 999n,
      });
    }
    for (const e of others(state.REFUNDABLE))
      expect(() => state.refund({ estado: e, cobrado: 1000n, devuelto: 0n, amount: 1n })).toThrow(
        /no admite devolución/,
      );
  });

  it('refund never exceeds collected minus refunded, nor what is left of the transaction', () => {
    expect(() =>
      state.refund({
        estado: 'DEVUELTA_PARCIALMENTE',
        cobrado: 1000n,
        devuelto: 900n,
        amount: 101n,
      }),
    ).toThrow(/queda por devolver \(1\.00\)/);
    const tx = { monto: 300n, devuelto: 200n, estado: 'ACREDITADO', sameCobro: true };
    expect(() =>
      state.refund({
        estado: 'PAGADA',
        cobrado: 1000n,
        devuelto: 0n,
        amount: 101n,
        transaccion: tx,
      }),
    ).toThrow(/queda de la transacción/);
    expect(
      state.refund({
        estado: 'PAGADA',
        cobrado: 1000n,
        devuelto: 0n,
        amount: 100n,
        transaccion: tx,
      }).estado,
    ).toBe('DEVUELTA_PARCIALMENTE');
    expect(() =>
      state.refund({
        estado: 'PAGADA',
        cobrado: 1000n,
        devuelto: 0n,
        amount: 1n,
        transaccion: { ...tx, sameCobro: false },
      }),
    ).toThrow(/no es de este cobro/);
    expect(() =>
      state.refund({
        estado: 'PAGADA',
        cobrado: 1000n,
        devuelto: 0n,
        amount: 1n,
        transaccion: { ...tx, estado: 'RECHAZADO' },
      }),
    ).toThrow(/ACREDITADO/);
  });

  it('property: a sequence of refunds never refunds more than collected', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10_000_000n }),
        fc.array(fc.bigInt({ min: 1n, max: 5_000_000n }), { maxLength: 20 }),
        (cobrado, amounts) => {
          let estado: EstadoCobro = 'PAGADA';
          let devuelto = 0n;
          for (const amount of amounts) {
            try {
              const r = state.refund({ estado, cobrado, devuelto, amount });
              estado = r.estado;
              devuelto = r.devuelto;
            } catch (err) {
              if (!(err instanceof state.TransitionError)) throw err;
            }
            if (devuelto > cobrado) return false;
            if ((estado === 'DEVUELTA') !== (devuelto === cobrado)) return false;
          }
          return true;
        },
      ),
    );
  });
});

describe('fees', () => {
  it('one row per medio with four-decimal percentages', () => {
    expect(cargos().map((c) => c.medio)).toEqual([
      'transferencia',
      'qr',
      'debito',
      'credito',
      'prepaga',
    ]);
    for (const c of cargos()) expect(c.porcentaje).toMatch(/^\d+\.\d{4}$/);
    expect(Object.keys(cargos()[0]!)).toEqual(['medio', 'label', 'porcentaje']);
  });

  it('te_cobramos is monto × porcentaje / 100 rounded half-up; te_queda the rest', () => {
    // 4.3900 % of 0.50 = 0.02195 -> 0.02; of 1.25 = 0.054875 -> 0.05; of 1500.00 = 65.85
    expect(split(50n, 'credito')).toEqual({ te_cobramos: '0.02', te_queda: '0.48' });
    expect(split(125n, 'credito')).toEqual({ te_cobramos: '0.05', te_queda: '1.20' });
    expect(split(150000n, 'credito')).toEqual({ te_cobramos: '65.85', te_queda: '1434.15' });
    // 0.8000 % of 0.625 cents-boundary: 62.50 -> 0.50; of 0.63 -> 0.005 -> 0.01 (half-up)
    expect(split(63n, 'transferencia')).toEqual({ te_cobramos: '0.01', te_queda: '0.62' });
  });

  it('property: te_cobramos + te_queda = monto, exactly', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 99_999_999_999n }),
        fc.constantFrom(...FEES.map((f) => f.medio)),
        (cents, medio) => {
          const { te_cobramos, te_queda } = split(cents, medio);
          const toCents = (s: string) => BigInt(s.replace('.', ''));
          return toCents(te_cobramos) + toCents(te_queda) === cents;
        },
      ),
    );
  });

  it('tarjeta allows debito, credito and prepaga', () => {
    expect(allowedMedios({ tarjeta: true, qr: false, transferencia: false })).toEqual([
      'debito',
      'credito',
      'prepaga',
    ]);
    expect(allowedMedios({ tarjeta: false, qr: true, transferencia: true })).toEqual([
      'transferencia',
      'qr',
    ]);
  });
});

describe('time', () => {
  it('local date-time in the zone', () => {
    const ms = Date.UTC(2030, 0, 31, 12, 0, 5);
    expect(createClock('America/Argentina/Buenos_Aires').local(ms)).toBe('2030-01-31 09:00:05');
    expect(createClock('UTC').local(ms)).toBe('2030-01-31 12:00:05');
    expect(() => createClock('Nowhere/Land')).toThrow(/zona horaria/);
  });

  it('local date-times are Intl’s own, across every change of offset since 1890', () => {
    // The clock reads Intl once per quarter hour and moves the offset itself within it.
    for (const tz of [
      'America/Argentina/Buenos_Aires',
      'Europe/Madrid',
      'America/New_York',
      'Asia/Kathmandu',
      'Australia/Lord_Howe',
    ]) {
      const clock = createClock(tz);
      const intl = new Intl.DateTimeFormat('en-US', { timeZone: tz, ...WALL_CLOCK });
      const wall = (ms: number) => {
        const p: Record<string, string> = {};
        for (const part of intl.formatToParts(ms)) p[part.type] = part.value;
        return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
      };
      const wrong: string[] = [];
      // Steps of 9 d 0 h 3 m 11 s: every time of day over the years, every season, 1890 to 2050.
      for (let ms = Date.UTC(1890, 0, 1); ms < Date.UTC(2050, 0, 1); ms += 777_791_000) {
        if (clock.local(ms) !== wall(ms)) wrong.push(`${tz} ${new Date(ms).toISOString()}`);
        // And the second either side of a quarter hour.
        const q = Math.floor(ms / 900_000) * 900_000;
        for (const t of [q - 1000, q])
          if (clock.local(t) !== wall(t)) wrong.push(`${tz} ${new Date(t).toISOString()}`);
      }
      expect(wrong.slice(0, 5)).toEqual([]);
    }
  });

  it('ISO 8601 with offset only', () => {
    expect(parseIsoWithOffset('2030-01-31T23:59:00-03:00')).toBe(Date.UTC(2030, 1, 1, 2, 59));
    expect(parseIsoWithOffset('2030-01-31T23:59:00Z')).toBe(Date.UTC(2030, 0, 31, 23, 59));
    expect(parseIsoWithOffset('2030-01-31T23:59:00.123+0000')).toBe(
      Date.UTC(2030, 0, 31, 23, 59, 0, 123),
    );
    for (const bad of [
      '2030-01-31T23:59:00',
      '2030-01-31',
      '2030-02-30T10:00:00Z',
      '31/01/2030',
      '2030-01-31 23:59:00-03:00',
      'mañana',
    ]) {
      expect(parseIsoWithOffset(bad)).toBeUndefined();
    }
  });
});
