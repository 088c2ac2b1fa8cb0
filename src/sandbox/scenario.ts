// Scenarios: a sandbox that starts with a known state (`svc sandbox --escenario FILE`)
// and the state of a running one written in the same form (`svc sandbox escenario
// exportar`), so a state reached by hand can be saved and replayed. A scenario is
// applied through the sandbox's own HTTP API, request by request, as an app and a
// payer would: fees, settlements and notifications come out exactly as they would.
import * as z from 'zod/mini';
import type { Cobro, Devolucion, Transaccion } from '../api/schemas.js';
import { MEDIOS, isKnown } from '../api/enums.js';
import { notJson } from '../text.js';
import { duplicateKey, MAX_NESTING, nestedTooDeep } from '../json-keys.js';
import { isAmount } from '../domain/money.js';
import { dateInstant } from '../domain/dates.js';
import { MAX_ADVANCE_MS, parseDuration } from './time.js';

const Monto = z.string().check(z.refine(isAmount, 'un monto decimal como "1500.00"'));

const Pago = z.strictObject({ medio: z.enum(MEDIOS), monto: z.optional(Monto) });
const Devol = z.strictObject({
  monto: Monto,
  transaccion: z.optional(z.int().check(z.minimum(0))),
});
const CobroEsc = z.strictObject({
  /** The id and code it had where it was exported from: kept, so the lists are the same. */
  id: z.optional(z.int().check(z.positive())),
  codigo: z.optional(z.string()),
  /** The live rehearsal merchant's (made with its key); absent: the ready test merchant's. */
  comercio: z.optional(z.literal('ensayo')),
  /**
   * How long before the sandbox starts the request was made, paid, rejected, expired
   * and refunded (a duration as `reloj avanzar` takes: 30d, 1d12h); absent: at start.
   */
  hace: z.optional(z.string()),
  concepto: z.string().check(z.minLength(1)),
  monto: Monto,
  referencia: z.optional(z.string()),
  vencimiento: z.optional(z.string()),
  tarjeta: z.optional(z.boolean()),
  qr: z.optional(z.boolean()),
  transferencia: z.optional(z.boolean()),
  pagos: z.optional(z.array(Pago)),
  rechazar: z.optional(z.literal(true)),
  expirar: z.optional(z.literal(true)),
  devoluciones: z.optional(z.array(Devol)),
});
export const Scenario = z.strictObject({ cobros: z.array(CobroEsc) });
export type Scenario = z.infer<typeof Scenario>;
export type CobroEscenario = z.infer<typeof CobroEsc>;

/** A path as a person writes it: cobros[1].pagos[0].monto. */
function pathOf(path: readonly PropertyKey[]): string {
  return (
    path
      .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`))
      .join('') || '(raíz)'
  );
}

export class ScenarioError extends Error {
  override name = 'ScenarioError';
}

/** The scenario in `text`, or a ScenarioError naming the first bad field by its path. */
export function parseScenario(text: string): Scenario {
  const deep = nestedTooDeep(text);
  if (deep !== null)
    throw new ScenarioError(`anida más de ${MAX_NESTING} niveles de [ y { (línea ${deep})`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ScenarioError(notJson(err, text));
  }
  // JSON.parse keeps the last of two equal keys: a scenario must say one thing.
  const twice = duplicateKey(text, value);
  if (twice)
    throw new ScenarioError(
      `${twice.path} aparece dos veces (${twice.lines[0] === twice.lines[1] ? `línea ${twice.lines[0]}` : `líneas ${twice.lines[0]} y ${twice.lines[1]}`})`,
    );
  // reportInput: a value of the wrong type ("monto": 10) is told apart from one left out.
  const r = Scenario.safeParse(value, { reportInput: true });
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const what =
      issue.code === 'invalid_type'
        ? issue.input === undefined
          ? `falta (${issue.expected})`
          : `se esperaba ${issue.expected}`
        : issue.code === 'invalid_value'
          ? `no es ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`
          : issue.code === 'unrecognized_keys'
            ? `campo desconocido: ${issue.keys.join(', ')}`
            : issue.message;
    throw new ScenarioError(`${pathOf(issue.path)}: ${what}`);
  }
  let lastId = 0;
  let lastHace = Infinity;
  for (const [i, c] of r.data.cobros.entries()) {
    const hace = haceMs(c);
    if (Number.isNaN(hace))
      throw new ScenarioError(
        `cobros[${i}].hace: "${c.hace}" no es una duración (ej. 30d, 12h, 1d12h; hasta 3650d)`,
      );
    if (hace > lastHace)
      throw new ScenarioError(
        `cobros[${i}].hace: ${c.hace} es antes que el cobro anterior; los cobros van del más viejo al más nuevo`,
      );
    lastHace = hace;
    if ((c.id === undefined) !== (c.codigo === undefined))
      throw new ScenarioError(`cobros[${i}]: id y codigo van juntos (los dos o ninguno)`);
    if (c.id !== undefined) {
      if (c.id <= lastId)
        throw new ScenarioError(
          `cobros[${i}].id: ${c.id} no sigue al anterior (${lastId}); los cobros van en el orden de sus ids`,
        );
      lastId = c.id;
    }
    if (c.rechazar && c.expirar)
      throw new ScenarioError(`cobros[${i}]: rechazar o expirar, no los dos`);
    for (const [j, d] of (c.devoluciones ?? []).entries()) {
      if (d.transaccion !== undefined && d.transaccion >= (c.pagos ?? []).length) {
        throw new ScenarioError(
          `cobros[${i}].devoluciones[${j}].transaccion: no hay pagos[${d.transaccion}] en ese cobro`,
        );
      }
    }
  }
  return r.data;
}

/** How long before the start a scenario's request happens, ms (0: at start; NaN: not a duration). */
export function haceMs(c: CobroEscenario): number {
  if (c.hace === undefined) return 0;
  return parseDuration(c.hace) ?? Number.NaN;
}

/** Sends one request with the key of the scenario's merchant (`ensayo`: the live rehearsal one). */
type Call = (
  method: string,
  path: string,
  body: unknown,
  comercio: 'ensayo' | undefined,
) => Promise<{
  status: number;
  body: { data?: unknown; message?: string };
  headers?: Record<string, string | string[] | undefined>;
}>;

/**
 * Applies a scenario through the sandbox's API (`call` sends one request with the
 * merchant's key). `vencimiento` is taken as `svc cobro crear --vencimiento` takes it
 * (`toIso` turns it into ISO 8601 with offset in the sandbox's zone). A step the
 * sandbox refuses stops it with the path of that step. `setBack(ms)` puts the sandbox's
 * clock that long before the start, before each request's steps (`hace`; 0 at the end).
 */
export async function applyScenario(
  s: Scenario,
  call: Call,
  toIso: (text: string) => string,
  setBack: (ms: number) => void = () => {},
): Promise<void> {
  for (const [i, c] of s.cobros.entries()) {
    const at = `cobros[${i}]`;
    setBack(haceMs(c));
    const send = async (where: string, method: string, path: string, body?: unknown) => {
      const r = await call(method, path, body, c.comercio);
      if (r.status >= 300)
        throw new ScenarioError(
          `${where}: el sandbox lo rechazó (HTTP ${r.status}: ${r.body.message ?? ''})`,
        );
      return r;
    };
    const step = async (where: string, method: string, path: string, body?: unknown) =>
      (await send(where, method, path, body)).body.data;
    let vencimiento: string | undefined;
    if (c.vencimiento !== undefined) {
      try {
        vencimiento = toIso(c.vencimiento);
      } catch (err) {
        throw new ScenarioError(`${at}.vencimiento: ${(err as Error).message}`);
      }
    }
    const body = {
      concepto: c.concepto,
      monto: c.monto,
      ...(c.referencia !== undefined ? { referencia: c.referencia } : {}),
      ...(vencimiento !== undefined ? { vencimiento } : {}),
      ...(c.tarjeta !== undefined ? { tarjeta: c.tarjeta } : {}),
      ...(c.qr !== undefined ? { qr: c.qr } : {}),
      ...(c.transferencia !== undefined ? { transferencia: c.transferencia } : {}),
    };
    // An exported id and code are kept through the control plane; else the API picks them.
    const cobro = (
      c.id !== undefined
        ? await step(at, 'POST', '/_sandbox/cobros', { ...body, id: c.id, codigo: c.codigo })
        : await step(at, 'POST', '/v1/cobros', body)
    ) as Cobro;
    // The transaction each payment made (pagos[k] -> txs[k]), as the sandbox says in its
    // answer: listing every transaction of the sandbox for each request made applying
    // a scenario quadratic (#28).
    const txs: number[] = [];
    for (const [j, p] of (c.pagos ?? []).entries()) {
      const r = await send(`${at}.pagos[${j}]`, 'POST', `/_sandbox/cobros/${cobro.id}/pagar`, {
        medio: p.medio,
        ...(p.monto !== undefined ? { monto: p.monto } : {}),
      });
      txs.push(Number(r.headers?.['x-sandbox-transaccion']));
    }
    if (c.rechazar)
      await step(`${at}.rechazar`, 'POST', `/_sandbox/cobros/${cobro.id}/rechazar`, {});
    if (c.expirar) await step(`${at}.expirar`, 'POST', `/_sandbox/cobros/${cobro.id}/expirar`, {});
    for (const [j, d] of (c.devoluciones ?? []).entries()) {
      const tx = d.transaccion === undefined ? undefined : txs[d.transaccion];
      if (tx !== undefined && !Number.isSafeInteger(tx))
        throw new ScenarioError(
          `${at}.devoluciones[${j}]: el sandbox no dijo qué transacción hizo pagos[${d.transaccion}]`,
        );
      await step(`${at}.devoluciones[${j}]`, 'POST', `/v1/cobros/${cobro.id}/devoluciones`, {
        monto: d.monto,
        ...(tx ? { transaccion_id: tx } : {}),
      });
    }
  }
}

/** One merchant's lists as the service sends them, for exportScenario. */
export interface MerchantLists {
  /** The live rehearsal merchant's (`comercio: "ensayo"`). */
  ensayo: boolean;
  cobros: Iterable<Cobro>;
  transacciones: Iterable<Transaccion>;
  devoluciones: Iterable<Devolucion>;
}

/** A duration as `hace` takes it, whole seconds (1d2h3m4s, parts that are 0 left out). */
export function durationText(ms: number): string {
  const s = Math.floor(ms / 1000);
  const parts: [number, string][] = [
    [Math.floor(s / 86_400), 'd'],
    [Math.floor(s / 3600) % 24, 'h'],
    [Math.floor(s / 60) % 60, 'm'],
    [s % 60, 's'],
  ];
  return parts
    .filter(([n]) => n > 0)
    .map(([n, unit]) => `${n}${unit}`)
    .join('');
}

/**
 * A running sandbox's state as a scenario: every merchant's requests in the order of
 * their ids, each with its id and code (so a sandbox started from it lists the same),
 * how long before `now` it was made (`hace`, to the second, for a request at least a
 * second old; its payments and refunds come back at that moment too), its payments,
 * how it ended and its refunds. A refund's transaction is not on the wire, so exported
 * refunds name none. A request keeps its vencimiento (local time in the sandbox's zone)
 * while it is ahead of `now`, the sandbox's clock as it writes its dates (`YYYY-MM-DD
 * HH:MM:SS` in `timeZone`, the sandbox's zone, so the two compare as text; Date.parse
 * would read them in this machine's zone): a date past cannot be given to a new request.
 */
export function exportScenario(
  merchants: MerchantLists[],
  now: string,
  timeZone: string,
): Scenario {
  const out: (CobroEscenario & { id: number; ago: number })[] = [];
  const nowMs = dateInstant(now, timeZone);
  for (const m of merchants) {
    const txs = [...m.transacciones].sort((a, b) => a.id - b.id);
    const devs = [...m.devoluciones].sort((a, b) => a.id - b.id);
    for (const c of m.cobros) {
      const mine = txs.filter((t) => t.cobro_id === c.id);
      // NaN (a date that is none) counts as made now: the request is kept, undated.
      const ago = Math.min(nowMs - dateInstant(c.created_at, timeZone), MAX_ADVANCE_MS);
      const e: CobroEscenario & { id: number; ago: number } = {
        id: c.id,
        codigo: c.codigo,
        ...(m.ensayo ? { comercio: 'ensayo' as const } : {}),
        ago: ago >= 1000 ? ago : 0,
        concepto: c.concepto,
        monto: c.monto,
      };
      if (c.referencia !== null) e.referencia = c.referencia;
      if (
        c.vencimiento !== null &&
        (c.estado === 'PENDIENTE' || c.estado === 'EN_PROCESO' || c.vencimiento > now)
      )
        e.vencimiento = c.vencimiento;
      if (!c.medios.tarjeta) e.tarjeta = false;
      if (!c.medios.qr) e.qr = false;
      if (!c.medios.transferencia) e.transferencia = false;
      // Read from the sandbox, which says only the seed's methods; another's are left out.
      const pagos = mine
        .filter((t) => t.estado === 'ACREDITADO')
        .flatMap((t) => (isKnown(t.medio, MEDIOS) ? [{ medio: t.medio, monto: t.monto }] : []));
      if (pagos.length) e.pagos = pagos;
      if (mine.some((t) => t.estado === 'RECHAZADO')) e.rechazar = true;
      else if (c.estado === 'CANCELADO') e.expirar = true;
      const refunds = devs.filter((d) => d.cobro_id === c.id).map((d) => ({ monto: d.monto }));
      if (refunds.length) e.devoluciones = refunds;
      out.push(e);
    }
  }
  // Requests go oldest first: one dated before the request made ahead of it (ids come
  // from one counter, so only across a change of the clock) takes that one's moment.
  let newest = Infinity;
  const cobros = out
    .sort((a, b) => a.id - b.id)
    .map(({ ago, id, codigo, comercio, ...rest }): CobroEscenario => {
      newest = Math.min(newest, ago);
      const hace = durationText(newest);
      return { id, codigo, ...(comercio ? { comercio } : {}), ...(hace ? { hace } : {}), ...rest };
    });
  return { cobros };
}
