// `svc webhook conciliar --plan FILE` and `--aplicar FILE`: every notification the app
// is missing, fixed in one go, planned first as refunds are (devolver/plan.ts). The
// plan lists each request, the service's state it was planned for, and whether its
// event is replayed from the journal or triggered anew, and where to; a SHA-256
// digest over all of it refuses an edited plan. Applying reads the service and the
// journal again and sends only what is still missing for the state planned: a
// request brought up to date since is left alone, one whose state changed is not
// sent (its plan is stale). So a second apply sends nothing. Two applies at the same
// moment may both send a request's event: notifications reach an app at least once
// anyway (the service retries until a 2xx), so an app already takes a repeat.
// Every send is signed now (a journaled event's own timestamp is likely older than
// the app's tolerance) and journaled, as `replay` and `trigger` would.
import type { Cobro } from '../../../api/schemas.js';
import { EVENTOS, isKnown, type Evento } from '../../../api/enums.js';
import { maskTarget } from '../../../api/address.js';
import { createFile } from '../../../durable.js';
import { CliError, EXIT, UsageError } from '../../../errors.js';
import { count, printable, shown } from '../../../text.js';
import {
  entryBody,
  Journal,
  keptResponse,
  newEntryId,
  type JournalEntry,
} from '../../../webhooks/event-journal.js';
import type { Diferencia } from '../../../webhooks/reconcile.js';
import { VERSION } from '../../../version.js';
import type { Context } from '../../context.js';
import { readPlanText } from '../../shared/plan-file.js';

/** Largest plan read: a year of a busy shop's requests, a few hundred bytes each. */
const MAX_PLAN_BYTES = 64 * 1024 * 1024;

export interface PlanAccion {
  cobro_id: number;
  codigo: string;
  /** The service's state when the plan was made: what the app is to be told. */
  servicio: string;
  accion: 'replay' | 'trigger';
  evento: Evento;
  /** With replay: the journal's entry sent again. */
  evento_id: string | null;
  forward_to: string;
}

export interface WebhookPlanBody {
  version: 1;
  tipo: 'webhook conciliar';
  perfil: string;
  modo: 'test' | 'live';
  /** The journal the plan was made from (and applying reads and appends to). */
  journal: string;
  /** ISO 8601 UTC. */
  creado: string;
  acciones: PlanAccion[];
}

export interface WebhookPlan extends WebhookPlanBody {
  digest: string;
}

export function digestOf(body: WebhookPlanBody): string {
  const canonical = JSON.stringify([
    body.version,
    body.tipo,
    body.perfil,
    body.modo,
    body.journal,
    body.creado,
    body.acciones.map((a) => [
      a.cobro_id,
      a.codigo,
      a.servicio,
      a.accion,
      a.evento,
      a.evento_id,
      a.forward_to,
    ]),
  ]);
  return `sha256:${process.getBuiltinModule('node:crypto').createHash('sha256').update(canonical).digest('hex')}`;
}

/** The plan of every fixable difference; those without an address are refused before (see run). */
export function makePlan(
  diffs: readonly Diferencia[],
  context: { perfil: string; modo: 'test' | 'live'; journal: string },
  now = new Date(),
): WebhookPlan {
  const acciones: PlanAccion[] = diffs
    .filter((d) => d.accion !== 'ninguna')
    .map((d) => ({
      cobro_id: d.cobro_id,
      codigo: d.codigo,
      servicio: d.servicio,
      accion: d.accion as 'replay' | 'trigger',
      evento: d.evento!,
      evento_id: d.evento_id,
      forward_to: d.forward_to!,
    }));
  const body: WebhookPlanBody = {
    version: 1,
    tipo: 'webhook conciliar',
    ...context,
    creado: now.toISOString(),
    acciones,
  };
  return { ...body, digest: digestOf(body) };
}

/** Writes a new plan file (0600, never over an existing one). */
export function writePlan(path: string, plan: WebhookPlan): void {
  try {
    createFile(path, `${JSON.stringify(plan, null, 2)}\n`);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      `--plan "${printable(path)}": ${code === 'EEXIST' ? 'ya existe: elegí otro nombre (un plan nunca se sobrescribe)' : code === 'ENOENT' ? 'la carpeta no existe' : (err as Error).message}`,
    );
  }
}

const isText = (v: unknown): v is string => typeof v === 'string';
const isId = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function actionProblem(a: unknown, i: number): string | undefined {
  const at = `acciones[${i}]`;
  if (!isRecord(a)) return `${at} no es un objeto`;
  if (!isId(a.cobro_id)) return `${at}.cobro_id no es un id`;
  for (const k of ['codigo', 'servicio', 'forward_to'] as const)
    if (!isText(a[k]) || a[k] === '') return `${at}.${k} no es texto`;
  if (a.accion !== 'replay' && a.accion !== 'trigger')
    return `${at}.accion no es replay ni trigger`;
  if (!isText(a.evento) || !isKnown(a.evento, EVENTOS)) return `${at}.evento no es un evento`;
  if (a.accion === 'replay' ? !isText(a.evento_id) : a.evento_id !== null)
    return `${at}.evento_id no es válido`;
  return undefined;
}

/** Reads and checks a plan: its shape (exit 2), then its digest (exit 1 when edited). */
export function readPlan(path: string): WebhookPlan {
  const text = readPlanText(path, MAX_PLAN_BYTES, 'un plan de svc');
  let p: unknown;
  try {
    p = JSON.parse(text);
  } catch {
    throw new UsageError(
      `--aplicar "${printable(path)}": no es JSON (lo escribe svc webhook conciliar --plan)`,
    );
  }
  const problem = !isRecord(p)
    ? 'no es un objeto JSON'
    : p.tipo !== 'webhook conciliar'
      ? 'no es de svc webhook conciliar'
      : p.version !== 1
        ? 'version no es 1'
        : !isText(p.perfil) || (p.modo !== 'test' && p.modo !== 'live')
          ? 'perfil o modo no son válidos'
          : !isText(p.journal) || !isText(p.creado) || !isText(p.digest)
            ? 'journal, creado o digest no son texto'
            : !Array.isArray(p.acciones)
              ? 'falta acciones'
              : p.acciones.map(actionProblem).find((x) => x !== undefined);
  if (problem !== undefined)
    throw new UsageError(
      `--aplicar "${printable(path)}": no es un plan de svc webhook conciliar (${problem})`,
    );
  const plan = p as unknown as WebhookPlan;
  if (digestOf(plan) !== plan.digest)
    throw new CliError(
      `el plan ${printable(path)} fue modificado después de escrito (su digest no coincide): no se aplica`,
      {
        exit: EXIT.refused,
        code: 'plan_refused',
        hint: 'prepará uno nuevo con svc webhook conciliar --plan ARCHIVO',
      },
    );
  return plan;
}

/** What became of one planned action. */
export type Resultado =
  | 'enviado'
  | 'rechazado'
  | 'sin_respuesta'
  | 'al_dia'
  | 'cambio'
  | 'sin_evento';

export interface Envio {
  accion: PlanAccion;
  resultado: Resultado;
  status: number | null;
  /** Why, in words, when nothing was sent or the app did not take it. */
  detalle?: string;
}

/**
 * Sends what is still missing, in the plan's order: each planned action whose request
 * still differs, in the state planned. `now` differences by cobro_id; `cobros` the
 * service's requests (for a trigger's body); `entries` the journal.
 */
export async function applyActions(
  ctx: Context,
  plan: WebhookPlan,
  state: {
    now: ReadonlyMap<number, Diferencia>;
    cobros: ReadonlyMap<number, Cobro>;
    entries: readonly JournalEntry[];
  },
  secret: string,
  report: (e: Envio) => void,
): Promise<Envio[]> {
  const { signatureHeader, notificationHeaders } = await import('../../../webhooks/signature.js');
  const { sampleBody, summarize } = await import('../../../webhooks/events.js');
  const { Forwarder } = await import('../../../webhooks/forwarder.js');
  const forwarder = new Forwarder({ network: await ctx.network() });
  const byId = new Map(state.entries.map((e) => [e.id, e]));
  let journal: Journal | undefined;
  try {
    journal = await Journal.open(plan.journal);
  } catch (err) {
    ctx.io.err(
      ctx.io.c.yellow(`aviso: ${(err as Error).message}; los envíos no quedan registrados`),
    );
  }
  const out: Envio[] = [];
  const done = (e: Envio) => {
    out.push(e);
    report(e);
  };
  try {
    for (const a of plan.acciones) {
      const diff = state.now.get(a.cobro_id);
      const cobro = state.cobros.get(a.cobro_id);
      if (!diff || !cobro) {
        done({ accion: a, resultado: 'al_dia', status: null, detalle: 'tu app ya lo sabe' });
        continue;
      }
      if (diff.servicio !== a.servicio) {
        done({
          accion: a,
          resultado: 'cambio',
          status: null,
          detalle: `ahora está ${diff.servicio}: no se envía; corré conciliar de nuevo`,
        });
        continue;
      }
      const original = a.evento_id === null ? undefined : byId.get(a.evento_id);
      if (a.accion === 'replay' && !original) {
        done({
          accion: a,
          resultado: 'sin_evento',
          status: null,
          detalle: `${a.evento_id} ya no está en el journal`,
        });
        continue;
      }
      const ts = String(Math.floor(Date.now() / 1000));
      let body: Buffer;
      let headers: Record<string, string>;
      if (original) {
        body = entryBody(original);
        headers = {
          'user-agent': `svc/${VERSION} (webhook conciliar)`,
          ...original.headers,
          'x-svc-timestamp': ts,
          'x-svc-signature': signatureHeader(secret, ts, body),
        };
        if (!headers['content-type']) headers['content-type'] = 'application/json';
      } else {
        const text = JSON.stringify(
          sampleBody(a.evento, {
            cobro_id: cobro.id,
            codigo: cobro.codigo,
            monto: cobro.monto,
            monto_cobrado: cobro.monto_cobrado,
          }),
        );
        body = Buffer.from(text, 'utf8');
        headers = {
          'user-agent': `svc/${VERSION} (webhook conciliar)`,
          ...Object.fromEntries(
            Object.entries(notificationHeaders(secret, a.evento, text, ts)).map(([k, v]) => [
              k.toLowerCase(),
              v,
            ]),
          ),
        };
      }
      const result = await forwarder.forward(a.forward_to, body, headers);
      const s = summarize(body, a.evento);
      const entry: JournalEntry = {
        id: newEntryId(),
        received_at: new Date().toISOString(),
        source: original ? 'replay' : 'trigger',
        ...(original ? { replay_of: original.id } : {}),
        method: 'POST',
        path: original?.path ?? new URL(a.forward_to).pathname,
        headers: Object.fromEntries(
          Object.entries(headers).filter(([k]) => k === 'content-type' || k.startsWith('x-svc-')),
        ),
        body: body.toString('utf8'),
        body_encoding: 'utf8',
        bytes: body.length,
        event: s.event,
        cobro_id: s.cobro_id,
        estado: s.estado,
        monto: s.monto,
        verification: { valid: true },
        outcome: result.status === null ? 'unreachable' : result.ok ? 'forwarded' : 'target_error',
        target: maskTarget(a.forward_to),
        status: result.status,
        answered: null,
        latency_ms: result.latencyMs,
        ...(result.error ? { error: result.error } : {}),
      };
      if (original)
        Object.assign(entry, { body: original.body, body_encoding: original.body_encoding });
      const response = keptResponse(result);
      if (response) entry.response = response;
      await journal
        ?.append(entry)
        .catch((err: Error) => ctx.io.err(ctx.io.c.yellow(`aviso: ${err.message}`)));
      done({
        accion: a,
        resultado: result.status === null ? 'sin_respuesta' : result.ok ? 'enviado' : 'rechazado',
        status: result.status,
        ...(result.status === null ? { detalle: result.error ?? 'sin respuesta' } : {}),
      });
    }
  } finally {
    await journal?.close().catch(() => undefined);
    await forwarder.close();
  }
  return out;
}

/** One line per action as it is done: what, where, and what the app answered. */
export function envioLine(ctx: Context, e: Envio): string {
  const { c } = ctx.io;
  const a = e.accion;
  const what =
    a.accion === 'replay' ? `${a.evento} (replay ${a.evento_id})` : `${a.evento} (trigger)`;
  const mark =
    e.resultado === 'enviado'
      ? c.green('✓')
      : e.resultado === 'al_dia'
        ? c.dim('=')
        : e.resultado === 'cambio' || e.resultado === 'sin_evento'
          ? c.yellow('–')
          : c.red('✗');
  const tail =
    e.status !== null
      ? `→ ${shown(maskTarget(a.forward_to))} ${e.resultado === 'enviado' ? c.green(String(e.status)) : c.red(String(e.status))}`
      : (e.detalle ?? '');
  return `${mark} cobro ${a.cobro_id} ${what} ${tail}`;
}

/** The closing sentence of an apply, and how it ends. */
export function applied(envios: readonly Envio[]): { text: string; exit?: CliError } {
  const n = (r: Resultado) => envios.filter((e) => e.resultado === r).length;
  const sent = n('enviado') + n('rechazado') + n('sin_respuesta');
  const parts = [
    `${count(sent, 'notificación enviada', 'notificaciones enviadas')}${sent ? `, ${n('enviado')} aceptada${n('enviado') === 1 ? '' : 's'} por tu app` : ''}`,
    ...(n('al_dia') ? [`${n('al_dia')} ya estaba${n('al_dia') === 1 ? '' : 'n'} al día`] : []),
    ...(n('cambio')
      ? [`${count(n('cambio'), 'cobro cambió', 'cobros cambiaron')} desde el plan`]
      : []),
    ...(n('sin_evento') ? [`${n('sin_evento')} sin su evento en el journal`] : []),
  ];
  const text = parts.join('; ');
  if (n('sin_respuesta'))
    return {
      text,
      exit: new CliError(`${n('sin_respuesta')} de ${sent} no llegaron a tu app`, {
        exit: EXIT.network,
        code: 'app_unreachable',
        hint: '¿está corriendo tu app? Aplicá el mismo plan de nuevo: manda solo lo que falta',
      }),
    };
  if (n('rechazado'))
    return {
      text,
      exit: new CliError(`tu app respondió con error a ${n('rechazado')} de ${sent}`, {
        exit: EXIT.refused,
        code: 'app_refused',
        hint: 'svc webhook eventos muestra qué respondió; aplicá el mismo plan de nuevo cuando esté arreglada',
      }),
    };
  if (n('cambio') || n('sin_evento'))
    return {
      text,
      exit: new CliError('parte del plan ya no vale: no se envió', {
        exit: EXIT.refused,
        code: 'plan_stale',
        hint: 'corré svc webhook conciliar para ver lo que falta ahora',
      }),
    };
  return { text };
}
