// The dashboard's script, served inline and allowed by its hash (page.ts). Plain
// browser JavaScript, no framework. Every value from the sandbox reaches the page
// through textContent or a property (never HTML), so a concept holding markup is
// shown as text. It calls the sandbox's own routes (/v1/… and /_sandbox/…) with the
// key the user pasted, kept in this tab's sessionStorage; one fetch-read stream of
// server-sent events (/_sandbox/stream, which needs the key in a header, so not
// EventSource) brings new events, delivery attempts and log lines. Amounts stay the
// service's strings; a refund compares cents as BigInt, never floats.
// Written without template literals: it lives inside one (whose ${…} bring in the
// service's states and rules, so they are defined once).
import { ESTADOS_COBRO } from '../../api/enums.js';
import { AMOUNT_RE, KEY_RE, REFUNDABLE } from '../../rules.js';
import { NAMED_FAULTS, namedFault } from '../faults.js';
import { OPEN, PAYABLE } from '../state.js';

export const SCRIPT = String.raw`(function () {
'use strict';
var STORE = 'svc-panel-clave';
// The states and rules are the service's own (api/enums.ts, rules.ts, sandbox/state.ts), written in here.
var ESTADOS = ${JSON.stringify(ESTADOS_COBRO)};
var REFUNDABLE = ${JSON.stringify(REFUNDABLE)};
var PAYABLE = ${JSON.stringify(PAYABLE)};
var OPEN = ${JSON.stringify(OPEN)};
var AMOUNT_RE = /${AMOUNT_RE.source}/;
var KEY_RE = /${KEY_RE.source}/;
// The failures svc sandbox fallas agregar names, as the control plane takes them (sandbox/faults.ts).
var FALLAS = ${JSON.stringify(Object.fromEntries(NAMED_FAULTS.map((n) => [n, namedFault(n, 5000)]))).replace(/</g, '\u003c')};
var MAX_ROWS = 200;
var MAX_LOG = 300;
// Rows of a long list shown at once (the pagers of page.ts): the page stays short enough
// that every section is a click away and none is pushed thousands of pixels down.
var PAGE = { cobros: 15, notif: 15 };

var S = { cobros: [], entregas: [], log: [], sel: null, det: null, labels: {}, plan: null, seq: {}, timers: {}, pag: { cobros: 0, notif: 0 } };

function $(id) { return document.getElementById(id); }
function text(node, value) { node.textContent = value === null || value === undefined ? '' : String(value); return node; }
function el(tag, cls, value) { var e = document.createElement(tag); if (cls) e.className = cls; if (value !== undefined) text(e, value); return e; }
function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
function clave() { try { return sessionStorage.getItem(STORE) || ''; } catch (e) { return ''; } }

// An outcome shows in the message box of the zone ([data-zona], page.ts) of the control
// that caused it, beside its form; what no control caused (a live update that failed)
// shows in the bar that stays on screen. One outcome at a time: a new one clears the rest.
function cajaDe(node) {
  var z = node && node.closest ? node.closest('[data-zona]') : null;
  return (z || $('barra')).querySelector('.msgs');
}
function mostrar(caja, cls, msg) {
  document.querySelectorAll('.msgs .msg').forEach(function (m) { text(m, ''); });
  text((caja || cajaDe(null)).querySelector(cls), msg);
}
function avisar(msg, caja) { mostrar(caja, '.ok', msg); }
function fallar(err, caja) { mostrar(caja, '.err', err && err.message ? err.message : String(err)); }
/** fallar, in the box of node's zone. */
function fallaEn(node) { return function (err) { fallar(err, cajaDe(node)); }; }

/** The rows of list on page name (S.pag), and its pager set: hidden when one page holds them all. */
function paginar(name, list) {
  var size = PAGE[name];
  var pages = Math.max(1, Math.ceil(list.length / size));
  if (S.pag[name] >= pages) S.pag[name] = pages - 1;
  var from = S.pag[name] * size;
  var rows = list.slice(from, from + size);
  $(name + '-pager').hidden = pages <= 1;
  $(name + '-nuevos').disabled = S.pag[name] === 0;
  $(name + '-viejos').disabled = S.pag[name] >= pages - 1;
  text($(name + '-pagina'), rows.length ? (from + 1) + '–' + (from + rows.length) + ' de ' + list.length : '');
  return rows;
}

function headers(extra) {
  var h = { Authorization: 'Bearer ' + clave(), 'X-Svc-Panel': '1' };
  for (var k in extra) h[k] = extra[k];
  return h;
}

async function api(method, path, body) {
  var res;
  try {
    res = await fetch(path, {
      method: method,
      headers: headers(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'omit',
      redirect: 'error'
    });
  } catch (e) {
    throw new Error('No se pudo hablar con el sandbox: ¿sigue corriendo?');
  }
  var raw = await res.text();
  var json = null;
  try { json = JSON.parse(raw); } catch (e) { json = null; }
  if (!res.ok) {
    var why = json && typeof json.message === 'string' ? json.message : raw.slice(0, 200);
    var err = new Error('El sandbox respondió ' + res.status + (json && json.error ? ' ' + json.error : '') + ': ' + why);
    err.status = res.status;
    if (res.status === 401) desconectar('El sandbox no aceptó la clave: ' + why + '.');
    throw err;
  }
  return json ? json.data : null;
}

function soon(name, fn, ms) {
  clearTimeout(S.timers[name]);
  S.timers[name] = setTimeout(function () { fn().catch(fallar); }, ms === undefined ? 120 : ms);
}

/** Runs fn and drops its result when a newer call of the same name started meanwhile. */
async function latest(name, fn) {
  var n = (S.seq[name] || 0) + 1;
  S.seq[name] = n;
  var v = await fn();
  return S.seq[name] === n ? { v: v } : null;
}

function cents(s) {
  var m = AMOUNT_RE.exec(String(s));
  if (!m) return null;
  return BigInt(m[1]) * 100n + BigInt((m[2] || '').padEnd(2, '0'));
}
function normal(s) {
  var m = AMOUNT_RE.exec(s);
  return m ? m[1] + '.' + (m[2] || '').padEnd(2, '0') : null;
}

function cell(tr, value, cls) { var td = el('td', cls, value); tr.appendChild(td); return td; }
function fill(tbody, rows, cols, render) {
  clear(tbody);
  if (!rows.length) {
    var tr = el('tr');
    var td = el('td', 'muted', 'Sin registros');
    td.colSpan = cols;
    tr.appendChild(td);
    tbody.appendChild(tr);
    return;
  }
  rows.slice(0, MAX_ROWS).forEach(function (r) { var tr = el('tr'); render(tr, r); tbody.appendChild(tr); });
}
function badge(estado) { return el('span', 'estado ' + (ESTADOS.indexOf(estado) >= 0 ? estado : ''), estado); }
function answer(e) {
  if (e.status !== null) return e.status + (e.ok ? ' ok' : ' falló');
  return e.error || 'sin respuesta';
}

// ---- payment requests ----
async function cargarCobros() {
  var q = new URLSearchParams();
  if ($('filtro-estado').value) q.set('estado', $('filtro-estado').value);
  if ($('filtro-q').value.trim()) q.set('q', $('filtro-q').value.trim());
  var qs = q.toString();
  var r = await latest('cobros', function () { return api('GET', '/v1/cobros' + (qs ? '?' + qs : '')); });
  if (!r) return;
  S.cobros = r.v;
  pintarCobros();
}

function pintarCobros() {
  var ul = $('lista-cobros');
  clear(ul);
  var n = S.cobros.length;
  text($('cobros-n'), n === 0 ? 'No hay cobros con ese filtro.' : n + (n === 1 ? ' cobro' : ' cobros'));
  paginar('cobros', S.cobros).forEach(function (c) {
    var li = el('li', c.id === S.sel ? 'sel' : '');
    var b = el('button');
    b.type = 'button';
    b.dataset.id = String(c.id);
    if (c.id === S.sel) b.setAttribute('aria-current', 'true');
    b.appendChild(el('span', 'code', '#' + c.id + ' ' + c.codigo));
    b.appendChild(document.createTextNode(' '));
    b.appendChild(badge(c.estado));
    b.appendChild(el('br'));
    b.appendChild(el('span', '', c.concepto));
    b.appendChild(el('br'));
    b.appendChild(el('small', 'muted', 'Monto ' + c.monto + ' · cobrado ' + c.monto_cobrado + (c.referencia ? ' · ref. ' + c.referencia : '') + ' · ' + c.created_at));
    b.addEventListener('click', function () { abrirDetalle(c.id).catch(fallaEn(b)); });
    li.appendChild(b);
    ul.appendChild(li);
  });
}

async function crearCobro(ev) {
  ev.preventDefault();
  var body = { concepto: $('crear-concepto').value, monto: normal($('crear-monto').value.trim()) || $('crear-monto').value.trim() };
  var ref = $('crear-referencia').value.trim();
  if (ref) body.referencia = ref;
  var c = await api('POST', '/v1/cobros', body);
  $('form-crear').reset();
  S.pag.cobros = 0;
  // Said where the person is taken: the new request's detail.
  try {
    await cargarCobros();
    await abrirDetalle(c.id);
  } finally {
    avisar('Cobro ' + c.id + ' creado (' + c.codigo + '): ' + c.monto + ', ' + c.estado + '.', cajaDe($('form-pagar')));
  }
}

// ---- one request ----
async function abrirDetalle(id) {
  S.sel = id;
  S.plan = null;
  $('devolver-confirmar').hidden = true;
  await recargarDetalle();
  pintarCobros();
  $('detalle').hidden = false;
  $('detalle-t').focus();
}

async function recargarDetalle() {
  if (S.sel === null) return;
  var id = S.sel;
  var r = await latest('detalle', function () { return api('GET', '/_sandbox/cobros/' + id); });
  if (!r || S.sel !== id) return;
  S.det = r.v;
  pintarDetalle();
}

function mediosDe(c) {
  var out = [];
  if (c.medios.transferencia) out.push('transferencia');
  if (c.medios.qr) out.push('qr');
  if (c.medios.tarjeta) out.push('debito', 'credito', 'prepaga');
  return out;
}

function pintarDetalle() {
  var d = S.det;
  var c = d.cobro;
  text($('detalle-t'), 'Cobro ' + c.id + ' · ' + c.codigo);
  var dl = $('detalle-datos');
  clear(dl);
  var pairs = [
    ['Concepto', c.concepto], ['Estado', c.estado], ['Monto', c.monto], ['Cobrado', c.monto_cobrado],
    ['Queda por devolver', d.queda_por_devolver], ['Referencia', c.referencia === null ? '—' : c.referencia],
    ['Medios', mediosDe(c).join(', ')], ['Vence', c.vencimiento === null ? '—' : c.vencimiento],
    ['CVU', c.cvu === null ? '—' : c.cvu], ['Creado', c.created_at], ['Actualizado', c.updated_at]
  ];
  pairs.forEach(function (p) {
    dl.appendChild(el('dt', '', p[0]));
    var dd = el('dd');
    if (p[0] === 'Estado') dd.appendChild(badge(p[1])); else text(dd, p[1]);
    dl.appendChild(dd);
  });
  var a = $('detalle-url');
  if (/^https?:\/\//.test(c.url)) { a.href = c.url; a.hidden = false; } else { a.removeAttribute('href'); a.hidden = true; }

  var payable = PAYABLE.indexOf(c.estado) >= 0;
  var open = OPEN.indexOf(c.estado) >= 0;
  $('form-pagar').hidden = !payable;
  $('btn-rechazar').hidden = !open;
  $('btn-iniciar').hidden = c.estado !== 'PENDIENTE';
  $('btn-expirar').hidden = !open;
  var sel = $('pagar-medio');
  var was = sel.value;
  clear(sel);
  mediosDe(c).forEach(function (m) {
    var o = el('option', '', S.labels[m] || m);
    o.value = m;
    sel.appendChild(o);
  });
  if (was && mediosDe(c).indexOf(was) >= 0) sel.value = was;

  var refundable = REFUNDABLE.indexOf(c.estado) >= 0;
  $('form-devolver').hidden = !refundable;
  text($('devolver-queda'), 'Cobrado ' + c.monto_cobrado + ' · queda por devolver ' + d.queda_por_devolver + ' (se comprueba otra vez antes de enviar, como svc devolver).');
  var tx = $('devolver-tx');
  var txWas = tx.value;
  clear(tx);
  var none = el('option', '', 'Ninguna: sobre el cobro');
  none.value = '';
  tx.appendChild(none);
  d.transacciones.forEach(function (t) {
    if (t.estado !== 'ACREDITADO') return;
    var o = el('option', '', 'Nº ' + t.id + ' · ' + t.medio + ' · ' + t.monto);
    o.value = String(t.id);
    tx.appendChild(o);
  });
  tx.value = txWas;
  if (tx.value !== txWas) tx.value = '';

  fill($('t-tx'), d.transacciones, 7, function (tr, t) {
    cell(tr, t.id, 'n'); cell(tr, t.medio); cell(tr, t.monto, 'n'); cell(tr, t.te_queda, 'n'); cell(tr, t.estado); cell(tr, t.codigo, 'code'); cell(tr, t.fecha);
  });
  fill($('t-dev'), d.devoluciones, 5, function (tr, x) {
    cell(tr, x.id, 'n'); cell(tr, x.monto, 'n'); cell(tr, x.tipo); cell(tr, x.estado); cell(tr, x.created_at);
  });
  fill($('t-liq'), d.liquidaciones, 5, function (tr, l) {
    cell(tr, l.id, 'n'); cell(tr, l.bruto, 'n'); cell(tr, l.te_cobramos, 'n'); cell(tr, l.te_queda, 'n'); cell(tr, l.fecha_estimada);
  });
  fill($('t-ev'), d.eventos, 5, function (tr, e) {
    cell(tr, e.id, 'n'); cell(tr, e.body.event, 'code'); cell(tr, e.body.estado); cell(tr, e.body.monto_cobrado, 'n'); cell(tr, e.fecha);
  });
  fill($('t-ent'), d.entregas, 6, function (tr, e) {
    cell(tr, e.id, 'n'); cell(tr, e.event + (e.reenvio ? ' (reenvío)' : ''), 'code'); cell(tr, e.intento, 'n'); cell(tr, answer(e)); cell(tr, e.latencia_ms + ' ms', 'n'); cell(tr, e.fecha);
  });
}

async function mover(accion, body) {
  var id = S.sel;
  var c = await api('POST', '/_sandbox/cobros/' + id + '/' + accion, body || {});
  avisar('Cobro ' + c.id + ': ' + c.estado + ' (cobrado ' + c.monto_cobrado + ').', cajaDe($('form-pagar')));
  await Promise.all([recargarDetalle(), cargarCobros()]);
}

async function pagar(ev) {
  ev.preventDefault();
  var body = { medio: $('pagar-medio').value };
  var typed = $('pagar-monto').value.trim();
  if (typed) body.monto = normal(typed) || typed;
  await mover('pagar', body);
  $('pagar-monto').value = '';
}

// ---- refunds: the checks of svc devolver, then a confirmation, then one POST ----
function planDevolucion(d, typed, total, txId) {
  var c = d.cobro;
  if (REFUNDABLE.indexOf(c.estado) < 0) {
    var why = c.estado === 'DEVUELTA' ? ' (ya se devolvió todo)' : c.estado === 'CANCELADO' ? ' (no se cobró)' : ' (todavía no se cobró)';
    throw new Error('El cobro ' + c.id + ' está ' + c.estado + why + ': no admite devoluciones; solo ' + REFUNDABLE.join(', ') + '.');
  }
  var left = cents(d.queda_por_devolver);
  if (left === null || left <= 0n) throw new Error('Al cobro ' + c.id + ' no le queda nada por devolver (cobrado ' + c.monto_cobrado + ').');
  var monto = total ? d.queda_por_devolver : normal(typed);
  if (monto === null) throw new Error('"' + typed + '" no es un monto: escribí uno como 500 o 500.50.');
  var amount = cents(monto);
  if (amount <= 0n) throw new Error('El monto a devolver tiene que ser mayor que cero.');
  if (amount > left) throw new Error('El monto ' + monto + ' supera lo que queda por devolver del cobro ' + c.id + ': ' + d.queda_por_devolver + '.');
  var tx = null;
  if (txId) {
    tx = d.transacciones.filter(function (t) { return String(t.id) === txId; })[0];
    if (!tx) throw new Error('La transacción ' + txId + ' no es del cobro ' + c.id + '.');
    if (tx.estado !== 'ACREDITADO') throw new Error('La transacción ' + tx.id + ' está ' + tx.estado + ': solo se devuelve sobre transacciones ACREDITADO.');
    if (amount > cents(tx.monto)) throw new Error(monto + ' supera el monto de la transacción ' + tx.id + ' (' + tx.monto + ').');
  }
  return { id: c.id, codigo: c.codigo, monto: monto, tx: tx ? tx.id : null, queda: d.queda_por_devolver };
}

async function revisarDevolucion(total) {
  S.plan = null;
  $('devolver-confirmar').hidden = true;
  await recargarDetalle();
  var plan = planDevolucion(S.det, $('devolver-monto').value.trim(), total, $('devolver-tx').value);
  S.plan = plan;
  text($('devolver-pregunta'), '¿Devolver ' + plan.monto + ' del cobro ' + plan.id + ' (' + plan.codigo + ')' + (plan.tx ? ' sobre la transacción ' + plan.tx : '') + '? Queda por devolver ' + plan.queda + '.');
  $('devolver-confirmar').hidden = false;
  $('devolver-si').focus();
}

async function confirmarDevolucion() {
  var plan = S.plan;
  if (!plan || plan.id !== S.sel) return;
  S.plan = null;
  $('devolver-confirmar').hidden = true;
  var body = { monto: plan.monto };
  if (plan.tx !== null) body.transaccion_id = plan.tx;
  var d = await api('POST', '/v1/cobros/' + plan.id + '/devoluciones', body);
  $('devolver-monto').value = '';
  await Promise.all([recargarDetalle(), cargarCobros()]);
  avisar('Devolución ' + d.id + ': devuelto ' + d.monto + ' (' + d.tipo + '); estado del cobro: ' + d.estado + '; queda por devolver ' + (S.det ? S.det.queda_por_devolver : '?') + '.', cajaDe($('form-devolver')));
}

// A list read whole (newest first), with what the live stream brought while the read
// was on its way: a delivery made after the sandbox answered the read, but shown by
// the stream before the answer arrived, must not be dropped by it (newest first, by id).
function conLoNuevo(leido, actual) {
  var ids = {};
  leido.forEach(function (x) { ids[x.id] = true; });
  return actual.filter(function (x) { return !ids[x.id]; }).concat(leido).sort(function (a, b) { return b.id - a.id; });
}

// ---- notifications ----
async function cargarEntregas() {
  var r = await latest('entregas', function () { return Promise.all([api('GET', '/_sandbox/entregas'), api('GET', '/_sandbox/webhook')]); });
  if (!r) return;
  S.entregas = conLoNuevo(r.v[0].slice().reverse(), S.entregas);
  text($('webhook-url'), r.v[1].url ? 'Se envían a ' + r.v[1].url : 'Sin URL de notificaciones (svc sandbox --webhook-url, o POST /_sandbox/webhook): no se envía nada.');
  pintarEntregas();
}

function agregarEntrega(e) {
  if (S.entregas.some(function (x) { return x.id === e.id; })) return;
  S.entregas.unshift(e);
  soon('pintar-entregas', function () { pintarEntregas(); return Promise.resolve(); }, 60);
}

// A list, not a table: each delivery's button stays beside it at any width.
function pintarEntregas() {
  var ul = $('t-notif');
  clear(ul);
  if (!S.entregas.length) { ul.appendChild(el('li', 'muted', 'Sin registros')); }
  paginar('notif', S.entregas).forEach(function (e) {
    var li = el('li');
    var info = el('div');
    info.appendChild(el('span', 'code', 'Nº ' + e.id + ' · ' + e.event));
    info.appendChild(document.createTextNode(' · cobro ' + e.cobro_id + ' · '));
    info.appendChild(el('span', e.ok ? 's2' : 's5', answer(e)));
    info.appendChild(el('small', '', 'evento ' + e.evento_id + (e.reenvio ? ' · reenvío' : '') + ' · intento ' + e.intento + ' · ' + e.latencia_ms + ' ms · ' + e.fecha));
    li.appendChild(info);
    var b = el('button', '', 'Reenviar');
    b.type = 'button';
    b.setAttribute('aria-label', 'Reenviar el evento ' + e.evento_id + ' (' + e.event + ', cobro ' + e.cobro_id + '), entrega ' + e.id);
    b.addEventListener('click', function () {
      var caja = cajaDe(b);
      api('POST', '/_sandbox/eventos/' + e.evento_id + '/reenviar', {}).then(function (r) {
        avisar('Evento ' + r.evento_id + ' (' + r.event + ') reenviado a ' + r.url + ': el intento aparece en la lista.', caja);
      }).catch(function (err) { fallar(err, caja); });
    });
    li.appendChild(b);
    ul.appendChild(li);
  });
}

// ---- the request log ----
async function cargarLog() {
  var r = await latest('log', function () { return api('GET', '/_sandbox/log'); });
  if (!r) return;
  S.log = conLoNuevo(r.v.slice(-MAX_LOG).reverse(), S.log).slice(0, MAX_LOG);
  var ol = $('log');
  clear(ol);
  S.log.forEach(function (l) { ol.appendChild(lineaLog(l)); });
}

function lineaLog(l) {
  var st = l.status === null ? 'x' : String(l.status).charAt(0);
  var li = el('li', 's' + st);
  text(li, '#' + l.id + '  ' + l.fecha + '  ' + l.method + ' ' + l.path + '  → ' + (l.status === null ? 'cortada' : l.status) + '  ' + l.ms + ' ms' + (l.comercio === null ? '' : '  · comercio ' + l.comercio) + (l.ensayo ? ' (ensayo live)' : ''));
  return li;
}

function agregarLog(l) {
  if (S.log.length && S.log[0].id >= l.id) return;
  S.log.unshift(l);
  var ol = $('log');
  ol.insertBefore(lineaLog(l), ol.firstChild);
  while (S.log.length > MAX_LOG) { S.log.pop(); ol.removeChild(ol.lastChild); }
}

// ---- settlements ----
async function cargarLiquidaciones() {
  var r = await latest('liq', function () { return api('GET', '/_sandbox/liquidaciones/totales'); });
  if (!r) return;
  fill($('t-tot'), r.v, 5, function (tr, t) {
    cell(tr, t.fecha); cell(tr, t.cantidad, 'n'); cell(tr, t.bruto, 'n'); cell(tr, t.te_cobramos, 'n'); cell(tr, t.te_queda, 'n');
  });
}

// ---- the clock ----
function duracion(ms) {
  var m = Math.round(ms / 60000);
  var d = Math.floor(m / 1440);
  var h = Math.floor((m % 1440) / 60);
  return ms === 0 ? 'ninguno' : d + ' d ' + h + ' h ' + (m % 60) + ' min';
}
function pintarReloj(r) { text($('reloj-ahora'), r.ahora + ' (' + r.tz + ')'); text($('reloj-adelanto'), duracion(r.adelanto_ms)); }
async function cargarReloj() { pintarReloj(await api('GET', '/_sandbox/reloj')); }
async function adelantar(ev) {
  ev.preventDefault();
  var dur = $('reloj-dur').value;
  var r = await api('POST', '/_sandbox/reloj', { avanzar: dur });
  pintarReloj(r);
  avisar('Reloj adelantado ' + dur + ': ahora ' + r.ahora + '. ' + (r.vencidos.length ? 'Vencieron los cobros ' + r.vencidos.join(', ') + '.' : 'No venció ningún cobro.') + ' Reintentos enviados: ' + r.reintentos + '.', cajaDe($('form-reloj')));
  await cargarTodo();
}

// ---- faults ----
async function cargarFallas() {
  var list = await api('GET', '/_sandbox/fallas');
  fill($('t-fallas'), list, 5, function (tr, f) {
    var what = f.action === 'respond' ? String(f.status === null ? 500 : f.status) : f.action === 'delay' ? 'lenta (' + f.delay_ms + ' ms)' : f.action === 'cut' ? 'cortar' : 'cortar después';
    cell(tr, f.id, 'n'); cell(tr, f.method); cell(tr, f.path, 'code'); cell(tr, what); cell(tr, f.count, 'n');
  });
}
async function agregarFalla(ev) {
  ev.preventDefault();
  var body = { method: $('falla-metodo').value, path: $('falla-ruta').value.trim(), count: Number($('falla-veces').value) };
  var kind = FALLAS[$('falla-tipo').value];
  for (var k in kind) body[k] = kind[k];
  var f = await api('POST', '/_sandbox/fallas', body);
  avisar('Falla ' + f.id + ': los próximos ' + f.count + ' pedidos ' + (f.method === '*' ? '' : f.method + ' ') + 'a ' + f.path + ' fallan (' + $('falla-tipo').value + '). El panel no las consume.', cajaDe($('form-falla')));
  await cargarFallas();
}
async function borrarFallas() {
  var r = await api('DELETE', '/_sandbox/fallas');
  avisar(r.borradas === 0 ? 'No había fallas pendientes.' : r.borradas + (r.borradas === 1 ? ' falla borrada.' : ' fallas borradas.'), cajaDe($('form-falla')));
  await cargarFallas();
}

// ---- keys and secret: fetched only when asked, removed from the page when hidden ----
function copiar(input, label) {
  input.select();
  var done = function () { avisar(label + ' copiado al portapapeles.', cajaDe(input)); };
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(input.value).then(done, function () { document.execCommand('copy'); done(); });
  } else { document.execCommand('copy'); done(); }
}
function secreto(box, id, label, value) {
  var l = el('label', '', label);
  l.htmlFor = id;
  var i = el('input');
  i.id = id; i.type = 'text'; i.readOnly = true; i.value = value; i.spellcheck = false; i.autocomplete = 'off';
  var b = el('button', '', 'Copiar');
  b.type = 'button';
  b.setAttribute('aria-label', 'Copiar ' + label.toLowerCase());
  b.addEventListener('click', function () { copiar(i, label); });
  var row = el('div', 'actions');
  row.appendChild(b);
  box.appendChild(l); box.appendChild(i); box.appendChild(row);
}
async function verClaves() {
  var box = $('claves-datos');
  var btn = $('claves-ver');
  if (!box.hidden) {
    clear(box); box.hidden = true; btn.setAttribute('aria-expanded', 'false'); text(btn, 'Mostrar claves y secreto');
    return;
  }
  var c = await api('GET', '/_sandbox/claves');
  clear(box);
  c.claves.forEach(function (k) {
    secreto(box, 'clave-' + k.comercio, 'Clave ' + k.modo + ' de ' + k.nombre + (k.comercio === c.comercio ? ' (la tuya)' : ''), k.clave);
  });
  secreto(box, 'secreto', 'Secreto de notificaciones', c.webhook_secret);
  box.hidden = false; btn.setAttribute('aria-expanded', 'true'); text(btn, 'Ocultar claves y secreto');
}

// ---- live stream ----
var stream = { ctl: null, wait: 1000 };
function estadoConexion(live) { text($('conexion'), S.quien + (live ? ' · en vivo' : ' · reconectando…')); }

async function conectarStream() {
  if (stream.ctl) stream.ctl.abort();
  var ctl = new AbortController();
  stream.ctl = ctl;
  try {
    var res = await fetch('/_sandbox/stream', { headers: headers({ Accept: 'text/event-stream' }), signal: ctl.signal, cache: 'no-store', credentials: 'omit' });
    if (res.status === 401) { desconectar('El sandbox no aceptó la clave.'); return; }
    if (!res.ok || !res.body) throw new Error('stream ' + res.status);
    estadoConexion(true);
    stream.wait = 1000;
    var reader = res.body.getReader();
    var dec = new TextDecoder();
    var buf = '';
    for (;;) {
      var r = await reader.read();
      if (r.done) break;
      buf += dec.decode(r.value, { stream: true });
      var i;
      while ((i = buf.indexOf('\n\n')) >= 0) { recibir(buf.slice(0, i)); buf = buf.slice(i + 2); }
    }
  } catch (e) {
    if (ctl.signal.aborted) return;
  }
  if (stream.ctl !== ctl) return;
  estadoConexion(false);
  // Whatever happened while cut is read again whole once the stream is back.
  setTimeout(function () {
    if (stream.ctl !== ctl) return;
    cargarTodo().catch(fallar);
    conectarStream();
  }, stream.wait);
  stream.wait = Math.min(stream.wait * 2, 30000);
}

function recibir(block) {
  var kind = 'message';
  var data = '';
  block.split('\n').forEach(function (line) {
    if (line.indexOf('event:') === 0) kind = line.slice(6).trim();
    else if (line.indexOf('data:') === 0) data += line.slice(5).replace(/^ /, '');
  });
  if (!data) return;
  var msg;
  try { msg = JSON.parse(data); } catch (e) { return; }
  if (kind === 'log') {
    agregarLog(msg);
  } else if (kind === 'entrega') {
    agregarEntrega(msg);
    if (S.sel === msg.cobro_id) soon('detalle', recargarDetalle);
  } else if (kind === 'evento') {
    soon('cobros', cargarCobros);
    soon('liq', cargarLiquidaciones, 300);
    if (S.sel === msg.body.cobro_id) soon('detalle', recargarDetalle);
  }
}

// ---- connecting ----
async function cargarTodo() {
  await Promise.all([cargarCobros(), cargarEntregas(), cargarLog(), cargarLiquidaciones(), cargarReloj(), cargarFallas(), recargarDetalle()]);
}

function desconectar(why) {
  try { sessionStorage.removeItem(STORE); } catch (e) { /* nothing kept */ }
  if (stream.ctl) { var c = stream.ctl; stream.ctl = null; c.abort(); }
  S.sel = null;
  clear($('claves-datos'));
  $('claves-datos').hidden = true;
  $('app').hidden = true;
  $('detalle').hidden = true;
  $('acceso').hidden = false;
  text($('conexion'), 'Sin conectar');
  text($('acceso-error'), why || '');
  $('clave').focus();
}

async function conectar() {
  var cuenta;
  try {
    cuenta = await api('GET', '/v1/cuenta');
  } catch (e) {
    // A refused key has already been forgotten, with the sandbox's reason.
    if (e.status !== 401) desconectar(e.message);
    return;
  }
  var cargos = await api('GET', '/v1/cargos');
  cargos.forEach(function (c) { S.labels[c.medio] = c.label; });
  S.quien = 'Conectado como ' + cuenta.nombre + ' (comercio ' + cuenta.id + ')';
  text($('acceso-error'), '');
  $('acceso').hidden = true;
  $('app').hidden = false;
  estadoConexion(false);
  await cargarTodo();
  conectarStream();
}

function on(id, type, fn) {
  var node = $(id);
  node.addEventListener(type, function (ev) {
    var p = fn(ev);
    if (p && p.catch) p.catch(fallaEn(node));
  });
}
/** The pager's buttons of list name: a page newer or older, drawn by paint. */
function paginas(name, paint) {
  on(name + '-nuevos', 'click', function () { S.pag[name] = Math.max(0, S.pag[name] - 1); paint(); });
  on(name + '-viejos', 'click', function () { S.pag[name] += 1; paint(); });
}

ESTADOS.forEach(function (e) { var o = el('option', '', e); o.value = e; $('filtro-estado').appendChild(o); });
on('form-clave', 'submit', function (ev) {
  ev.preventDefault();
  var k = $('clave').value.trim();
  if (!KEY_RE.test(k)) { text($('acceso-error'), 'Eso no es una clave: empieza con svc_test_ (la imprime svc sandbox al arrancar).'); return; }
  try { sessionStorage.setItem(STORE, k); } catch (e) { /* the key lives only in this page then */ }
  $('clave').value = '';
  return conectar();
});
on('form-crear', 'submit', crearCobro);
on('form-filtro', 'submit', function (ev) { ev.preventDefault(); S.pag.cobros = 0; return cargarCobros(); });
on('filtro-estado', 'change', function () { S.pag.cobros = 0; return cargarCobros(); });
on('filtro-q', 'input', function () { S.pag.cobros = 0; soon('cobros', cargarCobros, 250); });
paginas('cobros', pintarCobros);
paginas('notif', pintarEntregas);
// Sections scrolled to from the bar stop below it, whatever its height at this width.
if (window.ResizeObserver) new ResizeObserver(function () { document.documentElement.style.setProperty('--bar', ($('barra').offsetHeight + 8) + 'px'); }).observe($('barra'));
on('form-pagar', 'submit', pagar);
on('btn-iniciar', 'click', function () { return mover('iniciar'); });
on('btn-rechazar', 'click', function () { return mover('rechazar', { medio: $('pagar-medio').value }); });
on('btn-expirar', 'click', function () { return mover('expirar'); });
on('btn-cerrar', 'click', function () {
  S.sel = null; S.det = null; $('detalle').hidden = true; pintarCobros();
  var first = $('lista-cobros').querySelector('button');
  (first || $('cobros-t')).focus();
});
on('form-devolver', 'submit', function (ev) { ev.preventDefault(); return revisarDevolucion(false); });
on('devolver-todo', 'click', function () { return revisarDevolucion(true); });
on('devolver-si', 'click', confirmarDevolucion);
on('devolver-no', 'click', function () { S.plan = null; $('devolver-confirmar').hidden = true; avisar('Devolución cancelada: no se envió nada.', cajaDe($('form-devolver'))); });
on('form-reloj', 'submit', adelantar);
on('form-falla', 'submit', agregarFalla);
on('fallas-borrar', 'click', borrarFallas);
on('claves-ver', 'click', verClaves);
on('salir', 'click', function () { desconectar('Clave olvidada: esta pestaña ya no la tiene.'); });

if (clave()) conectar().catch(fallar); else $('clave').focus();
})();`;
