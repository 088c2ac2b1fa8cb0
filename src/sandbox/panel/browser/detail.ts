// One payment request whole: its data, transactions, refunds, settlement estimates,
// events and delivery attempts, and the payer's moves (pay, start, reject, expire).
import { amountOf, clearForRetyping, showReading } from './amounts.js';
import { call, latest } from './calls.js';
import { loadCobros, renderCobros, selectCobro, selectedCobro } from './cobro-list.js';
import { $, badge, cell, clear, el, fill, input, select, text } from './dom.js';
import { notify, zoneBox } from './messages.js';
import { DATA, has } from './page-data.js';
import { answer } from './deliveries.js';
import type { Cobro, Detalle } from './wire.js';

let detail: Detalle | null = null;
/** The name of each medio (GET /v1/cargos), filled when the page connects. */
export const medioLabels: Record<string, string> = {};

/** The request shown, as last read. */
export const shownDetail = () => detail;

/** What opening a request resets beside it (refund.ts: a refund under review). */
let onOpen: () => void = () => {};
export function whenDetailOpens(fn: () => void): void {
  onOpen = fn;
}

export async function openDetail(id: number): Promise<void> {
  selectCobro(id);
  onOpen();
  await reloadDetail();
  renderCobros();
  $('detalle').hidden = false;
  $('detalle-t').focus();
}

export function closeDetail(): void {
  selectCobro(null);
  detail = null;
  $('detalle').hidden = true;
  renderCobros();
  const first = $('lista-cobros').querySelector('button');
  (first ?? $('cobros-t')).focus();
}

export async function reloadDetail(): Promise<void> {
  const id = selectedCobro();
  if (id === null) return;
  const r = await latest('detalle', () => call<Detalle>('GET', `/_sandbox/cobros/${id}`));
  if (!r || selectedCobro() !== id) return;
  detail = r.v;
  renderDetail();
}

function mediosOf(c: Cobro): string[] {
  const out: string[] = [];
  if (c.medios.transferencia) out.push('transferencia');
  if (c.medios.qr) out.push('qr');
  if (c.medios.tarjeta) out.push('debito', 'credito', 'prepaga');
  return out;
}

function renderData(d: Detalle): void {
  const c = d.cobro;
  text($('detalle-t'), `Cobro ${c.id} · ${c.codigo}`);
  const dl = $('detalle-datos');
  clear(dl);
  const pairs: [string, string][] = [
    ['Concepto', c.concepto],
    ['Estado', c.estado],
    ['Monto', c.monto],
    ['Cobrado', c.monto_cobrado],
    ['Queda por devolver', d.queda_por_devolver],
    ['Referencia', c.referencia ?? '—'],
    ['Medios', mediosOf(c).join(', ')],
    ['Vence', c.vencimiento ?? '—'],
    ['CVU', c.cvu ?? '—'],
    ['Creado', c.created_at],
    ['Actualizado', c.updated_at],
  ];
  for (const [label, value] of pairs) {
    dl.appendChild(el('dt', '', label));
    const dd = el('dd');
    if (label === 'Estado') dd.appendChild(badge(value));
    else text(dd, value);
    dl.appendChild(dd);
  }
  const a = $('detalle-url') as HTMLAnchorElement;
  if (/^https?:\/\//.test(c.url)) {
    a.href = c.url;
    a.hidden = false;
  } else {
    a.removeAttribute('href');
    a.hidden = true;
  }
}

/** The payer's moves this state admits, and the medios this request takes. */
function renderMoves(c: Cobro): void {
  const open = has(DATA.open, c.estado);
  $('form-pagar').hidden = !has(DATA.payable, c.estado);
  $('btn-rechazar').hidden = !open;
  $('btn-iniciar').hidden = c.estado !== 'PENDIENTE';
  $('btn-expirar').hidden = !open;
  const sel = select('pagar-medio');
  const was = sel.value;
  clear(sel);
  for (const m of mediosOf(c)) {
    const o = el('option', '', medioLabels[m] ?? m);
    o.value = m;
    sel.appendChild(o);
  }
  if (was && mediosOf(c).includes(was)) sel.value = was;
}

/** The refund form: what is left, and the credited transactions to refund against. */
function renderRefundForm(d: Detalle): void {
  const c = d.cobro;
  $('form-devolver').hidden = !has(DATA.refundable, c.estado);
  text(
    $('devolver-queda'),
    `Cobrado ${c.monto_cobrado} · queda por devolver ${d.queda_por_devolver} (se comprueba otra vez antes de enviar, como svc devolver).`,
  );
  const tx = select('devolver-tx');
  const txWas = tx.value;
  clear(tx);
  const none = el('option', '', 'Ninguna: sobre el cobro');
  none.value = '';
  tx.appendChild(none);
  for (const t of d.transacciones) {
    if (t.estado !== 'ACREDITADO') continue;
    const o = el('option', '', `Nº ${t.id} · ${t.medio} · ${t.monto}`);
    o.value = String(t.id);
    tx.appendChild(o);
  }
  tx.value = txWas;
  if (tx.value !== txWas) tx.value = '';
}

function renderTables(d: Detalle): void {
  fill($('t-tx'), d.transacciones, 7, (tr, t) => {
    cell(tr, t.id, 'n');
    cell(tr, t.medio);
    cell(tr, t.monto, 'n');
    cell(tr, t.te_queda, 'n');
    cell(tr, t.estado);
    cell(tr, t.codigo, 'code');
    cell(tr, t.fecha);
  });
  fill($('t-dev'), d.devoluciones, 5, (tr, x) => {
    cell(tr, x.id, 'n');
    cell(tr, x.monto, 'n');
    cell(tr, x.tipo);
    cell(tr, x.estado);
    cell(tr, x.created_at);
  });
  fill($('t-liq'), d.liquidaciones, 5, (tr, l) => {
    cell(tr, l.id, 'n');
    cell(tr, l.bruto, 'n');
    cell(tr, l.te_cobramos, 'n');
    cell(tr, l.te_queda, 'n');
    cell(tr, l.fecha_estimada);
  });
  fill($('t-ev'), d.eventos, 5, (tr, e) => {
    cell(tr, e.id, 'n');
    cell(tr, e.body.event, 'code');
    cell(tr, e.body.estado);
    cell(tr, e.body.monto_cobrado, 'n');
    cell(tr, e.fecha);
  });
  fill($('t-ent'), d.entregas, 6, (tr, e) => {
    cell(tr, e.id, 'n');
    cell(tr, e.event + (e.reenvio ? ' (reenvío)' : ''), 'code');
    cell(tr, e.intento, 'n');
    cell(tr, answer(e));
    cell(tr, `${e.latencia_ms} ms`, 'n');
    cell(tr, e.fecha);
  });
}

function renderDetail(): void {
  const d = detail!;
  renderData(d);
  renderMoves(d.cobro);
  renderRefundForm(d);
  renderTables(d);
}

/** A payer's move on the selected request (/_sandbox/cobros/{id}/{move}). */
export async function movePayer(move: string, body: Record<string, string> = {}): Promise<void> {
  const id = selectedCobro();
  const c = await call<Cobro>('POST', `/_sandbox/cobros/${id}/${move}`, body);
  notify(`Cobro ${c.id}: ${c.estado} (cobrado ${c.monto_cobrado}).`, zoneBox($('form-pagar')));
  await Promise.all([reloadDetail(), loadCobros()]);
}

export async function pay(ev: Event): Promise<void> {
  ev.preventDefault();
  const body: Record<string, string> = { medio: select('pagar-medio').value };
  const field = input('pagar-monto');
  if (field.value.trim()) {
    body.monto = amountOf(field);
    // The sandbox's refusal (more than what is left) empties the field too.
    await movePayer('pagar', body).catch((err: unknown) => {
      clearForRetyping(field);
      throw err;
    });
  } else {
    await movePayer('pagar', body);
  }
  field.value = '';
  showReading(field);
}
