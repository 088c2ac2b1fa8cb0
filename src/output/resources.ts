// Table columns and record layouts of the service's resources, shared by the
// list and show commands so a resource looks the same everywhere.
import type { Column } from './format.js';
import { colorState, nullable, openText } from './format.js';
import { OPEN_FIELDS } from '../api/enums.js';
import { Cobro, Devolucion, Liquidacion, Transaccion } from '../api/schemas.js';
import type { Colors } from './io.js';

/** A resource's --csv header (printCsv's names: a nested object's fields as `medios.tarjeta`), for a list with no items. */
function csvFields(schema: { shape: Record<string, unknown> }): string[] {
  return Object.entries(schema.shape).flatMap(([k, v]) => {
    const nested = (v as { shape?: Record<string, unknown> }).shape;
    return nested ? Object.keys(nested).map((k2) => `${k}.${k2}`) : [k];
  });
}

export const cobroFields = csvFields(Cobro);
export const transaccionFields = csvFields(Transaccion);
export const devolucionFields = csvFields(Devolucion);
export const liquidacionFields = csvFields(Liquidacion);

type Pair = [string, string, ((s: string, c: Colors) => string)?];

const state = (text: string, _row: unknown, c: Colors) => colorState(text, c);

export const cobroColumns: Column<Cobro>[] = [
  { header: 'ID', value: (r) => String(r.id), align: 'right' },
  { header: 'CÓDIGO', value: (r) => r.codigo },
  // In --csv's order (the service's): concepto, the amounts, then the state.
  { header: 'CONCEPTO', value: (r) => r.concepto, shrink: true },
  { header: 'MONTO', value: (r) => r.monto, align: 'right' },
  { header: 'COBRADO', value: (r) => r.monto_cobrado, align: 'right', drop: 3 },
  { header: 'ESTADO', value: (r) => openText(r.estado, OPEN_FIELDS.cobro.estado), style: state },
  // The merchant's own reference names the request a person looks for; when it expires
  // says nothing of a paid one: on a narrow terminal VENCE goes first.
  { header: 'REFERENCIA', value: (r) => nullable(r.referencia), shrink: true, drop: 2 },
  { header: 'VENCE', value: (r) => nullable(r.vencimiento), drop: 1 },
];

// Priority (`drop`, lowest goes first) follows what a person reads in a list of
// payments: the amounts (what came in, what we charge, what is left) never go; the
// dates and the method go before them; a state or method that is the same on every
// row is said once above the table (printTable).
export const transaccionColumns: Column<Transaccion>[] = [
  { header: 'ID', value: (r) => String(r.id), align: 'right' },
  { header: 'COBRO', value: (r) => String(r.cobro_id), align: 'right' },
  { header: 'MEDIO', value: (r) => openText(r.medio, OPEN_FIELDS.transaccion.medio), drop: 3 },
  { header: 'MONTO', value: (r) => r.monto, align: 'right' },
  { header: 'TE COBRAMOS', value: (r) => r.te_cobramos, align: 'right' },
  { header: 'TE QUEDA', value: (r) => r.te_queda, align: 'right' },
  // After the amounts, as --csv has it (the service's order): piped rows and CSV agree.
  {
    header: 'ESTADO',
    value: (r) => openText(r.estado, OPEN_FIELDS.transaccion.estado),
    style: state,
    drop: 4,
  },
  { header: 'FECHA', value: (r) => r.fecha, drop: 2 },
  { header: 'ACREDITACIÓN', value: (r) => r.acreditacion, drop: 1 },
];

export const devolucionColumns: Column<Devolucion>[] = [
  { header: 'ID', value: (r) => String(r.id), align: 'right' },
  { header: 'COBRO', value: (r) => String(r.cobro_id), align: 'right' },
  { header: 'MONTO', value: (r) => r.monto, align: 'right' },
  { header: 'TIPO', value: (r) => openText(r.tipo, OPEN_FIELDS.devolucion.tipo), drop: 1 },
  {
    header: 'ESTADO',
    value: (r) => openText(r.estado, OPEN_FIELDS.devolucion.estado),
    style: state,
  },
  { header: 'FECHA', value: (r) => r.created_at, drop: 2 },
];

// As for transactions: bruto, te cobramos and te queda never go; the operation's
// date goes first, then the state (said once above when all rows share it), then
// when the money arrives.
export const liquidacionColumns: Column<Liquidacion>[] = [
  { header: 'ID', value: (r) => String(r.id), align: 'right' },
  { header: 'TRANSACCIÓN', value: (r) => String(r.transaccion_id), align: 'right', drop: 1 },
  { header: 'COBRO', value: (r) => String(r.cobro_id), align: 'right' },
  { header: 'BRUTO', value: (r) => r.bruto, align: 'right' },
  { header: 'TE COBRAMOS', value: (r) => r.te_cobramos, align: 'right' },
  { header: 'TE QUEDA', value: (r) => r.te_queda, align: 'right' },
  { header: 'OPERACIÓN', value: (r) => r.fecha_operacion, drop: 2 },
  { header: 'LLEGA (EST.)', value: (r) => r.fecha_estimada, drop: 4 },
  {
    header: 'ESTADO',
    value: (r) => openText(r.estado, OPEN_FIELDS.liquidacion.estado),
    style: state,
    drop: 3,
  },
];

/**
 * The columns with the one a command exists for kept at any width (`liquidaciones`
 * keeps LLEGA, `--por operacion` keeps OPERACIÓN): the others go as their `drop` says.
 */
export function keeping<T>(columns: Column<T>[], header: string): Column<T>[] {
  return columns.map((c) => (c.header === header ? { ...c, drop: undefined } : c));
}

/** A resource's columns inside one request's page (svc caso): its COBRO column would repeat the request the page is about. */
export const withoutCobro = <T>(columns: Column<T>[]): Column<T>[] =>
  columns.filter((c) => c.header !== 'COBRO');

/**
 * Record layout of a resource for `ver`: every field, in the service's order, extra
 * ones included; a value of an `open` field (OPEN_FIELDS) svc does not know is marked.
 */
export function pairsOf(
  record: Record<string, unknown>,
  open: Readonly<Record<string, readonly string[]>> = {},
  stateField = 'estado',
): Pair[] {
  return Object.entries(record).map(([k, v]): Pair => {
    const known = Object.hasOwn(open, k) ? open[k] : undefined;
    const text =
      v === null
        ? '-'
        : typeof v === 'object'
          ? flatten(v as Record<string, unknown>)
          : known
            ? openText(String(v), known)
            : String(v);
    return k === stateField ? [k, text, colorState] : [k, text];
  });
}

function flatten(obj: Record<string, unknown>): string {
  return Object.entries(obj)
    .map(([k, v]) => (typeof v === 'boolean' ? `${k}:${v ? 'sí' : 'no'}` : `${k}:${String(v)}`))
    .join(' ');
}
