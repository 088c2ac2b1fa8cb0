// What a line of the data file must be before replay applies it: each record checked
// against the wire schema the client uses (src/api/schemas.ts) and against the store
// as replayed so far (its merchant exists, ids grow, a transaction points at a request
// of the same merchant, …). A record the sandbox could not have written would start
// and then answer 500 or poison every list: it stops the start instead.
import * as z from 'zod/mini';
import {
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
import { SANDBOX_KEY_RE, SANDBOX_LIVE_KEY_RE } from '../domain/rules.js';

/** Amounts as the sandbox writes them: cents, two decimals, never negative. */
const Amount = z
  .string()
  .check(z.regex(/^(0|[1-9][0-9]{0,11})\.[0-9]{2}$/, 'amount with two decimals'));
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
  byId: Map<number, R>;
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

const lte = (a: string, b: string) => parseAmount(a) <= parseAmount(b);

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
export function checkOp(view: StoreView, op: unknown): string | null {
  if (!Array.isArray(op) || op.length !== 2) return 'un registro no es [tipo, datos]';
  const [kind, rec] = op as [string, unknown];
  const schema = SCHEMAS[kind as keyof typeof SCHEMAS];
  if (typeof kind !== 'string' || !Object.hasOwn(SCHEMAS, kind))
    return `registro de tipo desconocido (${JSON.stringify(kind)?.slice(0, 40)})`;
  const why = shape(schema, rec);
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
export function checkEvent(view: StoreView, e: unknown): string | null {
  const why = shape(StoredEventRec, e);
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
