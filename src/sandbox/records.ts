// What a line of the data file must be before replay applies it: each record checked
// against the wire schema the client uses (src/api/schemas.ts) and against the store
// as replayed so far (its merchant exists, ids grow, a transaction points at a request
// of the same merchant, …). A record the sandbox could not have written would start
// and then answer 500 or poison every list: it stops the start instead.
import { z } from 'zod';
import { Cobro, Devolucion, EventoBody, Liquidacion, Transaccion, TIPOS_DEVOLUCION, ESTADOS_LIQUIDACION } from '../api/schemas.js';
import { parseAmount } from '../money.js';
import { SANDBOX_KEY_RE } from '../rules.js';

/** Amounts as the sandbox writes them: cents, two decimals, never negative. */
const Amount = z.string().regex(/^(0|[1-9][0-9]{0,11})\.[0-9]{2}$/, 'amount with two decimals');
const Id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

const MerchantRec = z.object({
  id: Id,
  email: z.string(),
  nombre: z.string(),
  puede_cobrar: z.boolean(),
  apiKey: z.string().regex(SANDBOX_KEY_RE, 'test key'),
  webhookUrl: z.string().nullable(),
});
export const MetaRec = z.object({
  version: z.literal(1),
  merchants: z.tuple([MerchantRec, MerchantRec]),
  webhookSecret: z.string().regex(/^whsec_[A-Za-z0-9]{16,200}$/, 'signing secret'),
});

const CobroRec = z.object({
  m: Id,
  d: Cobro.extend({ id: Id, monto: Amount, monto_cobrado: Amount, codigo: z.string().min(1) }),
  readyAt: z.number(),
  vencMs: z.number().nullable(),
  cvu: z.string(),
  qr: z.string(),
  devuelto: Amount,
});
const TransaccionRec = z.object({
  m: Id,
  d: Transaccion.extend({ id: Id, cobro_id: Id, monto: Amount, te_cobramos: Amount, te_queda: Amount }),
  devuelto: Amount,
});
const DevolucionRec = z.object({ m: Id, d: Devolucion.extend({ id: Id, cobro_id: Id, monto: Amount, tipo: z.enum(TIPOS_DEVOLUCION) }) });
const LiquidacionRec = z.object({
  m: Id,
  d: Liquidacion.extend({
    id: Id,
    transaccion_id: Id,
    cobro_id: Id,
    bruto: Amount,
    te_cobramos: Amount,
    te_queda: Amount,
    estado: z.enum(ESTADOS_LIQUIDACION),
  }),
});
const WebhookRec = z.object({ m: Id, url: z.string().nullable() });
const StoredEventRec = z.object({ n: Id, m: Id, t: z.number(), body: EventoBody });

const SCHEMAS = { cobro: CobroRec, transaccion: TransaccionRec, devolucion: DevolucionRec, liquidacion: LiquidacionRec, webhook: WebhookRec } as const;

type Rec = { m: number; d: { id: number } };
interface TableView<R extends Rec> {
  byId: Map<number, R>;
  maxId: number;
}

/** What the checks read from the store replayed so far. */
export interface StoreView {
  merchantIds: ReadonlySet<number>;
  cobros: TableView<{ m: number; d: { id: number; codigo: string; monto: string; monto_cobrado: string } }>;
  transacciones: TableView<{ m: number; d: { id: number; cobro_id: number } }>;
  devoluciones: TableView<{ m: number; d: { id: number; cobro_id: number } }>;
  liquidaciones: TableView<{ m: number; d: { id: number; cobro_id: number; transaccion_id: number } }>;
  codigos: Map<string, { d: { id: number } }>;
  lastEvent: number;
}

/** Why the value does not fit `schema`, in one line; null when it fits. */
function shape(schema: z.ZodType, value: unknown): string | null {
  const r = schema.safeParse(value);
  if (r.success) return null;
  const issue = r.error.issues[0]!;
  const path = issue.path.length ? issue.path.join('.') : 'registro';
  return `${path}: ${issue.message}`;
}

const lte = (a: string, b: string) => parseAmount(a) <= parseAmount(b);

/** Why the header is not a sandbox's, or null. */
export function checkMeta(meta: unknown): string | null {
  const why = shape(MetaRec, meta);
  if (why) return why;
  const [a, b] = (meta as z.infer<typeof MetaRec>).merchants;
  if (a.id === b.id) return 'merchants: two merchants with the same id';
  if (a.apiKey === b.apiKey) return 'merchants: two merchants with the same key';
  return null;
}

/** Why one upsert of a change cannot be applied to the store as replayed so far, or null. */
export function checkOp(view: StoreView, op: unknown): string | null {
  if (!Array.isArray(op) || op.length !== 2) return 'un registro no es [tipo, datos]';
  const [kind, rec] = op as [string, unknown];
  const schema = SCHEMAS[kind as keyof typeof SCHEMAS];
  if (typeof kind !== 'string' || !Object.hasOwn(SCHEMAS, kind)) return `registro de tipo desconocido (${JSON.stringify(kind)?.slice(0, 40)})`;
  const why = shape(schema, rec);
  if (why) return `registro ${kind} incompleto o inválido (${why})`;
  const r = rec as { m: number; d: Record<string, unknown> & { id: number } };
  if (!view.merchantIds.has(r.m)) return `registro ${kind} de un comercio que no existe (m ${r.m})`;
  if (kind === 'webhook') return null;
  const table = { cobro: view.cobros, transaccion: view.transacciones, devolucion: view.devoluciones, liquidacion: view.liquidaciones }[kind]!;
  const old = table.byId.get(r.d.id) as { m: number; d: Record<string, unknown> } | undefined;
  if (!old && r.d.id <= table.maxId) return `${kind} ${r.d.id} nuevo con un id que no sigue a los anteriores (último ${table.maxId})`;
  if (old && old.m !== r.m) return `${kind} ${r.d.id} cambia de comercio`;
  const cobroOf = (id: unknown) => {
    const c = view.cobros.byId.get(id as number);
    return c && c.m === r.m ? c : undefined;
  };
  switch (kind) {
    case 'cobro': {
      const codigo = r.d.codigo as string;
      if (old && old.d.codigo !== codigo) return `cobro ${r.d.id} cambia de codigo`;
      const other = view.codigos.get(codigo);
      if (other && other.d.id !== r.d.id) return `cobro ${r.d.id} repite el codigo del cobro ${other.d.id}`;
      if (!lte(r.d.monto_cobrado as string, r.d.monto as string)) return `cobro ${r.d.id}: monto_cobrado mayor que monto`;
      if (!lte((rec as { devuelto: string }).devuelto, r.d.monto_cobrado as string)) return `cobro ${r.d.id}: devuelto mayor que monto_cobrado`;
      return null;
    }
    case 'transaccion':
    case 'devolucion': {
      if (!cobroOf(r.d.cobro_id)) return `${kind} ${r.d.id} apunta a un cobro que no existe (${r.d.cobro_id})`;
      if (old && old.d.cobro_id !== r.d.cobro_id) return `${kind} ${r.d.id} cambia de cobro`;
      if (kind === 'transaccion' && !lte((rec as { devuelto: string }).devuelto, r.d.monto as string)) return `transaccion ${r.d.id}: devuelto mayor que monto`;
      return null;
    }
    case 'liquidacion': {
      const tx = view.transacciones.byId.get(r.d.transaccion_id as number);
      if (!tx || tx.m !== r.m) return `liquidacion ${r.d.id} apunta a una transacción que no existe (${r.d.transaccion_id})`;
      if (tx.d.cobro_id !== r.d.cobro_id) return `liquidacion ${r.d.id}: cobro_id no es el de su transacción`;
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
  if (ev.n <= view.lastEvent) return `evento ${ev.n} no sigue al anterior (${view.lastEvent})`;
  if (!view.merchantIds.has(ev.m)) return `evento ${ev.n} de un comercio que no existe (m ${ev.m})`;
  const c = view.cobros.byId.get(ev.body.cobro_id);
  if (!c || c.m !== ev.m || c.d.codigo !== ev.body.codigo) return `evento ${ev.n} de un cobro que no existe (${ev.body.cobro_id})`;
  return null;
}

/** Why a list of settled event numbers is not one, or null. */
export function checkSettled(view: StoreView, s: unknown): string | null {
  if (!Array.isArray(s) || s.length === 0) return 'una entrega cerrada sin números';
  for (const n of s) {
    if (!Number.isSafeInteger(n) || n < 1 || n > view.lastEvent) return `entrega cerrada de un evento que no existe (${JSON.stringify(n)?.slice(0, 20)})`;
  }
  return null;
}
