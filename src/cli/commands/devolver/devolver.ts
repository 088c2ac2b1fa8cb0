// svc devolver <id> (--monto M | --total) [--transaccion T]: POST /v1/cobros/{id}/devoluciones,
// safely (PRODUCT.md §4). Before the POST: read the request and its refunds, show what is
// left, refuse locally what cannot fit, confirm (typing the amount in live mode). The POST
// is sent exactly once; a failure after sending is reported as an unknown outcome.
import type { Cobro, Devolucion, EstadoCobro, Transaccion } from '../../../api/schemas.js';
import { formatCents, parseAmount, sumAmounts, type Cents } from '../../../money.js';
import { colorState, printJson, printRecord } from '../../../output/format.js';
import { pairsOf } from '../../../output/resources.js';
import type { Context } from '../../context.js';
import { OutcomeUnknownError, UsageError } from '../../../errors.js';
import { outcomeUnknown, refundCheck, unknownOutcomeReason } from '../../outcome.js';
import type { OptionsOf } from '../../define.js';
import { parseId, parseMonto } from '../../parse.js';
import { describeRef, findCobro, parseCobroRef, sayMatches, type CobroRef } from '../../shared/find-cobro.js';
import type { devolverOptions } from './index.js';

type Options = OptionsOf<typeof devolverOptions>;
import { shown } from '../../../text.js';
import { REFUNDABLE as RULES_REFUNDABLE } from '../../../rules.js';

export const REFUNDABLE: readonly EstadoCobro[] = RULES_REFUNDABLE;

export interface RefundRequest {
  /** The request, by id, code or reference (shared/find-cobro.ts). */
  ref: CobroRef;
  /** Cents asked with --monto, or undefined with --total. */
  amount?: Cents;
  total: boolean;
  transaccion?: number;
}

/** Flags -> request, every problem a UsageError (exit 2) before any request. */
export function parseRefundFlags(args: string[], opts: Options): RefundRequest {
  const ref = parseCobroRef(args[0], opts.referencia);
  const total = opts.total === true;
  const hasMonto = opts.monto !== undefined;
  if (total && hasMonto) throw new UsageError('usá --monto o --total, no los dos');
  if (!total && !hasMonto) {
    throw new UsageError('falta cuánto devolver: --monto <monto> o --total', `ej. svc devolver ${args[0] ?? '42'} --monto 500.00`);
  }
  const amount = hasMonto ? parseMonto(opts.monto, '--monto', '500 o 500.50') : undefined;
  const transaccion = opts.transaccion === undefined ? undefined : parseId(opts.transaccion, '--transaccion');
  return { ref, amount, total, transaccion };
}

export interface RefundPlan {
  cobrado: Cents;
  refunded: Cents;
  refunds: number;
  left: Cents;
  amount: Cents;
}

/** What is left to refund and whether the amount fits; UsageError (exit 2) when it does not. */
export function planRefund(req: RefundRequest, cobro: Cobro, devoluciones: Devolucion[], tx?: Transaccion): RefundPlan {
  const mine = devoluciones.filter((d) => d.cobro_id === cobro.id);
  const cobrado = parseAmount(cobro.monto_cobrado);
  const refunded = sumAmounts(mine.map((d) => d.monto));
  const left = cobrado - refunded;
  if (!REFUNDABLE.includes(cobro.estado)) {
    const why = cobro.estado === 'DEVUELTA' ? ' (ya se devolvió todo)' : cobro.estado === 'CANCELADO' ? ' (no se cobró)' : ' (todavía no se cobró)';
    throw new UsageError(
      `el cobro ${cobro.id} está ${cobro.estado}${why}: no admite devoluciones; solo ${REFUNDABLE.join(', ')}`,
      `mirá el estado actual con svc sync ${cobro.id}`,
    );
  }
  if (left <= 0n) throw new UsageError(`al cobro ${cobro.id} no le queda nada por devolver (cobrado ${formatCents(cobrado)}, devuelto ${formatCents(refunded)})`);
  const amount = req.total ? left : req.amount!;
  if (amount > left) {
    throw new UsageError(
      `--monto ${formatCents(amount)} supera lo que queda por devolver del cobro ${cobro.id}: ${formatCents(left)}`,
      `para devolver todo lo que queda: svc devolver ${cobro.id} --total`,
    );
  }
  if (tx) {
    if (tx.cobro_id !== cobro.id) throw new UsageError(`la transacción ${tx.id} es del cobro ${tx.cobro_id}, no del ${cobro.id}`);
    if (tx.estado !== 'ACREDITADO') throw new UsageError(`la transacción ${tx.id} está ${tx.estado}: solo se devuelve sobre transacciones ACREDITADO`);
    if (amount > parseAmount(tx.monto)) {
      throw new UsageError(`${formatCents(amount)} supera el monto de la transacción ${tx.id} (${tx.monto})`);
    }
  }
  return { cobrado, refunded, refunds: mine.length, left, amount };
}

export function checkCommands(id: number): string {
  return refundCheck(id);
}

export async function run(ctx: Context, args: string[], opts: Options): Promise<void> {
  const { io, globals } = ctx;
  const req = parseRefundFlags(args, opts);
  const client = await ctx.client();
  const live = (await ctx.resolved()).mode === 'live';
  const dryRun = opts.dryRun === true;
  // Live without a terminal and without --yes: refused before reading anything (a dry run sends nothing).
  if (live && !dryRun && !globals.yes && !io.canPrompt) await ctx.guardChange(`devolver dinero de ${describeRef(req.ref)}`);

  const { cobro, devoluciones, tx } = await ctx
    .spin(`leyendo ${describeRef(req.ref)}…`, async () => {
      const [c, d, t] = await Promise.all([
        findCobro(client, req.ref),
        client.listarDevoluciones(),
        req.transaccion === undefined ? undefined : client.verTransaccion(req.transaccion),
      ]);
      return { cobro: c, devoluciones: d.data.data, tx: t?.data.data };
    })
    .catch((err: unknown) => {
      throw sayMatches(ctx, err);
    });

  showSummary(ctx, cobro, devoluciones);
  const plan = planRefund(req, cobro, devoluciones, tx);
  const monto = formatCents(plan.amount);
  io.err(`${io.c.bold('a devolver:')}     ${monto}${req.transaccion !== undefined ? ` (sobre la transacción ${req.transaccion})` : ''}`);

  if (dryRun) {
    // Every local check passed: this is what would be sent, and nothing is.
    const would = { cobro_id: cobro.id, codigo: cobro.codigo, monto, transaccion_id: req.transaccion ?? null, queda_despues: formatCents(plan.left - plan.amount) };
    if (globals.json) printJson(io, would);
    io.err(io.c.dim(`prueba (--dry-run): la devolución de ${monto} del cobro ${cobro.id} pasa los controles de svc; no se envió nada`));
    return;
  }

  if (!globals.yes && io.canPrompt) {
    if (live) {
      await ctx.confirmTyped(`MODO LIVE: para devolver ${monto} del cobro ${cobro.id} escribí el monto (${monto}):`, monto);
    } else {
      await ctx.confirm(`¿Devolver ${monto} del cobro ${cobro.id} (${shown(cobro.codigo, 40)})?`);
    }
  }

  let refund: Devolucion;
  try {
    const body = req.transaccion === undefined ? { monto } : { monto, transaccion_id: req.transaccion };
    refund = (await ctx.spin('devolviendo…', () => client.devolver(cobro.id, body))).data.data;
  } catch (err) {
    // Past sending, only the service's own refusal is a known outcome.
    if (outcomeUnknown(err)) {
      const check = checkCommands(cobro.id);
      throw new OutcomeUnknownError(
        `la devolución de ${monto} del cobro ${cobro.id} puede haberse hecho o no (${unknownOutcomeReason(err)}); no la repitas sin verificar` +
          (globals.json ? `. Para verificar: ${check}` : ''),
        check,
      );
    }
    throw err;
  }

  if (globals.json) {
    printJson(io, refund);
  } else {
    printRecord(io, pairsOf(refund));
  }
  const leftAfter = plan.left - parseAmount(refund.monto);
  io.err(io.c.dim(`devuelto ${shown(refund.monto)}; queda por devolver ${formatCents(leftAfter)}; estado del cobro: ${shown(refund.estado)}`));
}

function showSummary(ctx: Context, cobro: Cobro, devoluciones: Devolucion[]): void {
  const { io } = ctx;
  const mine = devoluciones.filter((d) => d.cobro_id === cobro.id);
  const refunded = sumAmounts(mine.map((d) => d.monto));
  const left = parseAmount(cobro.monto_cobrado) - refunded;
  const rows: [string, string][] = [
    ['cobro', `${cobro.id} (${shown(cobro.codigo, 40)}) ${shown(cobro.concepto)}`],
    ['estado', colorState(cobro.estado, io.c)],
    ['monto', shown(cobro.monto)],
    ['monto_cobrado', shown(cobro.monto_cobrado)],
    ['ya devuelto', `${formatCents(refunded)}${mine.length ? ` (${mine.length} ${mine.length === 1 ? 'devolución' : 'devoluciones'})` : ''}`],
    ['queda', formatCents(left < 0n ? 0n : left)],
  ];
  for (const [k, v] of rows) io.err(`${io.c.dim(k.padEnd(14))} ${v}`);
}
