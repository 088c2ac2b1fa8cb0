// The wire format of the service, as zod schemas: every resource, state, event and
// error body of the service interface. Shared by the client, the CLI and the sandbox,
// so the emulator and the client cannot disagree about what travels.
// zod/mini: the same checks as zod, a small fraction of its load time (every call
// of svc validates its reply; start-up matters, #16).
import * as z from 'zod/mini';

import {
  OPEN_FIELDS,
  ERROR_CODES,
  ESTADOS_COBRO,
  ESTADOS_LIQUIDACION,
  ESTADOS_TRANSACCION,
  EVENTOS,
  MEDIOS,
  SANDBOX_ERROR_CODES,
  TIPOS_DEVOLUCION,
} from './enums.js';
import { isAmount, parsePercent } from '../domain/money.js';
import { isServiceDate } from '../domain/dates.js';

export * from './enums.js';

/**
 * An amount as the seed defines it: a decimal string, never a JSON number, checked
 * by money.ts's own parser (digits, at most two decimals, no sign, exponent, blank
 * or comma), so every amount a reply passes with is one svc can compute with: a
 * reply with "10.001" or "-5.00" is not the service's JSON (exit 6), instead of
 * stopping `svc devolver` halfway.
 */
export const Decimal = z
  .string()
  .check(
    z.refine(isAmount, 'monto decimal de hasta 12 cifras enteras y 2 decimales (ej. "1500.00")'),
  );
/** A percentage (the fee of a method): up to four decimals, as money.parsePercent reads it. */
export const Percent = z.string().check(
  z.refine((text) => {
    try {
      parsePercent(text);
      return true;
    } catch {
      return false;
    }
  }, 'porcentaje decimal con hasta cuatro decimales (ej. "3.2500")'),
);
/**
 * A date-time as the service writes it: local `YYYY-MM-DD HH:MM:SS` (the seed's form), or
 * ISO 8601 with its offset (`2026-11-27T05:10:03-03:00`, `…Z`), which svc reads and shows
 * in the service's zone (dates.ts localDate). A day or time that does not exist is refused.
 */
export const LocalDateTime = z
  .string()
  .check(
    z.refine(
      isServiceDate,
      'fecha y hora AAAA-MM-DD HH:MM:SS, o ISO 8601 con zona (2026-11-27T05:10:03-03:00)',
    ),
  );

export const Salud = z.object({ ok: z.boolean(), name: z.string(), version: z.string() });
export type Salud = z.infer<typeof Salud>;

export const Cuenta = z.object({
  id: z.int(),
  email: z.string(),
  nombre: z.string(),
  puede_cobrar: z.boolean(),
});
export type Cuenta = z.infer<typeof Cuenta>;

export const Cargo = z.object({
  medio: z.enum(MEDIOS),
  label: z.string(),
  porcentaje: Percent,
});

export const Cobro = z.object({
  id: z.int(),
  codigo: z.string(),
  concepto: z.string(),
  monto: Decimal,
  monto_cobrado: Decimal,
  estado: z.enum(ESTADOS_COBRO),
  url: z.string(),
  cvu: z.nullable(z.string()),
  qr: z.nullable(z.string()),
  referencia: z.nullable(z.string()),
  medios: z.object({ tarjeta: z.boolean(), qr: z.boolean(), transferencia: z.boolean() }),
  vencimiento: z.nullable(LocalDateTime),
  success_url: z.nullable(z.string()),
  error_url: z.nullable(z.string()),
  created_at: LocalDateTime,
  updated_at: LocalDateTime,
});

export const Transaccion = z.object({
  id: z.int(),
  cobro_id: z.int(),
  medio: z.enum(MEDIOS),
  monto: Decimal,
  te_cobramos: Decimal,
  te_queda: Decimal,
  estado: z.enum(ESTADOS_TRANSACCION),
  codigo: z.string(),
  fecha: LocalDateTime,
  acreditacion: LocalDateTime,
});

export const Devolucion = z.object({
  id: z.int(),
  cobro_id: z.int(),
  monto: Decimal,
  tipo: z.enum(TIPOS_DEVOLUCION),
  estado: z.enum(ESTADOS_COBRO),
  created_at: LocalDateTime,
});

export const Liquidacion = z.object({
  id: z.int(),
  transaccion_id: z.int(),
  cobro_id: z.int(),
  bruto: Decimal,
  te_cobramos: Decimal,
  te_queda: Decimal,
  fecha_operacion: LocalDateTime,
  fecha_estimada: LocalDateTime,
  estado: z.enum(ESTADOS_LIQUIDACION),
});

/**
 * An error body as the client reads it: any code. A code the interface does not list
 * is still the service refusing (exit 5, or 3/4 by its HTTP status), not a broken
 * reply, so the client does not narrow `error` to ERROR_CODES.
 */
export const ErrorBody = z.object({ error: z.string(), message: z.string() });
export type ErrorBody = z.infer<typeof ErrorBody>;

/** The error codes of the interface. */
export const ErrorCode = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** An error body of the sandbox: a code of the interface, or one of the sandbox's own. */
export const SandboxErrorBody = z.object({
  error: z.enum([...ERROR_CODES, ...SANDBOX_ERROR_CODES]),
  message: z.string(),
});
export type SandboxErrorBody = z.infer<typeof SandboxErrorBody>;

/** Notification body sent by the service (Events part of the interface). */
export const EventoBody = z.object({
  event: z.enum(EVENTOS),
  cobro_id: z.int(),
  codigo: z.string(),
  estado: z.enum(ESTADOS_COBRO),
  monto: Decimal,
  monto_cobrado: Decimal,
  transaccion_id: z.nullable(z.int()),
});

// --- Read two ways ----------------------------------------------------------------
// The schemas above are the seed as the sandbox says it: strict, every state, `tipo`,
// `medio` and event name one the seed shows (the sandbox's records and the tests'
// reply check use them). A client reads a service that may say more: strict where
// money or identity is at stake (amounts' format, ids, required fields, dates'
// format), open where the seed leaves a value open or a service may add one (the
// fields of OPEN_FIELDS in enums.ts, and any extra field). `Abierto` holds those readings; the types
// named after each resource are what svc reads.

/** A value svc knows the usual ones of, but takes any of: the known ones stay typed for the editor. */
export type Open<T extends string> = T | (string & {});

/** Any text where the seed lists values a service may add to. */
const open = <const T extends readonly string[]>(_known: T) =>
  z.string() as unknown as z.ZodMiniType<Open<T[number]>, string>;

/** The resources as svc reads them: the fields of OPEN_FIELDS (enums.ts) take any text. */
export const Abierto = {
  Cargo: z.extend(Cargo, { medio: open(OPEN_FIELDS.cargo.medio) }),
  Cobro: z.extend(Cobro, { estado: open(OPEN_FIELDS.cobro.estado) }),
  Transaccion: z.extend(Transaccion, {
    medio: open(OPEN_FIELDS.transaccion.medio),
    estado: open(OPEN_FIELDS.transaccion.estado),
  }),
  Devolucion: z.extend(Devolucion, {
    tipo: open(OPEN_FIELDS.devolucion.tipo),
    estado: open(OPEN_FIELDS.devolucion.estado),
  }),
  Liquidacion: z.extend(Liquidacion, { estado: open(OPEN_FIELDS.liquidacion.estado) }),
  EventoBody: z.extend(EventoBody, {
    event: open(OPEN_FIELDS.evento.event),
    estado: open(OPEN_FIELDS.evento.estado),
  }),
};
export type Cargo = z.infer<typeof Abierto.Cargo>;
export type Cobro = z.infer<typeof Abierto.Cobro>;
export type Transaccion = z.infer<typeof Abierto.Transaccion>;
export type Devolucion = z.infer<typeof Abierto.Devolucion>;
export type Liquidacion = z.infer<typeof Abierto.Liquidacion>;
export type EventoBody = z.infer<typeof Abierto.EventoBody>;
/** The same resources as the sandbox says them: only what the seed shows. */
export type Seed = {
  Cargo: z.infer<typeof Cargo>;
  Cobro: z.infer<typeof Cobro>;
  Transaccion: z.infer<typeof Transaccion>;
  Devolucion: z.infer<typeof Devolucion>;
  Liquidacion: z.infer<typeof Liquidacion>;
  EventoBody: z.infer<typeof EventoBody>;
};

/**
 * The first problem of a value that does not fit a schema, in one line: where
 * (`data.0.monto`, or `raíz`) and what. zod/mini carries no message texts; the checks
 * above carry their own, the rest are said here.
 */
export function firstProblem(
  result: { success: false; error: { issues: readonly z.core.$ZodIssue[] } },
  root = '(raíz)',
  at = '',
): string {
  const issue = result.error.issues[0];
  if (!issue) return at || root;
  const path = [at, ...issue.path.map(String)].filter(Boolean).join('.') || root;
  let what = issue.message;
  if (issue.code === 'invalid_type')
    what =
      issue.input === undefined ? `falta (${issue.expected})` : `se esperaba ${issue.expected}`;
  else if (issue.code === 'invalid_value')
    what = `no es ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
  else if (issue.code === 'unrecognized_keys') what = `campos de más (${issue.keys.join(', ')})`;
  else if (issue.code === 'too_small' || issue.code === 'too_big')
    what = `fuera de rango (${issue.code === 'too_small' ? 'mínimo' : 'máximo'} ${issue.code === 'too_small' ? issue.minimum : issue.maximum})`;
  return `${path}: ${what}`;
}

/**
 * Why `value` does not fit `schema`, in firstProblem's one line, or null when it fits.
 * reportInput keeps the wrong value in the issue, so a field sent as null or as a
 * number reads "se esperaba string", and only a field left out reads "falta (string)".
 */
export function shapeProblem(
  schema: z.ZodMiniType,
  value: unknown,
  root?: string,
  at?: string,
): string | null {
  const r = schema.safeParse(value, { reportInput: true });
  return r.success ? null : firstProblem(r, root, at);
}

export const envelope = <T extends z.ZodMiniType>(schema: T) => z.object({ data: schema });
