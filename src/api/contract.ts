// The service's endpoints in one table (the Endpoints part of the interface): per
// endpoint its method, path, who may call it, its request, its reply and the code of
// its 400. The client's methods (client.ts), the sandbox's /v1 routes and body checks
// (sandbox/router.ts, handlers/validate.ts) and the tests' reply check are made from
// it, so the three cannot list the service differently.
// A reply is read two ways (schemas.ts): strictly by the sandbox, which says only
// what the seed shows, and openly by the client, where a field of OPEN_FIELDS may
// carry a value the seed leaves open and any object may carry fields it does not list.
import * as z from 'zod/mini';
import {
  Abierto,
  Cargo,
  Cobro,
  Cuenta,
  Devolucion,
  Liquidacion,
  OPEN_FIELDS,
  Salud,
  Transaccion,
  type ErrorCode,
} from './schemas.js';
import { MAX_CONCEPTO, MAX_REFERENCIA } from '../domain/rules.js';

// --- resources ----------------------------------------------------------------------

/**
 * Each resource a reply carries: `strict` as the sandbox says it, `read` as the client
 * reads it, and `open`, the fields `read` takes any text in (with the values svc knows).
 */
export const RESOURCES = {
  salud: { strict: Salud, read: Salud, open: {} },
  cuenta: { strict: Cuenta, read: Cuenta, open: {} },
  cargo: { strict: Cargo, read: Abierto.Cargo, open: OPEN_FIELDS.cargo },
  cobro: { strict: Cobro, read: Abierto.Cobro, open: OPEN_FIELDS.cobro },
  transaccion: { strict: Transaccion, read: Abierto.Transaccion, open: OPEN_FIELDS.transaccion },
  devolucion: { strict: Devolucion, read: Abierto.Devolucion, open: OPEN_FIELDS.devolucion },
  liquidacion: { strict: Liquidacion, read: Abierto.Liquidacion, open: OPEN_FIELDS.liquidacion },
} as const;
export type ResourceName = keyof typeof RESOURCES;

// --- request bodies -------------------------------------------------------------------

/**
 * A field of a request body: its kind says its type on the wire and which rule of
 * rules.ts / money.ts the sandbox applies to it (handlers/validate.ts reads each kind).
 * Fields are read in the order they are written, so the first bad one is reported.
 */
export type Field =
  | { kind: 'texto'; max: number; required?: true }
  | { kind: 'monto'; required: true }
  | { kind: 'fecha' }
  | { kind: 'booleano'; default: boolean }
  | { kind: 'https' }
  | { kind: 'id' };
export type Fields = Readonly<Record<string, Field>>;

/** A request body: its fields, and whether the body may be left out altogether. */
export interface RequestBody<F extends Fields = Fields> {
  fields: F;
  optional?: true;
}

const body = <const F extends Fields>(fields: F, optional?: true): RequestBody<F> => ({
  fields,
  ...(optional ? { optional } : {}),
});

type Wire<F extends Field> = F extends { kind: 'booleano' }
  ? boolean
  : F extends { kind: 'id' }
    ? number
    : string;
/** A field's zod schema: a required one is its type, an optional one may be absent or null (a boolean only absent). */
export type FieldSchema<F extends Field> = F extends { required: true }
  ? z.ZodMiniType<Wire<F>, Wire<F>>
  : F extends { kind: 'booleano' }
    ? z.ZodMiniOptional<z.ZodMiniType<Wire<F>, Wire<F>>>
    : z.ZodMiniOptional<z.ZodMiniNullable<z.ZodMiniType<Wire<F>, Wire<F>>>>;
export type RequestSchema<F extends Fields> = z.ZodMiniObject<{
  -readonly [K in keyof F]: FieldSchema<F[K]>;
}>;

/**
 * The zod schema of a request body: the shape on the wire (types, required, nullable).
 * The rules a value must also meet (lengths, amounts, https, dates) are rules.ts's and
 * money.ts's, applied by the sandbox as it reads each field.
 */
export function requestSchema<F extends Fields>(req: RequestBody<F>): RequestSchema<F> {
  const shape: Record<string, z.ZodMiniType> = {};
  for (const [name, f] of Object.entries(req.fields)) {
    const base = f.kind === 'booleano' ? z.boolean() : f.kind === 'id' ? z.int() : z.string();
    shape[name] =
      'required' in f && f.required
        ? base
        : f.kind === 'booleano'
          ? z.optional(base)
          : z.optional(z.nullable(base));
  }
  return z.object(shape) as unknown as RequestSchema<F>;
}

const CREAR_COBRO = body({
  concepto: { kind: 'texto', max: MAX_CONCEPTO, required: true },
  monto: { kind: 'monto', required: true },
  vencimiento: { kind: 'fecha' },
  tarjeta: { kind: 'booleano', default: true },
  qr: { kind: 'booleano', default: true },
  transferencia: { kind: 'booleano', default: true },
  referencia: { kind: 'texto', max: MAX_REFERENCIA },
  success_url: { kind: 'https' },
  error_url: { kind: 'https' },
});
const DEVOLUCION = body({
  monto: { kind: 'monto', required: true },
  transaccion_id: { kind: 'id' },
});
/** POST /v1/cobros/{id}/sync: `{}`, or no body at all. */
const SYNC = body({}, true);

/** POST /v1/cobros body. */
export type CrearCobroInput = z.input<RequestSchema<typeof CREAR_COBRO.fields>>;
/** POST /v1/cobros/{id}/devoluciones body. */
export type DevolucionInput = z.input<RequestSchema<typeof DEVOLUCION.fields>>;

// --- the endpoints --------------------------------------------------------------------

export interface Endpoint {
  method: 'GET' | 'POST';
  /** `{id}` marks the integer id of a resource. */
  path: string;
  /** public: no key (health); key: `Authorization: Bearer <API key>`. */
  access: 'public' | 'key';
  /** The query parameters a list takes (its filters). */
  query?: readonly string[];
  request?: RequestBody;
  reply: {
    status: 200 | 201;
    resource: ResourceName;
    /** bare: the resource itself (health); one: `{ data: resource }`; list: `{ data: [resource…] }`. */
    shape: 'bare' | 'one' | 'list';
  };
  /** The code of its 400 (a body that is not JSON or breaks a rule); GETs have none of their own. */
  error400?: ErrorCode;
}

/** A GET that needs the key and answers one resource or a list of them. */
function get<const R extends ResourceName, const S extends 'one' | 'list'>(
  path: string,
  resource: R,
  shape: S,
  query?: readonly string[],
) {
  return {
    method: 'GET' as const,
    path,
    access: 'key' as const,
    ...(query ? { query } : {}),
    reply: { status: 200 as const, resource, shape },
  };
}

/** A POST that needs the key, takes a body and answers one resource; `error400`: the code of its 400. */
function post<
  const F extends Fields,
  const S extends 200 | 201,
  const R extends ResourceName,
  const C extends ErrorCode,
>(path: string, request: RequestBody<F>, status: S, resource: R, error400: C) {
  return {
    method: 'POST' as const,
    path,
    access: 'key' as const,
    request,
    reply: { status, resource, shape: 'one' as const },
    error400,
  };
}

/** The thirteen endpoints of the service; each name is the client's method for it. */
export const API = {
  salud: {
    method: 'GET',
    path: '/v1/salud',
    access: 'public',
    reply: { status: 200, resource: 'salud', shape: 'bare' },
  },
  cuenta: get('/v1/cuenta', 'cuenta', 'one'),
  cargos: get('/v1/cargos', 'cargo', 'list'),
  crearCobro: post('/v1/cobros', CREAR_COBRO, 201, 'cobro', 'create_failed'),
  listarCobros: get('/v1/cobros', 'cobro', 'list', ['estado', 'q']),
  verCobro: get('/v1/cobros/{id}', 'cobro', 'one'),
  syncCobro: post('/v1/cobros/{id}/sync', SYNC, 200, 'cobro', 'sync_failed'),
  devolver: post('/v1/cobros/{id}/devoluciones', DEVOLUCION, 201, 'devolucion', 'refund_failed'),
  listarTransacciones: get('/v1/transacciones', 'transaccion', 'list', ['medio', 'estado']),
  verTransaccion: get('/v1/transacciones/{id}', 'transaccion', 'one'),
  listarDevoluciones: get('/v1/devoluciones', 'devolucion', 'list'),
  verDevolucion: get('/v1/devoluciones/{id}', 'devolucion', 'one'),
  listarLiquidaciones: get('/v1/liquidaciones', 'liquidacion', 'list'),
} as const;
export type EndpointName = keyof typeof API;
// Checked apart: a `satisfies` on the table would widen what get() and post() infer for each entry.
API satisfies Record<EndpointName, Endpoint>;

// --- what is derived from it -----------------------------------------------------------

/** The resource schema of an endpoint's reply as the client reads it (open). */
export type ReadItem<E extends Endpoint> = (typeof RESOURCES)[E['reply']['resource']]['read'];
/** An endpoint's whole reply body as the client reads it (a list's is read item by item: ItemList). */
export type ReadReply<E extends Endpoint> = E['reply']['shape'] extends 'bare'
  ? z.infer<ReadItem<E>>
  : { data: z.infer<ReadItem<E>> };

/** The schema the client reads an endpoint's reply with (for a list: each item's). */
export function readSchema<E extends Endpoint>(e: E): z.ZodMiniType<ReadReply<E>> {
  const item = RESOURCES[e.reply.resource].read as z.ZodMiniType;
  return (e.reply.shape === 'one' ? z.object({ data: item }) : item) as z.ZodMiniType<ReadReply<E>>;
}

/**
 * The reply an endpoint answers with as the sandbox must say it: only the fields the
 * seed shows, each value one the seed shows (the sandbox's reply check and the tests').
 */
export function strictReply(e: Endpoint): z.ZodMiniType {
  const item = z.strictObject(RESOURCES[e.reply.resource].strict.shape);
  if (e.reply.shape === 'bare') return item;
  return z.strictObject({ data: e.reply.shape === 'list' ? z.array(item) : item });
}

/** The path of an endpoint for a resource id (ids are positive integers). */
export function pathOf(e: Endpoint, id?: number): string {
  if (!e.path.includes('{id}')) return e.path;
  if (id === undefined || !Number.isSafeInteger(id) || id <= 0)
    throw new RangeError(`id inválido: ${id}`);
  return e.path.replace('{id}', encodeURIComponent(String(id)));
}

/** Whether a path (no query string) is this endpoint's path for some id. */
export function pathMatches(e: Endpoint, path: string): boolean {
  const want = e.path.split('/');
  const got = path.split('/');
  return (
    want.length === got.length &&
    want.every((part, i) => (part === '{id}' ? /^[1-9][0-9]*$/.test(got[i]!) : part === got[i]))
  );
}
