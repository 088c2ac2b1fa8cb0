// The dashboard's script: a browser module, type-checked with the DOM's types
// (tsconfig.json here) and bundled by src/build/bundle.mjs into dist/panel/panel.js,
// which page.ts serves inline, allowed by its hash. No framework. Every value from the
// sandbox reaches the page through textContent or a property (never HTML), so a
// concept holding markup is shown as text. It calls the sandbox's own routes (/v1/…
// and /_sandbox/…) with the key the user pasted, kept in this tab's sessionStorage;
// one fetch-read stream of server-sent events (/_sandbox/stream, which needs the key
// in a header, so not EventSource) brings new events, delivery attempts and log
// lines. Amounts stay the service's strings; a typed one is read by money.ts as svc's
// prompts and the checkout read it, and a refund compares cents, never floats.
import type { EstadoCobro } from '../../../api/enums.js';
import {
  AmountError,
  formatCents,
  isAmount,
  parseAmount,
  parseTypedAmount,
  TYPED_AMOUNT_HINT,
  type Cents,
} from '../../../money.js';
import { KEY_RE } from '../../../rules.js';
import type { PanelData } from './data.js';

// The service's states and the sandbox's faults, as page.ts wrote them into the page (data.ts).
const DATA = JSON.parse(document.getElementById('panel-datos')!.textContent!) as PanelData;
const STORE = 'svc-panel-clave';
const MAX_ROWS = 200;
const MAX_LOG = 300;
// Rows of a long list shown at once (the pagers of page.ts): the page stays short enough
// that every section is a click away and none is pushed thousands of pixels down.
const PAGE = { cobros: 15, notif: 15 };
type Paged = keyof typeof PAGE;

// ---- what the sandbox answers (the fields the page reads) ----
interface Medios {
  transferencia: boolean;
  qr: boolean;
  tarjeta: boolean;
}
interface Cobro {
  id: number;
  codigo: string;
  concepto: string;
  estado: EstadoCobro;
  monto: string;
  monto_cobrado: string;
  referencia: string | null;
  medios: Medios;
  vencimiento: string | null;
  cvu: string | null;
  url: string;
  created_at: string;
  updated_at: string;
}
interface Transaccion {
  id: number;
  medio: string;
  monto: string;
  te_queda: string;
  estado: string;
  codigo: string;
  fecha: string;
}
interface Devolucion {
  id: number;
  monto: string;
  tipo: string;
  estado: string;
  created_at: string;
}
interface Liquidacion {
  id: number;
  bruto: string;
  te_cobramos: string;
  te_queda: string;
  fecha_estimada: string;
}
interface Evento {
  id: number;
  fecha: string;
  body: { event: string; estado: string; monto_cobrado: string; cobro_id: number };
}
interface Entrega {
  id: number;
  event: string;
  evento_id: number;
  cobro_id: number;
  intento: number;
  status: number | null;
  ok: boolean;
  error?: string | null;
  latencia_ms: number;
  fecha: string;
  reenvio: boolean;
}
interface Detalle {
  cobro: Cobro;
  queda_por_devolver: string;
  transacciones: Transaccion[];
  devoluciones: Devolucion[];
  liquidaciones: Liquidacion[];
  eventos: Evento[];
  entregas: Entrega[];
}
interface LineaLog {
  id: number;
  fecha: string;
  method: string;
  path: string;
  status: number | null;
  ms: number;
  comercio: number | null;
  ensayo?: boolean;
}
interface Falla {
  id: number;
  method: string;
  path: string;
  action: string;
  status: number | null;
  delay_ms: number;
  count: number;
}
interface Reloj {
  ahora: string;
  tz: string;
  adelanto_ms: number;
  vencidos: number[];
  reintentos: number;
}
interface Plan {
  id: number;
  codigo: string;
  monto: string;
  tx: number | null;
  queda: string;
}
interface WithId {
  id: number;
}

const S = {
  cobros: [] as Cobro[],
  entregas: [] as Entrega[],
  log: [] as LineaLog[],
  sel: null as number | null,
  det: null as Detalle | null,
  labels: {} as Record<string, string>,
  plan: null as Plan | null,
  seq: {} as Record<string, number>,
  timers: {} as Record<string, ReturnType<typeof setTimeout>>,
  pag: { cobros: 0, notif: 0 } as Record<Paged, number>,
  quien: '',
};

function $(id: string): HTMLElement {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no #${id}`);
  return node;
}
const input = (id: string) => $(id) as HTMLInputElement;
const select = (id: string) => $(id) as HTMLSelectElement;
const button = (id: string) => $(id) as HTMLButtonElement;

function text<T extends Node>(node: T, value: unknown): T {
  node.textContent = value === null || value === undefined ? '' : String(value);
  return node;
}
function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  cls?: string,
  value?: unknown,
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (value !== undefined) text(e, value);
  return e;
}
function clear(node: Node): void {
  while (node.firstChild) node.removeChild(node.firstChild);
}
function clave(): string {
  try {
    return sessionStorage.getItem(STORE) ?? '';
  } catch {
    return '';
  }
}

// An outcome shows in the message box of the zone ([data-zona], page.ts) of the control
// that caused it, beside its form; what no control caused (a live update that failed)
// shows in the bar that stays on screen. One outcome at a time: a new one clears the rest.
function cajaDe(node: Element | null): HTMLElement {
  const z = node?.closest('[data-zona]') ?? $('barra');
  return z.querySelector('.msgs') as HTMLElement;
}
function mostrar(caja: HTMLElement | undefined, cls: string, msg: string): void {
  document.querySelectorAll('.msgs .msg').forEach((m) => text(m, ''));
  text((caja ?? cajaDe(null)).querySelector(cls)!, msg);
}
function avisar(msg: string, caja?: HTMLElement): void {
  mostrar(caja, '.ok', msg);
}
function fallar(err: unknown, caja?: HTMLElement): void {
  mostrar(caja, '.err', err instanceof Error ? err.message : String(err));
}
/** fallar, in the box of node's zone. */
const fallaEn = (node: Element) => (err: unknown) => fallar(err, cajaDe(node));

/** The rows of list on page name (S.pag), and its pager set: hidden when one page holds them all. */
function paginar<T>(name: Paged, list: T[]): T[] {
  const size = PAGE[name];
  const pages = Math.max(1, Math.ceil(list.length / size));
  if (S.pag[name] >= pages) S.pag[name] = pages - 1;
  const from = S.pag[name] * size;
  const rows = list.slice(from, from + size);
  $(`${name}-pager`).hidden = pages <= 1;
  button(`${name}-nuevos`).disabled = S.pag[name] === 0;
  button(`${name}-viejos`).disabled = S.pag[name] >= pages - 1;
  text(
    $(`${name}-pagina`),
    rows.length ? `${from + 1}–${from + rows.length} de ${list.length}` : '',
  );
  return rows;
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  return { Authorization: `Bearer ${clave()}`, 'X-Svc-Panel': '1', ...extra };
}

class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: headers(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'omit',
      redirect: 'error',
    });
  } catch {
    throw new Error('No se pudo hablar con el sandbox: ¿sigue corriendo?');
  }
  const raw = await res.text();
  let json: { data?: unknown; message?: unknown; error?: unknown } | null = null;
  try {
    json = JSON.parse(raw);
  } catch {
    json = null;
  }
  if (!res.ok) {
    const why = json && typeof json.message === 'string' ? json.message : raw.slice(0, 200);
    const err = new ApiError(
      `El sandbox respondió ${res.status}${json && json.error ? ` ${String(json.error)}` : ''}: ${why}`,
      res.status,
    );
    if (res.status === 401) desconectar(`El sandbox no aceptó la clave: ${why}.`);
    throw err;
  }
  return (json ? json.data : null) as T;
}

function soon(name: string, fn: () => Promise<unknown>, ms = 120): void {
  clearTimeout(S.timers[name]);
  S.timers[name] = setTimeout(() => {
    fn().catch((err: unknown) => fallar(err));
  }, ms);
}

/** Runs fn and drops its result when a newer call of the same name started meanwhile. */
async function latest<T>(name: string, fn: () => Promise<T>): Promise<{ v: T } | null> {
  const n = (S.seq[name] ?? 0) + 1;
  S.seq[name] = n;
  const v = await fn();
  return S.seq[name] === n ? { v } : null;
}

/** Cents of an amount the sandbox sent (always the API's notation; zero too). */
const cents = (s: string): Cents => parseAmount(s);

/**
 * An amount typed in a field, read as svc's prompts and the checkout read it
 * (money.ts parseTypedAmount: 1500,50 · 1.500,50 · 1500.50; 1.500 is refused naming
 * both readings), in the API's notation; the refusal is money.ts's own words.
 */
function tipeado(typed: string): string {
  return formatCents(parseTypedAmount(typed));
}

/**
 * Says under an amount field how it is read, as svc's prompts say it back
 * ("1.500,50 → 1500.50"), or why it is not an amount, while the person types.
 */
function lectura(field: HTMLInputElement): void {
  const out = $(`${field.id}-lectura`);
  const typed = field.value.trim();
  out.classList.remove('mal');
  if (!typed) return void text(out, '');
  try {
    const read = tipeado(typed);
    text(out, isAmount(typed) ? '' : `${typed} → ${read}`);
  } catch (err) {
    if (!(err instanceof AmountError)) throw err;
    out.classList.add('mal');
    text(out, err.message);
  }
}

function cell(tr: HTMLTableRowElement, value: unknown, cls?: string): HTMLTableCellElement {
  const td = el('td', cls, value);
  tr.appendChild(td);
  return td;
}
function fill<T>(
  tbody: HTMLElement,
  rows: T[],
  cols: number,
  render: (tr: HTMLTableRowElement, row: T) => void,
): void {
  clear(tbody);
  if (!rows.length) {
    const tr = el('tr');
    const td = el('td', 'muted', 'Sin registros');
    td.colSpan = cols;
    tr.appendChild(td);
    tbody.appendChild(tr);
    return;
  }
  for (const r of rows.slice(0, MAX_ROWS)) {
    const tr = el('tr');
    render(tr, r);
    tbody.appendChild(tr);
  }
}
function badge(estado: string): HTMLSpanElement {
  return el(
    'span',
    `estado ${(DATA.estados as readonly string[]).includes(estado) ? estado : ''}`,
    estado,
  );
}
function answer(e: Entrega): string {
  if (e.status !== null) return `${e.status}${e.ok ? ' ok' : ' falló'}`;
  return e.error || 'sin respuesta';
}
const has = (list: readonly string[], estado: string) => list.includes(estado);

// ---- payment requests ----
async function cargarCobros(): Promise<void> {
  const q = new URLSearchParams();
  if (select('filtro-estado').value) q.set('estado', select('filtro-estado').value);
  if (input('filtro-q').value.trim()) q.set('q', input('filtro-q').value.trim());
  const qs = q.toString();
  const r = await latest('cobros', () => api<Cobro[]>('GET', `/v1/cobros${qs ? `?${qs}` : ''}`));
  if (!r) return;
  S.cobros = r.v;
  pintarCobros();
}

function pintarCobros(): void {
  const ul = $('lista-cobros');
  clear(ul);
  const n = S.cobros.length;
  text(
    $('cobros-n'),
    n === 0 ? 'No hay cobros con ese filtro.' : `${n}${n === 1 ? ' cobro' : ' cobros'}`,
  );
  for (const c of paginar('cobros', S.cobros)) {
    const li = el('li', c.id === S.sel ? 'sel' : '');
    const b = el('button');
    b.type = 'button';
    b.dataset.id = String(c.id);
    if (c.id === S.sel) b.setAttribute('aria-current', 'true');
    b.appendChild(el('span', 'code', `#${c.id} ${c.codigo}`));
    b.appendChild(document.createTextNode(' '));
    b.appendChild(badge(c.estado));
    b.appendChild(el('br'));
    b.appendChild(el('span', '', c.concepto));
    b.appendChild(el('br'));
    b.appendChild(
      el(
        'small',
        'muted',
        `Monto ${c.monto} · cobrado ${c.monto_cobrado}${c.referencia ? ` · ref. ${c.referencia}` : ''} · ${c.created_at}`,
      ),
    );
    b.addEventListener('click', () => abrirDetalle(c.id).catch(fallaEn(b)));
    li.appendChild(b);
    ul.appendChild(li);
  }
}

async function crearCobro(ev: Event): Promise<void> {
  ev.preventDefault();
  const body: Record<string, string> = {
    concepto: input('crear-concepto').value,
    monto: tipeado(input('crear-monto').value),
  };
  const ref = input('crear-referencia').value.trim();
  if (ref) body.referencia = ref;
  const c = await api<Cobro>('POST', '/v1/cobros', body);
  ($('form-crear') as HTMLFormElement).reset();
  lectura(input('crear-monto'));
  S.pag.cobros = 0;
  // Said where the person is taken: the new request's detail.
  try {
    await cargarCobros();
    await abrirDetalle(c.id);
  } finally {
    avisar(`Cobro ${c.id} creado (${c.codigo}): ${c.monto}, ${c.estado}.`, cajaDe($('form-pagar')));
  }
}

// ---- one request ----
async function abrirDetalle(id: number): Promise<void> {
  S.sel = id;
  S.plan = null;
  $('devolver-confirmar').hidden = true;
  await recargarDetalle();
  pintarCobros();
  $('detalle').hidden = false;
  $('detalle-t').focus();
}

async function recargarDetalle(): Promise<void> {
  if (S.sel === null) return;
  const id = S.sel;
  const r = await latest('detalle', () => api<Detalle>('GET', `/_sandbox/cobros/${id}`));
  if (!r || S.sel !== id) return;
  S.det = r.v;
  pintarDetalle();
}

function mediosDe(c: Cobro): string[] {
  const out: string[] = [];
  if (c.medios.transferencia) out.push('transferencia');
  if (c.medios.qr) out.push('qr');
  if (c.medios.tarjeta) out.push('debito', 'credito', 'prepaga');
  return out;
}

function pintarDetalle(): void {
  const d = S.det!;
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
    ['Medios', mediosDe(c).join(', ')],
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

  const open = has(DATA.open, c.estado);
  $('form-pagar').hidden = !has(DATA.payable, c.estado);
  $('btn-rechazar').hidden = !open;
  $('btn-iniciar').hidden = c.estado !== 'PENDIENTE';
  $('btn-expirar').hidden = !open;
  const sel = select('pagar-medio');
  const was = sel.value;
  clear(sel);
  for (const m of mediosDe(c)) {
    const o = el('option', '', S.labels[m] ?? m);
    o.value = m;
    sel.appendChild(o);
  }
  if (was && mediosDe(c).includes(was)) sel.value = was;

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

async function mover(accion: string, body: Record<string, string> = {}): Promise<void> {
  const id = S.sel;
  const c = await api<Cobro>('POST', `/_sandbox/cobros/${id}/${accion}`, body);
  avisar(`Cobro ${c.id}: ${c.estado} (cobrado ${c.monto_cobrado}).`, cajaDe($('form-pagar')));
  await Promise.all([recargarDetalle(), cargarCobros()]);
}

async function pagar(ev: Event): Promise<void> {
  ev.preventDefault();
  const body: Record<string, string> = { medio: select('pagar-medio').value };
  const typed = input('pagar-monto').value.trim();
  if (typed) body.monto = tipeado(typed);
  await mover('pagar', body);
  input('pagar-monto').value = '';
  lectura(input('pagar-monto'));
}

// ---- refunds: the checks of svc devolver, then a confirmation, then one POST ----
function planDevolucion(d: Detalle, typed: string, total: boolean, txId: string): Plan {
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
  const monto = total ? d.queda_por_devolver : tipeado(typed);
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

async function revisarDevolucion(total: boolean): Promise<void> {
  S.plan = null;
  $('devolver-confirmar').hidden = true;
  await recargarDetalle();
  const plan = planDevolucion(
    S.det!,
    input('devolver-monto').value.trim(),
    total,
    select('devolver-tx').value,
  );
  S.plan = plan;
  text(
    $('devolver-pregunta'),
    `¿Devolver ${plan.monto} del cobro ${plan.id} (${plan.codigo})${plan.tx ? ` sobre la transacción ${plan.tx}` : ''}? Queda por devolver ${plan.queda}.`,
  );
  $('devolver-confirmar').hidden = false;
  $('devolver-si').focus();
}

async function confirmarDevolucion(): Promise<void> {
  const plan = S.plan;
  if (!plan || plan.id !== S.sel) return;
  S.plan = null;
  $('devolver-confirmar').hidden = true;
  const body: Record<string, string | number> = { monto: plan.monto };
  if (plan.tx !== null) body.transaccion_id = plan.tx;
  const d = await api<Devolucion>('POST', `/v1/cobros/${plan.id}/devoluciones`, body);
  input('devolver-monto').value = '';
  lectura(input('devolver-monto'));
  await Promise.all([recargarDetalle(), cargarCobros()]);
  avisar(
    `Devolución ${d.id}: devuelto ${d.monto} (${d.tipo}); estado del cobro: ${d.estado}; queda por devolver ${S.det ? S.det.queda_por_devolver : '?'}.`,
    cajaDe($('form-devolver')),
  );
}

// A list read whole (newest first), with what the live stream brought while the read
// was on its way: a delivery made after the sandbox answered the read, but shown by
// the stream before the answer arrived, must not be dropped by it (newest first, by id).
function conLoNuevo<T extends WithId>(leido: T[], actual: T[]): T[] {
  const ids = new Set(leido.map((x) => x.id));
  return actual
    .filter((x) => !ids.has(x.id))
    .concat(leido)
    .sort((a, b) => b.id - a.id);
}

// ---- notifications ----
async function cargarEntregas(): Promise<void> {
  const r = await latest('entregas', () =>
    Promise.all([
      api<Entrega[]>('GET', '/_sandbox/entregas'),
      api<{ url: string | null }>('GET', '/_sandbox/webhook'),
    ]),
  );
  if (!r) return;
  S.entregas = conLoNuevo(r.v[0].slice().reverse(), S.entregas);
  text(
    $('webhook-url'),
    r.v[1].url
      ? `Se envían a ${r.v[1].url}`
      : 'Sin URL de notificaciones (svc sandbox --webhook-url, o POST /_sandbox/webhook): no se envía nada.',
  );
  pintarEntregas();
}

function agregarEntrega(e: Entrega): void {
  if (S.entregas.some((x) => x.id === e.id)) return;
  S.entregas.unshift(e);
  soon('pintar-entregas', async () => pintarEntregas(), 60);
}

// A list, not a table: each delivery's button stays beside it at any width.
function pintarEntregas(): void {
  const ul = $('t-notif');
  clear(ul);
  if (!S.entregas.length) ul.appendChild(el('li', 'muted', 'Sin registros'));
  for (const e of paginar('notif', S.entregas)) {
    const li = el('li');
    const info = el('div');
    info.appendChild(el('span', 'code', `Nº ${e.id} · ${e.event}`));
    info.appendChild(document.createTextNode(` · cobro ${e.cobro_id} · `));
    info.appendChild(el('span', e.ok ? 's2' : 's5', answer(e)));
    info.appendChild(
      el(
        'small',
        '',
        `evento ${e.evento_id}${e.reenvio ? ' · reenvío' : ''} · intento ${e.intento} · ${e.latencia_ms} ms · ${e.fecha}`,
      ),
    );
    li.appendChild(info);
    const b = el('button', '', 'Reenviar');
    b.type = 'button';
    b.setAttribute(
      'aria-label',
      `Reenviar el evento ${e.evento_id} (${e.event}, cobro ${e.cobro_id}), entrega ${e.id}`,
    );
    b.addEventListener('click', () => {
      const caja = cajaDe(b);
      api<{ evento_id: number; event: string; url: string }>(
        'POST',
        `/_sandbox/eventos/${e.evento_id}/reenviar`,
        {},
      )
        .then((r) =>
          avisar(
            `Evento ${r.evento_id} (${r.event}) reenviado a ${r.url}: el intento aparece en la lista.`,
            caja,
          ),
        )
        .catch((err: unknown) => fallar(err, caja));
    });
    li.appendChild(b);
    ul.appendChild(li);
  }
}

// ---- the request log ----
async function cargarLog(): Promise<void> {
  const r = await latest('log', () => api<LineaLog[]>('GET', '/_sandbox/log'));
  if (!r) return;
  S.log = conLoNuevo(r.v.slice(-MAX_LOG).reverse(), S.log).slice(0, MAX_LOG);
  const ol = $('log');
  clear(ol);
  for (const l of S.log) ol.appendChild(lineaLog(l));
}

function lineaLog(l: LineaLog): HTMLLIElement {
  const st = l.status === null ? 'x' : String(l.status).charAt(0);
  return text(
    el('li', `s${st}`),
    `#${l.id}  ${l.fecha}  ${l.method} ${l.path}  → ${l.status === null ? 'cortada' : l.status}  ${l.ms} ms` +
      (l.comercio === null ? '' : `  · comercio ${l.comercio}`) +
      (l.ensayo ? ' (ensayo live)' : ''),
  );
}

function agregarLog(l: LineaLog): void {
  if (S.log.length && S.log[0]!.id >= l.id) return;
  S.log.unshift(l);
  const ol = $('log');
  ol.insertBefore(lineaLog(l), ol.firstChild);
  while (S.log.length > MAX_LOG) {
    S.log.pop();
    if (ol.lastChild) ol.removeChild(ol.lastChild);
  }
}

// ---- settlements ----
async function cargarLiquidaciones(): Promise<void> {
  const r = await latest('liq', () =>
    api<
      { fecha: string; cantidad: number; bruto: string; te_cobramos: string; te_queda: string }[]
    >('GET', '/_sandbox/liquidaciones/totales'),
  );
  if (!r) return;
  fill($('t-tot'), r.v, 5, (tr, t) => {
    cell(tr, t.fecha);
    cell(tr, t.cantidad, 'n');
    cell(tr, t.bruto, 'n');
    cell(tr, t.te_cobramos, 'n');
    cell(tr, t.te_queda, 'n');
  });
}

// ---- the clock ----
function duracion(ms: number): string {
  const m = Math.round(ms / 60000);
  const d = Math.floor(m / 1440);
  const h = Math.floor((m % 1440) / 60);
  return ms === 0 ? 'ninguno' : `${d} d ${h} h ${m % 60} min`;
}
function pintarReloj(r: Reloj): void {
  text($('reloj-ahora'), `${r.ahora} (${r.tz})`);
  text($('reloj-adelanto'), duracion(r.adelanto_ms));
}
async function cargarReloj(): Promise<void> {
  pintarReloj(await api<Reloj>('GET', '/_sandbox/reloj'));
}
async function adelantar(ev: Event): Promise<void> {
  ev.preventDefault();
  const dur = select('reloj-dur').value;
  const r = await api<Reloj>('POST', '/_sandbox/reloj', { avanzar: dur });
  pintarReloj(r);
  avisar(
    `Reloj adelantado ${dur}: ahora ${r.ahora}. ${r.vencidos.length ? `Vencieron los cobros ${r.vencidos.join(', ')}.` : 'No venció ningún cobro.'} Reintentos enviados: ${r.reintentos}.`,
    cajaDe($('form-reloj')),
  );
  await cargarTodo();
}

// ---- faults ----
async function cargarFallas(): Promise<void> {
  const list = await api<Falla[]>('GET', '/_sandbox/fallas');
  fill($('t-fallas'), list, 5, (tr, f) => {
    const what =
      f.action === 'respond'
        ? String(f.status ?? 500)
        : f.action === 'respond_after'
          ? `${f.status ?? 500} después de procesar`
          : f.action === 'delay'
            ? `lenta (${f.delay_ms} ms)`
            : f.action === 'cut'
              ? 'cortar'
              : 'cortar después';
    cell(tr, f.id, 'n');
    cell(tr, f.method);
    cell(tr, f.path, 'code');
    cell(tr, what);
    cell(tr, f.count, 'n');
  });
}
async function agregarFalla(ev: Event): Promise<void> {
  ev.preventDefault();
  const tipo = select('falla-tipo').value;
  const body = {
    method: select('falla-metodo').value,
    path: input('falla-ruta').value.trim(),
    count: Number(input('falla-veces').value),
    ...DATA.fallas[tipo],
  };
  const f = await api<Falla>('POST', '/_sandbox/fallas', body);
  avisar(
    `Falla ${f.id}: los próximos ${f.count} pedidos ${f.method === '*' ? '' : `${f.method} `}a ${f.path} fallan (${tipo}). El panel no las consume.`,
    cajaDe($('form-falla')),
  );
  await cargarFallas();
}
async function borrarFallas(): Promise<void> {
  const r = await api<{ borradas: number }>('DELETE', '/_sandbox/fallas');
  avisar(
    r.borradas === 0
      ? 'No había fallas pendientes.'
      : `${r.borradas}${r.borradas === 1 ? ' falla borrada.' : ' fallas borradas.'}`,
    cajaDe($('form-falla')),
  );
  await cargarFallas();
}

// ---- keys and secret: fetched only when asked, removed from the page when hidden ----
function copiar(field: HTMLInputElement, label: string): void {
  field.select();
  const done = () => avisar(`${label} copiado al portapapeles.`, cajaDe(field));
  const old = () => {
    document.execCommand('copy');
    done();
  };
  if (navigator.clipboard && navigator.clipboard.writeText)
    navigator.clipboard.writeText(field.value).then(done, old);
  else old();
}
function secreto(box: HTMLElement, id: string, label: string, value: string): void {
  const l = el('label', '', label);
  l.htmlFor = id;
  const i = el('input');
  i.id = id;
  i.type = 'text';
  i.readOnly = true;
  i.value = value;
  i.spellcheck = false;
  i.autocomplete = 'off';
  const b = el('button', '', 'Copiar');
  b.type = 'button';
  b.setAttribute('aria-label', `Copiar ${label.toLowerCase()}`);
  b.addEventListener('click', () => copiar(i, label));
  const row = el('div', 'actions');
  row.appendChild(b);
  box.append(l, i, row);
}
async function verClaves(): Promise<void> {
  const box = $('claves-datos');
  const btn = $('claves-ver');
  if (!box.hidden) {
    clear(box);
    box.hidden = true;
    btn.setAttribute('aria-expanded', 'false');
    text(btn, 'Mostrar claves y secreto');
    return;
  }
  const c = await api<{
    comercio: number;
    claves: { comercio: number; modo: string; nombre: string; clave: string }[];
    webhook_secret: string;
  }>('GET', '/_sandbox/claves');
  clear(box);
  for (const k of c.claves)
    secreto(
      box,
      `clave-${k.comercio}`,
      `Clave ${k.modo} de ${k.nombre}${k.comercio === c.comercio ? ' (la tuya)' : ''}`,
      k.clave,
    );
  secreto(box, 'secreto', 'Secreto de notificaciones', c.webhook_secret);
  box.hidden = false;
  btn.setAttribute('aria-expanded', 'true');
  text(btn, 'Ocultar claves y secreto');
}

// ---- live stream ----
const stream = { ctl: null as AbortController | null, wait: 1000 };
function estadoConexion(live: boolean): void {
  text($('conexion'), S.quien + (live ? ' · en vivo' : ' · reconectando…'));
}

async function conectarStream(): Promise<void> {
  stream.ctl?.abort();
  const ctl = new AbortController();
  stream.ctl = ctl;
  try {
    const res = await fetch('/_sandbox/stream', {
      headers: headers({ Accept: 'text/event-stream' }),
      signal: ctl.signal,
      cache: 'no-store',
      credentials: 'omit',
    });
    if (res.status === 401) {
      desconectar('El sandbox no aceptó la clave.');
      return;
    }
    if (!res.ok || !res.body) throw new Error(`stream ${res.status}`);
    estadoConexion(true);
    stream.wait = 1000;
    const reader = res.body.getReader();
    const dec = new TextDecoder();
    let buf = '';
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      buf += dec.decode(r.value, { stream: true });
      let i: number;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        recibir(buf.slice(0, i));
        buf = buf.slice(i + 2);
      }
    }
  } catch {
    if (ctl.signal.aborted) return;
  }
  if (stream.ctl !== ctl) return;
  estadoConexion(false);
  // Whatever happened while cut is read again whole once the stream is back.
  setTimeout(() => {
    if (stream.ctl !== ctl) return;
    cargarTodo().catch((err: unknown) => fallar(err));
    void conectarStream();
  }, stream.wait);
  stream.wait = Math.min(stream.wait * 2, 30000);
}

function recibir(block: string): void {
  let kind = 'message';
  let data = '';
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) kind = line.slice(6).trim();
    else if (line.startsWith('data:')) data += line.slice(5).replace(/^ /, '');
  }
  if (!data) return;
  let msg: unknown;
  try {
    msg = JSON.parse(data);
  } catch {
    return;
  }
  if (kind === 'log') {
    agregarLog(msg as LineaLog);
  } else if (kind === 'entrega') {
    const e = msg as Entrega;
    agregarEntrega(e);
    if (S.sel === e.cobro_id) soon('detalle', recargarDetalle);
  } else if (kind === 'evento') {
    soon('cobros', cargarCobros);
    soon('liq', cargarLiquidaciones, 300);
    if (S.sel === (msg as Evento).body.cobro_id) soon('detalle', recargarDetalle);
  }
}

// ---- connecting ----
async function cargarTodo(): Promise<void> {
  await Promise.all([
    cargarCobros(),
    cargarEntregas(),
    cargarLog(),
    cargarLiquidaciones(),
    cargarReloj(),
    cargarFallas(),
    recargarDetalle(),
  ]);
}

function desconectar(why?: string): void {
  try {
    sessionStorage.removeItem(STORE);
  } catch {
    // nothing kept
  }
  if (stream.ctl) {
    const c = stream.ctl;
    stream.ctl = null;
    c.abort();
  }
  S.sel = null;
  clear($('claves-datos'));
  $('claves-datos').hidden = true;
  $('app').hidden = true;
  $('detalle').hidden = true;
  $('acceso').hidden = false;
  text($('conexion'), 'Sin conectar');
  text($('acceso-error'), why ?? '');
  $('clave').focus();
}

async function conectar(): Promise<void> {
  let cuenta: { id: number; nombre: string };
  try {
    cuenta = await api('GET', '/v1/cuenta');
  } catch (e) {
    // A refused key has already been forgotten, with the sandbox's reason.
    if (!(e instanceof ApiError && e.status === 401))
      desconectar(e instanceof Error ? e.message : String(e));
    return;
  }
  const cargos = await api<{ medio: string; label: string }[]>('GET', '/v1/cargos');
  for (const c of cargos) S.labels[c.medio] = c.label;
  S.quien = `Conectado como ${cuenta.nombre} (comercio ${cuenta.id})`;
  text($('acceso-error'), '');
  $('acceso').hidden = true;
  $('app').hidden = false;
  estadoConexion(false);
  await cargarTodo();
  void conectarStream();
}

function on(id: string, type: string, fn: (ev: Event) => unknown): void {
  const node = $(id);
  node.addEventListener(type, (ev) => {
    const p = fn(ev);
    if (p instanceof Promise) p.catch(fallaEn(node));
  });
}
/** The pager's buttons of list name: a page newer or older, drawn by paint. */
function paginas(name: Paged, paint: () => void): void {
  on(`${name}-nuevos`, 'click', () => {
    S.pag[name] = Math.max(0, S.pag[name] - 1);
    paint();
  });
  on(`${name}-viejos`, 'click', () => {
    S.pag[name] += 1;
    paint();
  });
}

for (const e of DATA.estados) {
  const o = el('option', '', e);
  o.value = e;
  $('filtro-estado').appendChild(o);
}
on('form-clave', 'submit', (ev) => {
  ev.preventDefault();
  const k = input('clave').value.trim();
  if (!KEY_RE.test(k))
    return void text(
      $('acceso-error'),
      'Eso no es una clave: empieza con svc_test_ (la imprime svc sandbox al arrancar).',
    );
  try {
    sessionStorage.setItem(STORE, k);
  } catch {
    // the key lives only in this page then
  }
  input('clave').value = '';
  return conectar();
});
on('form-crear', 'submit', crearCobro);
on('form-filtro', 'submit', (ev) => {
  ev.preventDefault();
  S.pag.cobros = 0;
  return cargarCobros();
});
on('filtro-estado', 'change', () => {
  S.pag.cobros = 0;
  return cargarCobros();
});
on('filtro-q', 'input', () => {
  S.pag.cobros = 0;
  soon('cobros', cargarCobros, 250);
});
paginas('cobros', pintarCobros);
paginas('notif', pintarEntregas);
for (const id of ['crear-monto', 'pagar-monto', 'devolver-monto'])
  on(id, 'input', () => lectura(input(id)));
on('form-pagar', 'submit', pagar);
on('btn-iniciar', 'click', () => mover('iniciar'));
on('btn-rechazar', 'click', () => mover('rechazar', { medio: select('pagar-medio').value }));
on('btn-expirar', 'click', () => mover('expirar'));
on('btn-cerrar', 'click', () => {
  S.sel = null;
  S.det = null;
  $('detalle').hidden = true;
  pintarCobros();
  const first = $('lista-cobros').querySelector('button');
  (first ?? $('cobros-t')).focus();
});
on('form-devolver', 'submit', (ev) => {
  ev.preventDefault();
  return revisarDevolucion(false);
});
on('devolver-todo', 'click', () => revisarDevolucion(true));
on('devolver-si', 'click', confirmarDevolucion);
on('devolver-no', 'click', () => {
  S.plan = null;
  $('devolver-confirmar').hidden = true;
  avisar('Devolución cancelada: no se envió nada.', cajaDe($('form-devolver')));
});
on('form-reloj', 'submit', adelantar);
on('form-falla', 'submit', agregarFalla);
on('fallas-borrar', 'click', borrarFallas);
on('claves-ver', 'click', verClaves);
on('salir', 'click', () => desconectar('Clave olvidada: esta pestaña ya no la tiene.'));
// Sections scrolled to from the bar stop below it, whatever its height at this width.
new ResizeObserver(() =>
  document.documentElement.style.setProperty('--bar', `${$('barra').offsetHeight + 8}px`),
).observe($('barra'));

if (clave()) conectar().catch((err: unknown) => fallar(err));
else $('clave').focus();
