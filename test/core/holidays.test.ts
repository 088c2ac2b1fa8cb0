// The service's country's holidays come from a table computed once from date-holidays
// (src/domain/holiday-table.ts): it is what the installed calendar says, it answers
// without loading that calendar, and another zone or year still gets the calendar.
import { execa } from 'execa';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calendarHolidays, nationalHolidays, tableHolidays } from '../../src/domain/holidays.js';
import { HOLIDAY_TABLE } from '../../src/domain/holiday-table.js';
import { BIN, ROOT, tempDir } from '../helpers/cli.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
// @ts-expect-error: a build script in plain JavaScript, without types
import { render } from '../../src/build/holiday-table.mjs';

const ZONE = 'America/Argentina/Buenos_Aires';

describe('the holiday table', () => {
  it('is what `npm run feriados` writes from the installed date-holidays', () => {
    expect(readFileSync(join(ROOT, 'src/domain/holiday-table.ts'), 'utf8')).toBe(
      (render as () => string)(),
    );
  });

  it("gives, for every year it holds, the calendar's own days and names, in any of the country's zones", async () => {
    const years = [];
    for (let y = HOLIDAY_TABLE.first; y <= HOLIDAY_TABLE.last; y++) years.push(y);
    const calendar = await calendarHolidays(ZONE, years);
    expect(calendar.days.size).toBeGreaterThan(years.length * 10);
    for (const zone of [ZONE, 'America/Argentina/Ushuaia']) {
      const table = tableHolidays(zone, years)!;
      expect(table.country).toBe('AR');
      expect([...table.days]).toEqual([...calendar.days]);
    }
    // Monday 2026-11-23 (Soberanía Nacional, moved from the 20th); Jueves Santo 2027 (bank).
    expect(tableHolidays(ZONE, [2026])!.days.get('2026-11-23')).toMatch(/Soberanía/);
    expect(tableHolidays(ZONE, [2027])!.days.get('2027-03-25')).toBe('Jueves Santo');
  });

  it('another country’s zone or a year outside the table is not answered from it, and the calendar still is', async () => {
    expect(tableHolidays('UTC', [2026])).toBeUndefined();
    expect(tableHolidays('Europe/Madrid', [2026])).toBeUndefined();
    expect(tableHolidays(ZONE, [2026, HOLIDAY_TABLE.last + 1])).toBeUndefined();
    const later = await nationalHolidays(ZONE, [HOLIDAY_TABLE.last + 1]);
    expect(later.country).toBe('AR');
    expect(later.days.has(`${HOLIDAY_TABLE.last + 1}-12-25`)).toBe(true);
    expect((await nationalHolidays('Europe/Madrid', [2026])).country).toBe('ES');
    expect(await nationalHolidays('UTC', [2026])).toEqual({ country: null, days: new Map() });
  });
});

describe('svc liquidaciones conciliar in the default zone', () => {
  let sb: InProcessSandbox;
  beforeAll(async () => {
    sb = await startSandbox();
    const { id } = await sb.cobro({ monto: '1000.00' });
    expect((await sb.api('POST', `/_sandbox/cobros/${id}/pagar`, { medio: 'qr' })).status).toBe(
      200,
    );
  });
  afterAll(() => sb?.close());

  it('does not load date-holidays: the whole calendar costs about half a second a run', async () => {
    const dir = tempDir();
    const statement = join(dir, 'extracto.csv');
    writeFileSync(statement, 'Fecha,Concepto,Importe\n2026-11-26,Acreditación,1.00\n');
    const loads = join(dir, 'loads.txt');
    const r = await execa(
      'node',
      [
        '--import',
        join(ROOT, 'test/helpers/record-loads.mjs'),
        BIN,
        'liquidaciones',
        'conciliar',
        statement,
        '--json',
      ],
      {
        env: { ...sb.env, SVC_RECORD_LOADS: loads, SVC_CONFIG_DIR: dir, SVC_KEYRING: 'off' },
        reject: false,
      },
    );
    // The statement's one credit was not expected: exit 1 (mismatch), with the holidays counted.
    expect(r.exitCode, r.stderr).toBe(1);
    expect(JSON.parse(r.stdout)).toHaveProperty('feriados');
    const bundled = readFileSync(loads, 'utf8')
      .trim()
      .split('\n')
      .filter((u) => u.includes('/dist/'))
      .flatMap(
        (u) =>
          readFileSync(new URL(u), 'utf8').match(/^\/\/ node_modules\/date-holidays\S*/gm) ?? [],
      );
    expect(bundled).toEqual([]);
  });
});
