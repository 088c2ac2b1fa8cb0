// How one payment request looks after it is created or refreshed: the payer link
// first and prominent, then what a person checks (code, state, amounts, expiry).
// Shared by `cobro crear`, `cobro ver`, `sync` and `caso`: one record layout.
import type { Cobro } from '../api/schemas.js';
import { colorState, nullable, openText, printRecord } from './format.js';
import { OPEN_FIELDS } from '../api/enums.js';
import type { Colors, IO } from './io.js';
import { PAYABLE } from '../domain/rules.js';
import { shown } from '../text.js';

export type Pair = [string, string, ((s: string, c: Colors) => string)?];

const medios = (m: Cobro['medios']) =>
  (Object.entries(m) as [string, boolean][])
    .filter(([, on]) => on)
    .map(([k]) => k)
    .join(', ') || 'ninguno';

/**
 * Every field of a payment request as key/value pairs, the payer link first.
 * `short` keeps what matters right after creating one.
 */
export function cobroPairs(cobro: Cobro, options: { short?: boolean } = {}): Pair[] {
  const pairs: Pair[] = [
    ['url', cobro.url],
    ['id', String(cobro.id)],
    ['codigo', cobro.codigo],
    ['estado', openText(cobro.estado, OPEN_FIELDS.cobro.estado), colorState],
    ['monto', cobro.monto],
  ];
  if (!options.short) pairs.push(['monto_cobrado', cobro.monto_cobrado]);
  pairs.push(['vencimiento', nullable(cobro.vencimiento)]);
  if (options.short) {
    if (cobro.referencia !== null) pairs.push(['referencia', cobro.referencia]);
    return pairs;
  }
  pairs.push(
    ['concepto', cobro.concepto],
    ['referencia', nullable(cobro.referencia)],
    ['medios', medios(cobro.medios)],
    ['cvu', nullable(cobro.cvu, '(todavía no)')],
    ['qr', nullable(cobro.qr, '(todavía no)')],
    ['success_url', nullable(cobro.success_url)],
    ['error_url', nullable(cobro.error_url)],
    ['created_at', cobro.created_at],
    ['updated_at', cobro.updated_at],
  );
  return pairs;
}

/**
 * On a terminal: the link alone on its line, bold and underlined, then the rest.
 * Piped: `key<TAB>value` lines, url first. `extra` pairs go right after estado.
 */
export function printCobro(
  io: IO,
  cobro: Cobro,
  options: { short?: boolean; extra?: Pair[] } = {},
): void {
  const pairs = cobroPairs(cobro, options);
  if (options.extra?.length) {
    const at = pairs.findIndex(([k]) => k === 'estado') + 1;
    pairs.splice(at, 0, ...options.extra);
  }
  if (!io.stdoutTTY) return printRecord(io, pairs);
  // Only a request that can still be paid is one to share.
  io.out(
    io.c.dim(
      (PAYABLE as readonly string[]).includes(cobro.estado)
        ? 'link de pago (compartilo con quien paga):'
        : 'link de pago:',
    ),
  );
  io.out(io.c.bold(io.c.underline(shown(cobro.url))));
  io.out();
  printRecord(io, pairs.slice(1));
}
