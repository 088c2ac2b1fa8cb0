// The days a bank does not credit besides weekends, for `svc liquidaciones conciliar`:
// the national holidays of the service's country, from date-holidays (a maintained
// calendar: movable holidays, bridge days and each year's decrees come with its
// releases, none typed here), and the days the merchant names. The country is the one
// whose zones include the service's zone (DEFAULTS.timeZone or SVC_TZ). That country's
// days are a table computed once from the same calendar (holiday-table.ts): loading
// date-holidays costs about half a second, so it is loaded only for another country's
// zone or a year outside the table.
import { HOLIDAY_TABLE } from './holiday-table.js';

/** What a bank closes for: public holidays and bank holidays (Jueves Santo, bridge days). */
const CLOSED = new Set(['public', 'bank']);

export interface NationalHolidays {
  /** ISO 3166 code of the country whose calendar was used; null when no country has the zone. */
  country: string | null;
  /** `YYYY-MM-DD` -> the holiday's name, in the country's language. */
  days: Map<string, string>;
}

/**
 * The national holidays of the table's country in `years`, without loading date-holidays;
 * undefined when `zone` is not one of its zones or a year is outside the table.
 */
export function tableHolidays(zone: string, years: Iterable<number>): NationalHolidays | undefined {
  const t = HOLIDAY_TABLE;
  if (!t.zones.includes(zone)) return undefined;
  const days = new Map<string, string>();
  for (const year of years) {
    if (!(year >= t.first && year <= t.last)) return undefined;
    for (const pair of t.years[year]!.split(' ').filter(Boolean)) {
      const [mmdd, name] = pair.split(':') as [string, string];
      const day = `${year}-${mmdd.slice(0, 2)}-${mmdd.slice(2)}`;
      if (!days.has(day)) days.set(day, t.names[Number(name)]!);
    }
  }
  return { country: t.country, days };
}

/** The national holidays of the country of `zone` in `years`. */
export async function nationalHolidays(
  zone: string,
  years: Iterable<number>,
): Promise<NationalHolidays> {
  const list = [...years];
  const known = tableHolidays(zone, list);
  if (known) return known;
  return calendarHolidays(zone, list);
}

/** nationalHolidays from date-holidays itself: what the table was computed from. */
export async function calendarHolidays(
  zone: string,
  years: Iterable<number>,
): Promise<NationalHolidays> {
  const [{ default: Holidays }, { data }] = await Promise.all([
    import('date-holidays'),
    import('date-holidays/data'),
  ]);
  const countries = data.holidays;
  const country =
    Object.keys(countries).find((code) => countries[code]!.zones?.includes(zone)) ?? null;
  const days = new Map<string, string>();
  if (country === null) return { country, days };
  const calendar = new Holidays(country);
  for (const year of years)
    for (const h of calendar.getHolidays(year))
      if (CLOSED.has(h.type) && !days.has(h.date.slice(0, 10)))
        days.set(h.date.slice(0, 10), h.name);
  return { country, days };
}

/** Every year from the first date's to the last's (`YYYY-MM-DD`), the year after included. */
export function yearsOf(desde: string, hasta: string): number[] {
  const out: number[] = [];
  for (let y = Number(desde.slice(0, 4)); y <= Number(hasta.slice(0, 4)) + 1; y++) out.push(y);
  return out;
}
