// A refund from the dashboard: the checks of svc devolver, then a confirmation, then one
// POST. What is left is read again before the question.
import { cents, clearForRetyping, showReading, typedAmount } from './amounts.js';
import { call } from './calls.js';
import { loadCobros, selectedCobro } from './cobro-list.js';
import { reloadDetail, shownDetail } from './detail.js';
import { $, input, select, text } from './dom.js';
import { notify, zoneBox } from './messages.js';
import { DATA, has } from './page-data.js';
import { TYPED_AMOUNT_HINT } from '../../../domain/money.js';
import type { Detalle, Devolucion, Transaccion } from './wire.js';

/** A refund checked and waiting for its confirmation. */
interface Review {
  id: number;
  codigo: string;
  monto: string;
  tx: number | null;
  queda: string;
}
let review: Review | null = null;

/** Drops a refund under review, unsent. */
export function dropReview(): void {
  review = null;
  $('devolver-confirmar').hidden = true;
}

export function planDevolucion(d: Detalle, typed: string, total: boolean, txId: string): Review {
  const c = d.cobro;
  if (!has(DATA.refundable, c.estado)) {
    const why =
      c.estado === 'DEVUELTA'
        ? ' (ya se devolvió todo)'
        : c.estado === 'CANCELADO'
          ? ' (no se cobró)'
          : ' (todavía no se cobró)';
    throw new Error(
      `El cobro ${c.id} está ${c.estado}${why}: no admite devoluciones; solo ${DATA.refundable.join(', ')}.`,
    );
  }
  const left = cents(d.queda_por_devolver);
  if (left <= 0n)
    throw new Error(`Al cobro ${c.id} no le queda nada por devolver (cobrado ${c.monto_cobrado}).`);
  if (!total && !typed)
    throw new Error(
      `Escribí cuánto devolver (${TYPED_AMOUNT_HINT}), o tocá «Devolver todo lo que queda».`,
    );
  const monto = total ? d.queda_por_devolver : typedAmount(typed);
  const amount = cents(monto);
  if (amount > left)
    throw new Error(
      `El monto ${monto} supera lo que queda por devolver del cobro ${c.id}: ${d.queda_por_devolver}.`,
    );
  let tx: Transaccion | undefined;
  if (txId) {
    tx = d.transacciones.find((t) => String(t.id) === txId);
    if (!tx) throw new Error(`La transacción ${txId} no es del cobro ${c.id}.`);
    if (tx.estado !== 'ACREDITADO')
      throw new Error(
        `La transacción ${tx.id} está ${tx.estado}: solo se devuelve sobre transacciones ACREDITADO.`,
      );
    if (amount > cents(tx.monto))
      throw new Error(`${monto} supera el monto de la transacción ${tx.id} (${tx.monto}).`);
  }
  return { id: c.id, codigo: c.codigo, monto, tx: tx ? tx.id : null, queda: d.queda_por_devolver };
}

export async function reviewDevolucion(total: boolean): Promise<void> {
  dropReview();
  await reloadDetail();
  const field = input('devolver-monto');
  let plan: Review;
  try {
    plan = planDevolucion(shownDetail()!, field.value.trim(), total, select('devolver-tx').value);
  } catch (err) {
    // A refused amount is emptied for retyping (amounts.ts); the refusal quotes it.
    if (!total && field.value.trim()) clearForRetyping(field);
    throw err;
  }
  review = plan;
  text(
    $('devolver-pregunta'),
    `¿Devolver ${plan.monto} del cobro ${plan.id} (${plan.codigo})${plan.tx ? ` sobre la transacción ${plan.tx}` : ''}? Queda por devolver ${plan.queda}.`,
  );
  $('devolver-confirmar').hidden = false;
  $('devolver-si').focus();
}

export async function confirmDevolucion(): Promise<void> {
  const plan = review;
  if (!plan || plan.id !== selectedCobro()) return;
  dropReview();
  const body: Record<string, string | number> = { monto: plan.monto };
  if (plan.tx !== null) body.transaccion_id = plan.tx;
  const d = await call<Devolucion>('POST', `/v1/cobros/${plan.id}/devoluciones`, body);
  input('devolver-monto').value = '';
  showReading(input('devolver-monto'));
  await Promise.all([reloadDetail(), loadCobros()]);
  const shown = shownDetail();
  notify(
    `Devolución ${d.id}: devuelto ${d.monto} (${d.tipo}); estado del cobro: ${d.estado}; queda por devolver ${shown ? shown.queda_por_devolver : '?'}.`,
    zoneBox($('form-devolver')),
  );
}

export function cancelDevolucion(): void {
  dropReview();
  notify('Devolución cancelada: no se envió nada.', zoneBox($('form-devolver')));
}
