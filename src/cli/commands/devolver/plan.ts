// A refund plan: one person prepares a refund (`svc devolver … --plan FILE`), another
// applies it (`svc devolver --aplicar FILE`), here or on another machine. The file
// holds the refund, the request as it was seen, the profile and mode, and a SHA-256
// digest over all of that: a plan edited after it was written is refused. The digest
// catches edits, it is not a signature (whoever can write the file can recompute
// it); what keeps the money safe is that applying re-reads the request and refuses
// when anything the plan relied on changed, or when the refund was already made.
import type { Cobro, Devolucion } from '../../../api/schemas.js';
import { CliError, EXIT, UsageError } from '../../../errors.js';
import { formatCents, isAmount, parseAmount, sumAmounts } from '../../../domain/money.js';
import { printable } from '../../../text.js';
import { readPlanText } from '../../shared/plan-file.js';

/** Largest plan file read: a plan is a few hundred bytes. */
const MAX_PLAN_BYTES = 64 * 1024;

export interface PlanBody {
  /** 1: plans written before who and why were recorded (still applied); 2: with them. */
  version: 1 | 2;
  cobro: {
    id: number;
    codigo: string;
    estado: Cobro['estado'];
    monto_cobrado: string;
    /** Refunded so far, when the plan was made. */
    devuelto: string;
    /** Ids of the refunds of the request that existed then. */
    devoluciones: number[];
  };
  monto: string;
  transaccion_id: number | null;
  perfil: string;
  modo: 'test' | 'live';
  /** ISO 8601 UTC. */
  creado: string;
  /** The OS user who wrote the plan (version 2). */
  preparado_por?: string;
  /** Why, as the preparer typed it with --motivo; null when none was given (version 2). */
  motivo?: string | null;
}

export interface Plan extends PlanBody {
  digest: string;
  /** Set once the refund was sent and answered. */
  aplicado: null | { at: string; devolucion_id: number; perfil: string; aplicado_por?: string };
}

/** The OS user running svc, as a plan records it (who prepared, who applied). */
export function osUser(env: NodeJS.ProcessEnv = process.env): string {
  try {
    const name = process.getBuiltinModule('node:os').userInfo().username;
    if (name) return name;
  } catch {
    // A uid with no passwd entry (some containers): the environment's word for it.
  }
  return env.USER || env.USERNAME || env.LOGNAME || `uid ${process.getuid?.() ?? '?'}`;
}

/** The digest of a plan's body: SHA-256 over its fields in a fixed order. */
export function digestOf(body: PlanBody): string {
  const canonical = JSON.stringify([
    body.version,
    [
      body.cobro.id,
      body.cobro.codigo,
      body.cobro.estado,
      body.cobro.monto_cobrado,
      body.cobro.devuelto,
      body.cobro.devoluciones,
    ],
    body.monto,
    body.transaccion_id,
    body.perfil,
    body.modo,
    body.creado,
    // Who and why are covered too (version 2): an edited motivo is an edited plan.
    ...(body.version === 2 ? [body.preparado_por ?? null, body.motivo ?? null] : []),
  ]);
  // crypto is loaded only here: the other commands never pay for it.
  return `sha256:${process.getBuiltinModule('node:crypto').createHash('sha256').update(canonical).digest('hex')}`;
}

export interface PlanAuthor {
  preparado_por: string;
  motivo: string | null;
}

export function makePlan(
  cobro: Cobro,
  mine: Devolucion[],
  monto: string,
  transaccion: number | undefined,
  perfil: string,
  modo: 'test' | 'live',
  author: PlanAuthor,
  now = new Date(),
): Plan {
  const body: PlanBody = {
    version: 2,
    cobro: {
      id: cobro.id,
      codigo: cobro.codigo,
      estado: cobro.estado,
      monto_cobrado: cobro.monto_cobrado,
      devuelto: formatCents(sumAmounts(mine.map((d) => d.monto))),
      devoluciones: mine.map((d) => d.id).sort((a, b) => a - b),
    },
    monto,
    transaccion_id: transaccion ?? null,
    perfil,
    modo,
    creado: now.toISOString(),
    preparado_por: author.preparado_por,
    motivo: author.motivo,
  };
  return { ...body, digest: digestOf(body), aplicado: null };
}

export function planText(plan: Plan): string {
  return `${JSON.stringify(plan, null, 2)}\n`;
}

/** A plan file's problem: exit 1, the plan is refused as it stands. */
export class PlanRefused extends CliError {
  override name = 'PlanRefused';
  constructor(message: string, suggestion?: string) {
    super(message, { exit: EXIT.refused, code: 'plan_refused', hint: suggestion });
  }
}

/**
 * The plan was applied already (marked in the file, or its refund found on the
 * service): exit 2 and an error name of its own, `already_applied`, so a script
 * that runs the approval twice can tell it from a refusal.
 */
export class AlreadyApplied extends CliError {
  override name = 'AlreadyApplied';
  constructor(
    message: string,
    readonly devolucionId: number,
    suggestion?: string,
  ) {
    super(message, { exit: EXIT.usage, code: 'already_applied', hint: suggestion });
  }
}

const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
const isText = (v: unknown): v is string => typeof v === 'string';
const isAmountText = (v: unknown): v is string => isText(v) && isAmount(v);
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A field of a plan file and what it must hold. */
type Field = [name: string, valid: (v: unknown) => boolean];
/** Who and why (version 2 only: a version 1 plan predates them). */
const WHO: Field[] = [
  ['preparado_por', isText],
  ['motivo', (v) => v === null || isText(v)],
];
const COBRO: Field[] = [
  ['id', isId],
  ['codigo', isText],
  ['estado', isText],
  ['monto_cobrado', isAmountText],
  ['devuelto', isAmountText],
  ['devoluciones', (v) => Array.isArray(v) && v.every(isId)],
];
const REST: Field[] = [
  ['monto', (v) => isAmountText(v) && parseAmount(v) > 0n],
  ['transaccion_id', (v) => v === null || isId(v)],
  ['perfil', isText],
  ['modo', (v) => v === 'test' || v === 'live'],
  ['creado', isText],
  ['digest', isText],
  // What applying reads back and shows: when, which refund, and by whom.
  [
    'aplicado',
    (v) =>
      v === null ||
      (isRecord(v) &&
        isText(v.at) &&
        isId(v.devolucion_id) &&
        (v.aplicado_por === undefined || isText(v.aplicado_por))),
  ],
];

/** A field that is missing, or holds what svc never writes there. */
function fieldProblem(o: Record<string, unknown>, name: string, prefix = ''): string {
  return o[name] === undefined
    ? `falta el campo ${prefix}${name}`
    : `el campo ${prefix}${name} no es válido`;
}

/** The first of `fields` in `o` that is not as svc writes it, worded; undefined when all are. */
function badField(o: Record<string, unknown>, fields: Field[], prefix = ''): string | undefined {
  const bad = fields.find(([name, valid]) => !valid(o[name]));
  return bad && fieldProblem(o, bad[0], prefix);
}

/** Why parsed JSON is not a refund plan this svc applies, naming the field; undefined when it is one. */
function notAPlan(p: unknown): string | undefined {
  if (!isRecord(p)) return 'no es un objeto JSON';
  if (p.version !== 1 && p.version !== 2) return fieldProblem(p, 'version');
  if (!isRecord(p.cobro)) return fieldProblem(p, 'cobro');
  return (
    badField(p, p.version === 2 ? WHO : []) ??
    badField(p.cobro, COBRO, 'cobro.') ??
    badField(p, REST)
  );
}

/** Reads and checks a plan file: its shape (exit 2 when it is not a plan), then its digest (exit 1 when edited). */
export function readPlan(path: string): Plan {
  const text = readPlanText(path, MAX_PLAN_BYTES, 'un plan de devolución');
  let p: Plan;
  try {
    p = JSON.parse(text) as Plan;
  } catch {
    throw new UsageError(
      `--aplicar "${printable(path)}": no es JSON (un plan lo escribe svc devolver … --plan)`,
    );
  }
  const v = (p as { version?: unknown } | null)?.version;
  // A plan from a newer svc (a version this one does not know) is told apart from a broken file.
  if (isId(v) && v > 2) {
    throw new UsageError(
      `--aplicar "${printable(path)}": es un plan de versión ${v}, de una svc más nueva que esta`,
      'actualizá svc para aplicarlo, o prepará el plan de nuevo con esta',
    );
  }
  const problem = notAPlan(p);
  if (problem !== undefined)
    throw new UsageError(
      `--aplicar "${printable(path)}": no es un plan de devolución de svc (${problem})`,
    );
  if (digestOf(p) !== p.digest) {
    throw new PlanRefused(
      `el plan ${printable(path)} fue modificado después de escrito (su digest no coincide): no se aplica`,
      `prepará uno nuevo con svc devolver ${p.cobro.id} --monto … --plan ARCHIVO`,
    );
  }
  return p;
}
