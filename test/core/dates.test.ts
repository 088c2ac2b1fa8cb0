// Unit tests of --vencimiento parsing: fixed `now` and zone, no clock involved.
import { describe, expect, it } from 'vitest';
import {
  DateError,
  compareDates,
  dateInstant,
  inZone,
  isServiceDate,
  localDate,
  localDay,
  parseDayBound,
  parseVencimiento,
  toLocalIso,
} from '../../src/domain/dates.js';

const BA = 'America/Argentina/Buenos_Aires'; // UTC-3, no DST
const NOW = Date.parse('2026-06-15T12:00:00-03:00');
const at = (text: string, timeZone = BA, now = NOW) => parseVencimiento(text, { now, timeZone });

describe('parseVencimiento', () => {
  it('keeps the instant of an ISO date-time with offset and shows it with the local offset', () => {
    expect(at('2026-12-24T18:00:00-03:00').iso).toBe('2026-12-24T18:00:00-03:00');
    expect(at('2026-12-24T21:00:00Z').iso).toBe('2026-12-24T18:00:00-03:00');
    expect(at('2026-12-24T23:30:00+0200').iso).toBe('2026-12-24T18:30:00-03:00');
    expect(at('2026-12-24T18:00-03:00').iso).toBe('2026-12-24T18:00:00-03:00');
    expect(at('2026-12-24T18:00:00.750-03:00').iso).toBe('2026-12-24T18:00:00-03:00');
  });

  it('reads a bare date as the end of that local day', () => {
    expect(at('2026-12-24').iso).toBe('2026-12-24T23:59:59-03:00');
    expect(at('2026-12-24', 'UTC').iso).toBe('2026-12-24T23:59:59+00:00');
    // today still counts until 23:59:59
    expect(at('2026-06-15').iso).toBe('2026-06-15T23:59:59-03:00');
  });

  it("reads day/month/year as written in Spanish, in the service's zone", () => {
    expect(at('24/12/2026').iso).toBe('2026-12-24T23:59:59-03:00');
    expect(at('24/12/2026 18:00').iso).toBe('2026-12-24T18:00:00-03:00');
    expect(at('5/1/2027 9:05').iso).toBe('2027-01-05T09:05:00-03:00');
    expect(at('24/12/2026 18:00', 'UTC').iso).toBe('2026-12-24T18:00:00+00:00');
    expect(() => at('31/02/2027')).toThrow(DateError);
    expect(() => at('12/24/2026')).toThrow(DateError);
  });

  it('refuses more than 365 days ahead, naming the limit (the service would refuse it)', () => {
    expect(at('+365d').iso).toBe('2027-06-15T12:00:00-03:00');
    expect(() => at('+400d')).toThrow(
      '"+400d" (2027-07-20 12:00:00-03:00) está a más de 365 días: el servicio acepta hasta 365 días desde ahora',
    );
    expect(() => at('20/06/2027')).toThrow(/está a más de 365 días/);
  });

  it('reads a local date and time', () => {
    expect(at('2026-12-24 18:00').iso).toBe('2026-12-24T18:00:00-03:00');
    expect(at('2026-12-24 18:00:30').iso).toBe('2026-12-24T18:00:30-03:00');
    expect(at('2026-12-24T18:00').iso).toBe('2026-12-24T18:00:00-03:00');
    expect(at('  2026-12-24 18:00  ').iso).toBe('2026-12-24T18:00:00-03:00');
  });

  it('uses the zone offset of the date itself across daylight saving', () => {
    expect(at('2027-01-15 10:00', 'Europe/Madrid').iso).toBe('2027-01-15T10:00:00+01:00');
    expect(at('2026-07-15 10:00', 'Europe/Madrid').iso).toBe('2026-07-15T10:00:00+02:00');
    expect(at('2026-07-15 10:00', 'Asia/Kolkata').iso).toBe('2026-07-15T10:00:00+05:30');
  });

  it('refuses a local time skipped by a daylight-saving change', () => {
    // Europe/Madrid jumps from 02:00 to 03:00 on 2027-03-28.
    expect(() => at('2027-03-28 02:30', 'Europe/Madrid')).toThrow(/no existe/);
  });

  it('adds days, hours and minutes to now', () => {
    expect(at('+3d').iso).toBe('2026-06-18T12:00:00-03:00');
    expect(at('+12h').iso).toBe('2026-06-16T00:00:00-03:00');
    expect(at('+30m').iso).toBe('2026-06-15T12:30:00-03:00');
    expect(at('+1D').ms).toBe(NOW + 86_400_000);
  });

  it('drops milliseconds of now', () => {
    expect(at('+1m', BA, NOW + 999).iso).toBe('2026-06-15T12:01:00-03:00');
  });

  it('reads the days people use for what comes next: mañana, esta-semana (its Sunday), a day/month of this year', () => {
    // NOW is Monday 2026-06-15 in Buenos Aires; a day without a time ends at 23:59:59.
    expect(at('mañana').iso).toBe('2026-06-16T23:59:59-03:00');
    expect(at('Manana').iso).toBe('2026-06-16T23:59:59-03:00');
    expect(at('hoy').iso).toBe('2026-06-15T23:59:59-03:00');
    expect(at('esta-semana').iso).toBe('2026-06-21T23:59:59-03:00');
    expect(at('24/12').iso).toBe('2026-12-24T23:59:59-03:00');
    expect(at('24/12 18:00').iso).toBe('2026-12-24T18:00:00-03:00');
  });

  it.each([
    ['2026-06-15T11:59:59-03:00', /ya pasó/],
    ['2026-06-15T12:00:00-03:00', /ya pasó/],
    ['2026-06-14', /ya pasó/],
    ['2020-01-01 10:00', /ya pasó/],
    ['+0d', /ahora mismo/],
    ['', /vacío/],
    ['pasado mañana', /no es una fecha/],
    ['10/06', /ya pasó/],
    ['2026/12/24', /no es una fecha/],
    ['2026-12-24T18:00:00', undefined],
    ['2026-02-30', /calendario/],
    ['2026-13-01', /calendario/],
    ['2026-12-24 24:00', /hora válida/],
    ['2026-12-24 18:60', /hora válida/],
    ['2026-12-24-03:00', /necesita también la hora/],
    ['2026-12-24T18:00:00+15:00', /no existe/],
    ['+3 semanas', /no es una fecha/],
    ['-3d', /no es una fecha/],
    ['2026-12-24\n18:00', /control/],
  ])('handles %j', (text, error) => {
    if (error === undefined) {
      expect(at(text).iso).toBe('2026-12-24T18:00:00-03:00');
      return;
    }
    expect(() => at(text)).toThrow(DateError);
    expect(() => at(text)).toThrow(error);
  });

  it('refuses an unknown zone', () => {
    expect(() => at('+1d', 'Mars/Olympus')).toThrow(/zona horaria desconocida/);
  });
});

describe('toLocalIso', () => {
  it('formats an instant with the zone offset', () => {
    expect(toLocalIso(Date.parse('2026-12-24T21:00:00Z'), BA)).toBe('2026-12-24T18:00:00-03:00');
    expect(toLocalIso(Date.parse('2026-12-24T21:00:00Z'), 'UTC')).toBe('2026-12-24T21:00:00+00:00');
  });
});

describe('parseDayBound (--desde / --hasta)', () => {
  const day = (text: string, bound: 'desde' | 'hasta' = 'desde', now = NOW, timeZone = BA) =>
    parseDayBound(text, bound, { now, timeZone });
  it('reads relative days from the service zone’s today', () => {
    expect(day('hoy')).toBe('2026-06-15');
    expect(day('HOY', 'hasta')).toBe('2026-06-15');
    expect(day('ayer')).toBe('2026-06-14');
    expect(day('7d')).toBe('2026-06-08');
    expect(day('0d')).toBe('2026-06-15');
    expect(day('45d')).toBe('2026-05-01');
    // 01:00 UTC on the 16th is still the 15th in Buenos Aires, and already the 16th in UTC.
    const late = Date.parse('2026-06-16T01:00:00Z');
    expect(day('hoy', 'desde', late)).toBe('2026-06-15');
    expect(day('hoy', 'desde', late, 'UTC')).toBe('2026-06-16');
  });
  it('gives a month’s first day to --desde and its last to --hasta, across years and leap days', () => {
    expect(day('este-mes', 'desde')).toBe('2026-06-01');
    expect(day('este-mes', 'hasta')).toBe('2026-06-30');
    expect(day('mes-pasado', 'desde')).toBe('2026-05-01');
    expect(day('mes-pasado', 'hasta')).toBe('2026-05-31');
    const jan = Date.parse('2026-01-10T12:00:00-03:00');
    expect(day('mes-pasado', 'desde', jan)).toBe('2025-12-01');
    expect(day('mes-pasado', 'hasta', jan)).toBe('2025-12-31');
    const mar2028 = Date.parse('2028-03-10T12:00:00-03:00');
    expect(day('mes-pasado', 'hasta', mar2028)).toBe('2028-02-29');
    expect(day('ayer', 'desde', Date.parse('2028-03-01T12:00:00-03:00'))).toBe('2028-02-29');
  });
  it('reads written days as year-month-day or day/month/year', () => {
    expect(day('2026-11-01')).toBe('2026-11-01');
    expect(day('01/11/2026')).toBe('2026-11-01');
    expect(day('1/11/2026')).toBe('2026-11-01');
    expect(day(' 29/02/2028 ')).toBe('2028-02-29');
  });
  it('reads the days people use for what comes next, and a day/month of this year', () => {
    // NOW is Monday 2026-06-15 in Buenos Aires.
    expect(day('mañana')).toBe('2026-06-16');
    expect(day('manana', 'hasta')).toBe('2026-06-16');
    expect(day('+7d', 'hasta')).toBe('2026-06-22');
    expect(day('-7d', 'hasta')).toBe('2026-06-08');
    expect(day('esta-semana', 'desde')).toBe('2026-06-15');
    expect(day('esta-semana', 'hasta')).toBe('2026-06-21');
    expect(day('semana-pasada', 'desde')).toBe('2026-06-08');
    expect(day('semana-pasada', 'hasta')).toBe('2026-06-14');
    expect(day('27/11')).toBe('2026-11-27');
    expect(day('1/2', 'hasta')).toBe('2026-02-01');
  });
  it('--hasta 7d reads two ways (seven days ago, or within seven days): refused naming both', () => {
    expect(() => day('7d', 'hasta')).toThrow(
      /"7d" se lee de dos formas: hace 7 días \(-7d\) o dentro de 7 días \(\+7d\)/,
    );
    expect(day('0d', 'hasta')).toBe('2026-06-15');
  });
  it.each([
    '',
    'pasado',
    '2026-13-01',
    '31/04/2026',
    '29/02/2026',
    '31/02',
    '2026-11-1',
    '7',
    '2026-11-01 10:00',
  ])('refuses %j', (text) => {
    expect(() => day(text)).toThrow(DateError);
  });
});

describe('dates as the service writes them: local, or ISO 8601 with an offset', () => {
  const BA = 'America/Argentina/Buenos_Aires';
  it.each([
    ['2026-11-27 05:10:03', '2026-11-27 05:10:03'],
    ['2026-11-27T05:10:03-03:00', '2026-11-27 05:10:03'],
    ['2026-11-27T08:10:03Z', '2026-11-27 05:10:03'],
    ['2026-11-27T08:10:03+00:00', '2026-11-27 05:10:03'],
    ['2026-11-27 08:10:03.250Z', '2026-11-27 05:10:03'],
    ['2026-11-27T10:40:03+0530', '2026-11-27 02:10:03'],
    ['2026-11-27T01:30:00Z', '2026-11-26 22:30:00'],
  ])('%s is %s in Buenos Aires', (sent, local) => {
    expect(isServiceDate(sent)).toBe(true);
    expect(localDate(sent, BA)).toBe(local);
  });
  it.each([
    '2026-11-27T05:10:03',
    '2026-02-30 10:00:00',
    '2026-11-27 24:00:00',
    '2026-11-27T05:10:03+15:00',
    '2026-11-27',
    '27/11/2026 05:10:03',
    '2026-11-27T05:10:03 -03:00',
  ])('%j is no date svc reads', (text) => {
    expect(isServiceDate(text)).toBe(false);
    expect(localDate(text, BA)).toBe(text);
  });
  it('mixed forms compare as the instants they are, not as text', () => {
    // 22:50 local is before 23:10 local, though "2026-11-27T01:50:00Z" sorts after as text.
    const early = '2026-11-27T01:50:00Z';
    const late = '2026-11-26 23:10:00';
    expect(compareDates(early, late, BA)).toBeLessThan(0);
    expect([late, early].sort((a, b) => compareDates(a, b, BA))).toEqual([early, late]);
    expect(dateInstant(early, BA)).toBe(Date.parse(early));
    expect(dateInstant(late, BA)).toBe(Date.parse('2026-11-27T02:10:00Z'));
    expect(localDay(early, BA)).toBe('2026-11-26');
    expect(compareDates('2026-11-27T05:10:03-03:00', '2026-11-27T08:10:03Z', BA)).toBe(0);
  });
  it('inZone copies a record only when a date has an offset, and keeps the rest', () => {
    const plain = { id: 1, created_at: '2026-11-26 23:10:00', monto: '1.00' };
    expect(inZone(plain, BA)).toBe(plain);
    const zoned = { id: 2, created_at: '2026-11-27T01:50:00Z', vencimiento: null, canal: 'x' };
    expect(inZone(zoned, BA)).toEqual({ ...zoned, created_at: '2026-11-26 22:50:00' });
    expect(zoned.created_at).toBe('2026-11-27T01:50:00Z');
  });
});
