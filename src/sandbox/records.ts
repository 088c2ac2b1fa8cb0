// What a line of the data file must be before replay applies it: each record checked
// against the wire schema the client uses (src/api/schemas.ts) and against the store
// as replayed so far (its merchant exists, ids grow, a transaction points at a request
// of the same merchant, …). A record the sandbox could not have written would start
// and then answer 500 or poison every list: it stops the start instead.
import * as z from 'zod/mini';
import {
  ESTADOS_COBRO,
  ESTADOS_TRANSACCION,
  EVENTOS,
  MEDIOS,
  Cobro,
  Devolucion,
  EventoBody,
  Liquidacion,
  Transaccion,
  TIPOS_DEVOLUCION,
  ESTADOS_LIQUIDACION,
  shapeProblem,
} from '../api/schemas.js';
import { parseAmount } from '../domain/money.js';
import { isServiceDate } from '../domain/dates.js';
import { SANDBOX_KEY_RE, SANDBOX_LIVE_KEY_RE } from '../domain/rules.js';

/** Amounts as the sandbox writes them: cents, two decimals, never negative. */
const AMOUNT = /^(0|[1-9][0-9]{0,11})\.[0-9]{2}$/;
const Amount = z.string().check(z.regex(AMOUNT, 'amount with two decimals'));
const Id = z.int().check(z.positive(), z.maximum(Number.MAX_SAFE_INTEGER));

const MerchantRec = z.object({
  id: Id,
  email: z.string(),
  nombre: z.string(),
  puede_cobrar: z.boolean(),
  apiKey: z.string().check(z.regex(SANDBOX_KEY_RE, 'test key')),
  webhookUrl: z.nullable(z.string()),
});
/** The rehearsal merchant (files written before it existed have only the first two). */
const RehearsalRec = z.extend(MerchantRec, {
  apiKey: z.string().check(z.regex(SANDBOX_LIVE_KEY_RE, 'live key')),
  ensayo: z.literal(true),
});
export const MetaRec = z.object({
  version: z.literal(1),
  merchants: z.union([
    z.tuple([MerchantRec, MerchantRec]),
    z.tuple([MerchantRec, MerchantRec, RehearsalRec]),
  ]),
  webhookSecret: z.string().check(z.regex(/^whsec_[A-Za-z0-9]{16,200}$/, 'signing secret')),
});

const CobroRec = z.object({
  merchant: Id,
  wire: z.extend(Cobro, {
    id: Id,
    monto: Amount,
    monto_cobrado: Amount,
    codigo: z.string().check(z.minLength(1)),
  }),
  readyAt: z.number(),
  vencMs: z.nullable(z.number()),
  cvu: z.string(),
  qr: z.string(),
  devuelto: Amount,
});
const TransaccionRec = z.object({
  merchant: Id,
  wire: z.extend(Transaccion, {
    id: Id,
    cobro_id: Id,
    monto: Amount,
    te_cobramos: Amount,
    te_queda: Amount,
  }),
  devuelto: Amount,
});
const DevolucionRec = z.object({
  merchant: Id,
  wire: z.extend(Devolucion, {
    id: Id,
    cobro_id: Id,
    monto: Amount,
    tipo: z.enum(TIPOS_DEVOLUCION),
  }),
});
const LiquidacionRec = z.object({
  merchant: Id,
  wire: z.extend(Liquidacion, {
    id: Id,
    transaccion_id: Id,
    cobro_id: Id,
    bruto: Amount,
    te_cobramos: Amount,
    te_queda: Amount,
    estado: z.enum(ESTADOS_LIQUIDACION),
  }),
});
const WebhookRec = z.object({ merchant: Id, url: z.nullable(z.string()) });
const StoredEventRec = z.object({ seq: Id, merchant: Id, at: z.number(), body: EventoBody });

const SCHEMAS = {
  cobro: CobroRec,
  transaccion: TransaccionRec,
  devolucion: DevolucionRec,
  liquidacion: LiquidacionRec,
  webhook: WebhookRec,
} as const;

type Rec = { merchant: number; wire: { id: number } };
interface TableView<R extends Rec> {
  byId: { get(id: number): R | undefined };
  maxId: number;
}

/** What the checks read from the store replayed so far. */
export interface StoreView {
  merchantIds: ReadonlySet<number>;
  cobros: TableView<{
    merchant: number;
    wire: { id: number; codigo: string; monto: string; monto_cobrado: string };
  }>;
  transacciones: TableView<{ merchant: number; wire: { id: number; cobro_id: number } }>;
  devoluciones: TableView<{ merchant: number; wire: { id: number; cobro_id: number } }>;
  liquidaciones: TableView<{
    merchant: number;
    wire: { id: number; cobro_id: number; transaccion_id: number };
  }>;
  codigos: Map<string, { wire: { id: number } }>;
  lastEvent: number;
}

/** Why the value does not fit `schema`, in one line; null when it fits. */
function shape(schema: z.ZodMiniType, value: unknown): string | null {
  return shapeProblem(schema, value, 'registro');
}

/** a <= b; two amounts in the sandbox's own form (two decimals, no leading zero) compare as text. */
const lte = (a: string, b: string) =>
  AMOUNT.test(a) && AMOUNT.test(b)
    ? a.length !== b.length
      ? a.length < b.length
      : a <= b
    : parseAmount(a) <= parseAmount(b);

/** Why the header is not a sandbox's, or null. */
export function checkMeta(meta: unknown): string | null {
  const why = shape(MetaRec, meta);
  if (why) return why;
  const merchants = (meta as z.infer<typeof MetaRec>).merchants;
  if (new Set(merchants.map((m) => m.id)).size !== merchants.length)
    return 'merchants: two merchants with the same id';
  if (new Set(merchants.map((m) => m.apiKey)).size !== merchants.length)
    return 'merchants: two merchants with the same key';
  return null;
}

// Data files written before the records' fields had names used one letter for each
// (m merchant, d wire, n seq, t at). Such lines are read as if written today; new
// lines are always written with the names.
const LEGACY_KEYS: Record<string, string> = { m: 'merchant', d: 'wire', n: 'seq', t: 'at' };
function withNames(rec: unknown): unknown {
  if (!rec || typeof rec !== 'object' || Array.isArray(rec) || !('m' in rec)) return rec;
  return Object.fromEntries(Object.entries(rec).map(([k, v]) => [LEGACY_KEYS[k] ?? k, v]));
}

/** One upsert as written by any version of the sandbox, in today's shape. */
export function upgradeOp(op: unknown): unknown {
  return Array.isArray(op) && op.length === 2 ? [op[0], withNames(op[1])] : op;
}

/** One stored event as written by any version of the sandbox, in today's shape. */
export const upgradeEvent = withNames;

/** Why one upsert of a change cannot be applied to the store as replayed so far, or null. */
export function checkOp(view: StoreView, op: unknown, shapeKnown = false): string | null {
  if (!Array.isArray(op) || op.length !== 2) return 'un registro no es [tipo, datos]';
  const [kind, rec] = op as [string, unknown];
  const schema = SCHEMAS[kind as keyof typeof SCHEMAS];
  if (typeof kind !== 'string' || !Object.hasOwn(SCHEMAS, kind))
    return `registro de tipo desconocido (${JSON.stringify(kind)?.slice(0, 40)})`;
  // shapeKnown: exactChange already found the line exactly as the sandbox writes it.
  const why = shapeKnown ? null : shape(schema, rec);
  if (why) return `registro ${kind} incompleto o inválido (${why})`;
  const r = rec as { merchant: number; wire: Record<string, unknown> & { id: number } };
  if (!view.merchantIds.has(r.merchant))
    return `registro ${kind} de un comercio que no existe (comercio ${r.merchant})`;
  if (kind === 'webhook') return null;
  const table = {
    cobro: view.cobros,
    transaccion: view.transacciones,
    devolucion: view.devoluciones,
    liquidacion: view.liquidaciones,
  }[kind]!;
  const old = table.byId.get(r.wire.id) as
    | { merchant: number; wire: Record<string, unknown> }
    | undefined;
  if (!old && r.wire.id <= table.maxId)
    return `${kind} ${r.wire.id} nuevo con un id que no sigue a los anteriores (último ${table.maxId})`;
  if (old && old.merchant !== r.merchant) return `${kind} ${r.wire.id} cambia de comercio`;
  const cobroOf = (id: unknown) => {
    const c = view.cobros.byId.get(id as number);
    return c && c.merchant === r.merchant ? c : undefined;
  };
  switch (kind) {
    case 'cobro': {
      const codigo = r.wire.codigo as string;
      if (old && old.wire.codigo !== codigo) return `cobro ${r.wire.id} cambia de codigo`;
      const other = view.codigos.get(codigo);
      if (other && other.wire.id !== r.wire.id)
        return `cobro ${r.wire.id} repite el codigo del cobro ${other.wire.id}`;
      if (!lte(r.wire.monto_cobrado as string, r.wire.monto as string))
        return `cobro ${r.wire.id}: monto_cobrado mayor que monto`;
      if (!lte((rec as { devuelto: string }).devuelto, r.wire.monto_cobrado as string))
        return `cobro ${r.wire.id}: devuelto mayor que monto_cobrado`;
      return null;
    }
    case 'transaccion':
    case 'devolucion': {
      if (!cobroOf(r.wire.cobro_id))
        return `${kind} ${r.wire.id} apunta a un cobro que no existe (${r.wire.cobro_id})`;
      if (old && old.wire.cobro_id !== r.wire.cobro_id)
        return `${kind} ${r.wire.id} cambia de cobro`;
      if (
        kind === 'transaccion' &&
        !lte((rec as { devuelto: string }).devuelto, r.wire.monto as string)
      )
        return `transaccion ${r.wire.id}: devuelto mayor que monto`;
      // A refund of more than was collected is money the sandbox could never have given back.
      const cobrado = cobroOf(r.wire.cobro_id)!.wire.monto_cobrado;
      if (kind === 'devolucion' && !lte(r.wire.monto as string, cobrado))
        return `devolucion ${r.wire.id}: monto ${r.wire.monto as string} mayor que lo cobrado del cobro ${r.wire.cobro_id} (${cobrado})`;
      return null;
    }
    case 'liquidacion': {
      const tx = view.transacciones.byId.get(r.wire.transaccion_id as number);
      if (!tx || tx.merchant !== r.merchant)
        return `liquidacion ${r.wire.id} apunta a una transacción que no existe (${r.wire.transaccion_id})`;
      if (tx.wire.cobro_id !== r.wire.cobro_id)
        return `liquidacion ${r.wire.id}: cobro_id no es el de su transacción`;
      return null;
    }
  }
  return null;
}

/** Why a journaled event cannot be kept, or null. */
export function checkEvent(view: StoreView, e: unknown, shapeKnown = false): string | null {
  const why = shapeKnown ? null : shape(StoredEventRec, e);
  if (why) return `evento incompleto o inválido (${why})`;
  const ev = e as z.infer<typeof StoredEventRec>;
  if (ev.seq <= view.lastEvent) return `evento ${ev.seq} no sigue al anterior (${view.lastEvent})`;
  if (!view.merchantIds.has(ev.merchant))
    return `evento ${ev.seq} de un comercio que no existe (m ${ev.merchant})`;
  const c = view.cobros.byId.get(ev.body.cobro_id);
  if (!c || c.merchant !== ev.merchant || c.wire.codigo !== ev.body.codigo)
    return `evento ${ev.seq} de un cobro que no existe (${ev.body.cobro_id})`;
  return null;
}

/** Why a list of settled event numbers is not one, or null. */
export function checkSettled(view: StoreView, s: unknown): string | null {
  if (!Array.isArray(s) || s.length === 0) return 'una entrega cerrada sin números';
  for (const n of s) {
    if (!Number.isSafeInteger(n) || n < 1 || n > view.lastEvent)
      return `entrega cerrada de un evento que no existe (${JSON.stringify(n)?.slice(0, 20)})`;
  }
  return null;
}

// --- the fast path of replay ----------------------------------------------------------
// A data file of a year holds millions of records: checking each through zod was most
// of a start. The sandbox writes every record in one exact shape, so replay first asks
// whether a line is exactly that (every field, of its type, no other field); such a
// line needs no zod. Anything else (an older file's names, an extra field, a wrong
// type) goes through the schemas above as before, which accept or name the problem.
// The fast check is never looser than the schemas: it only decides which way a line goes.

const isId = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) > 0;
const isInt = (v: unknown): boolean => Number.isSafeInteger(v);
const isNum = (v: unknown): boolean => typeof v === 'number';
const isStr = (v: unknown): boolean => typeof v === 'string';
const isBool = (v: unknown): boolean => typeof v === 'boolean';
const isAmt = (v: unknown): boolean => typeof v === 'string' && AMOUNT.test(v);
const orNull =
  (f: (v: unknown) => boolean) =>
  (v: unknown): boolean =>
    v === null || f(v);
const oneOf = (values: readonly string[]) => {
  const set = new Set<unknown>(values);
  return (v: unknown): boolean => set.has(v);
};

/** Days already checked against the calendar, and whether they are in it. */
const days = new Map<string, boolean>();
/** A date in the seed's form `YYYY-MM-DD HH:MM:SS` that exists (the day checked once by isServiceDate). */
function isNaiveDate(v: unknown): boolean {
  if (typeof v !== 'string' || v.length !== 19) return false;
  for (let i = 0; i < 19; i++) {
    const c = v.charCodeAt(i);
    const sep = i === 4 || i === 7 ? 45 : i === 10 ? 32 : i === 13 || i === 16 ? 58 : 0;
    if (sep ? c !== sep : c < 48 || c > 57) return false;
  }
  const two = (i: number) => (v.charCodeAt(i) - 48) * 10 + v.charCodeAt(i + 1) - 48;
  if (two(11) > 23 || two(14) > 59 || two(17) > 59) return false;
  const day = v.slice(0, 10);
  let known = days.get(day);
  if (known === undefined) {
    known = isServiceDate(`${day} 00:00:00`);
    if (days.size > 100_000) days.clear();
    days.set(day, known);
  }
  return known;
}

type Check = (v: unknown) => boolean;
interface Shape {
  [field: string]: Check | Shape;
}

/** Keys of `v` when it is an object with exactly the fields of `shape`, each passing its check; -1 otherwise. */
function exact(shape: Shape, v: unknown): number {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return -1;
  let keys = 0;
  for (const k in v) {
    const check = shape[k];
    if (check === undefined || !Object.hasOwn(shape, k)) return -1;
    const x = (v as Record<string, unknown>)[k];
    if (typeof check === 'function') {
      if (!check(x)) return -1;
      keys++;
    } else {
      const inner = exact(check, x);
      if (inner < 0) return -1;
      keys += 1 + inner;
    }
  }
  return keys === countKeys(shape) ? keys : -1;
}
const counted = new WeakMap<Shape, number>();
function countKeys(shape: Shape): number {
  let n = counted.get(shape);
  if (n === undefined) {
    n = 0;
    for (const k in shape) {
      const c = shape[k]!;
      n += typeof c === 'function' ? 1 : 1 + countKeys(c);
    }
    counted.set(shape, n);
  }
  return n;
}

const FAST: Record<string, Shape> = {
  cobro: {
    merchant: isId,
    wire: {
      id: isId,
      codigo: (v) => typeof v === 'string' && v.length > 0,
      concepto: isStr,
      monto: isAmt,
      monto_cobrado: isAmt,
      estado: oneOf(ESTADOS_COBRO),
      url: isStr,
      cvu: orNull(isStr),
      qr: orNull(isStr),
      referencia: orNull(isStr),
      medios: { tarjeta: isBool, qr: isBool, transferencia: isBool },
      vencimiento: orNull(isNaiveDate),
      success_url: orNull(isStr),
      error_url: orNull(isStr),
      created_at: isNaiveDate,
      updated_at: isNaiveDate,
    },
    readyAt: isNum,
    vencMs: orNull(isNum),
    cvu: isStr,
    qr: isStr,
    devuelto: isAmt,
  },
  transaccion: {
    merchant: isId,
    wire: {
      id: isId,
      cobro_id: isId,
      medio: oneOf(MEDIOS),
      monto: isAmt,
      te_cobramos: isAmt,
      te_queda: isAmt,
      estado: oneOf(ESTADOS_TRANSACCION),
      codigo: isStr,
      fecha: isNaiveDate,
      acreditacion: isNaiveDate,
    },
    devuelto: isAmt,
  },
  devolucion: {
    merchant: isId,
    wire: {
      id: isId,
      cobro_id: isId,
      monto: isAmt,
      tipo: oneOf(TIPOS_DEVOLUCION),
      estado: oneOf(ESTADOS_COBRO),
      created_at: isNaiveDate,
    },
  },
  liquidacion: {
    merchant: isId,
    wire: {
      id: isId,
      transaccion_id: isId,
      cobro_id: isId,
      bruto: isAmt,
      te_cobramos: isAmt,
      te_queda: isAmt,
      fecha_operacion: isNaiveDate,
      fecha_estimada: isNaiveDate,
      estado: oneOf(ESTADOS_LIQUIDACION),
    },
  },
  webhook: { merchant: isId, url: orNull(isStr) },
};
const FAST_EVENT: Shape = {
  seq: isId,
  merchant: isId,
  at: isNum,
  body: {
    event: oneOf(EVENTOS),
    cobro_id: isInt,
    codigo: isStr,
    estado: oneOf(ESTADOS_COBRO),
    monto: isAmt,
    monto_cobrado: isAmt,
    transaccion_id: orNull(isInt),
  },
};

/**
 * The keys a change line `{c: [[kind, record]…], e: [event…]}` holds when every
 * record and event in it is exactly as this sandbox writes them (then the schemas
 * need not look at it); -1 for any other line.
 */
export function exactChange(entry: unknown): number {
  if (entry === null || typeof entry !== 'object') return -1;
  const { c, e } = entry as { c?: unknown; e?: unknown };
  if (!Array.isArray(c)) return -1;
  let keys = 1;
  for (const k in entry) if (k !== 'c' && (k !== 'e' || !Array.isArray(e))) return -1;
  if (e !== undefined) keys++;
  for (const op of c) {
    if (!Array.isArray(op) || op.length !== 2) return -1;
    const shape = typeof op[0] === 'string' && Object.hasOwn(FAST, op[0]) ? FAST[op[0]] : null;
    const n = shape ? exact(shape, op[1]) : -1;
    if (n < 0) return -1;
    keys += n;
  }
  for (const ev of (e as unknown[] | undefined) ?? []) {
    const n = exact(FAST_EVENT, ev);
    if (n < 0) return -1;
    keys += n;
  }
  return keys;
}
