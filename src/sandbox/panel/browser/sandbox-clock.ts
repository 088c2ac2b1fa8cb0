// The sandbox's clock: now, how far it was moved, and moving it on as
// `svc sandbox reloj avanzar` does.
import { call } from './calls.js';
import { $, clear, el, select, text } from './dom.js';
import { notify, zoneBox } from './messages.js';
import type { Reloj } from './wire.js';

function duration(ms: number): string {
  const m = Math.round(ms / 60000);
  const d = Math.floor(m / 1440);
  const h = Math.floor((m % 1440) / 60);
  return ms === 0 ? 'ninguno' : `${d} d ${h} h ${m % 60} min`;
}
/**
 * The time, then the zone on lines that break only after a "/" or a blank: on a
 * phone "America/Argentina/Buenos_Aires" was cut inside a word (Argenti|na).
 */
function renderClock(r: Reloj): void {
  const now = $('reloj-ahora');
  clear(now);
  now.append(`${r.ahora} (`);
  r.tz.split('/').forEach((part, i) => {
    if (i > 0) now.append('/', el('wbr'));
    now.append(el('span', 'entera', part));
  });
  now.append(')');
  text($('reloj-adelanto'), duration(r.adelanto_ms));
}
export async function loadClock(): Promise<void> {
  renderClock(await call<Reloj>('GET', '/_sandbox/reloj'));
}
/** Moves the clock on; what fell due changed records, so the caller reads them again. */
export async function advanceClock(ev: Event): Promise<void> {
  ev.preventDefault();
  const dur = select('reloj-dur').value;
  const r = await call<Reloj>('POST', '/_sandbox/reloj', { avanzar: dur });
  renderClock(r);
  notify(
    `Reloj adelantado ${dur}: ahora ${r.ahora}. ${r.vencidos.length ? `Vencieron los cobros ${r.vencidos.join(', ')}.` : 'No venció ningún cobro.'} Reintentos enviados: ${r.reintentos}.`,
    zoneBox($('form-reloj')),
  );
}
