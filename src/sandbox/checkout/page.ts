// The payer's pages as HTML strings: the checkout of a payment request, its receipt
// and the 404. Everything inline (CSS, the copy-CVU script, the QR as SVG) so they
// work offline; every interpolated value goes through esc(); the layout is one
// column that fits a 320 px screen.
import { createHash } from 'node:crypto';
import type { EstadoCobro, Medio } from '../../api/enums.js';
import { TYPED_AMOUNT_HINT, type Cents } from '../../domain/money.js';
import { esc, fecha, pesos } from './format.js';
import { qrSvg } from './svg-qr.js';

/** The SANDBOX banner, the same on the payer's page and on the dashboard (panel/page.ts). */
export const BANNER_CSS = `.banner{background:#ffd400;color:#000;text-align:center;padding:.5rem 1rem;font-size:.9rem;border-bottom:2px solid #000}
.banner strong{letter-spacing:.12em}`;

/** The kinds of method, each with what the payer needs for it (the QR, the CVU, nothing). */
const HOW: Record<Medio, 'qr' | 'transferencia' | 'tarjeta'> = {
  qr: 'qr',
  transferencia: 'transferencia',
  debito: 'tarjeta',
  credito: 'tarjeta',
  prepaga: 'tarjeta',
};

/**
 * Only what the chosen method needs shows: the QR with QR, the CVU with a transfer, a
 * line with a card. CSS alone (:has), so it follows the radios without a script; a
 * browser without :has shows every method's part, as before.
 */
const HOW_CSS =
  `@supports selector(:has(*)){.how{display:none}` +
  (Object.entries(HOW) as [Medio, string][])
    .map(
      ([medio, how]) =>
        `form:has(input[name=medio][value=${medio}]:checked) .how[data-medio=${how}]`,
    )
    .join(',') +
  `{display:block}}`;

const CSS = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f3f4f6}
${BANNER_CSS}
main{max-width:30rem;margin:0 auto;padding:1rem}
.card{background:#fff;border-radius:.75rem;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.12);margin-bottom:1rem}
h1{font-size:1.35rem;margin:.25rem 0 1rem;overflow-wrap:anywhere}
h2{font-size:1.05rem;margin:1.25rem 0 .5rem}
.comercio{margin:0;color:#4b5563;overflow-wrap:anywhere}
dl{margin:0}
dl div{display:flex;justify-content:space-between;gap:1rem;padding:.35rem 0;border-top:1px solid #e5e7eb}
dt{color:#4b5563}
dd{margin:0;text-align:right;font-weight:600;overflow-wrap:anywhere;min-width:0}
.total dd{font-size:1.4rem}
fieldset{border:0;margin:1rem 0 0;padding:0;min-width:0}
legend{font-weight:600;padding:0;margin-bottom:.35rem}
.opt{display:flex;align-items:center;gap:.6rem;padding:.6rem .75rem;border:1px solid #d1d5db;border-radius:.5rem;margin-bottom:.4rem;cursor:pointer}
.opt input{width:1.2rem;height:1.2rem;margin:0}
label.field{display:block;font-weight:600;margin:1rem 0 .25rem}
.help{margin:.1rem 0 .4rem;color:#4b5563;font-size:.9rem}
input[type=text]{width:100%;font:inherit;padding:.6rem .7rem;border:1px solid #9ca3af;border-radius:.5rem;background:#fff;color:inherit}
input[readonly]{background:#f9fafb;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.95rem}
button{font:inherit;font-weight:600;width:100%;min-height:2.9rem;padding:.6rem 1rem;margin-top:.6rem;border-radius:.5rem;cursor:pointer;border:2px solid #1d4ed8}
.pri{background:#1d4ed8;color:#fff}
.sec{background:#fff;color:#1d4ed8}
.sim{margin-top:1.25rem;padding-top:.75rem;border-top:1px dashed #9ca3af}
.sim p{margin:0;color:#4b5563;font-size:.9rem}
.sim button{border-color:#6b7280;background:#fff;color:#374151}
button:focus-visible,input:focus-visible,a:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.qr{display:block;width:100%;max-width:13rem;height:auto;margin:.25rem auto}
figure{margin:0;text-align:center}
figcaption{font-size:.9rem;color:#4b5563}
.msg{padding:.75rem 1rem;border-radius:.5rem;margin:0 0 1rem;overflow-wrap:anywhere}
.ok{background:#dcfce7;color:#14532d;border:1px solid #86efac}
.err{background:#fee2e2;color:#7f1d1d;border:1px solid #fca5a5}
.state{background:#e0e7ff;color:#1e3a8a;border:1px solid #a5b4fc}
ul.txs{list-style:none;padding:0;margin:0}
ul.txs li{padding:.5rem 0;border-top:1px solid #e5e7eb;overflow-wrap:anywhere}
small,.muted{color:#4b5563}
a{color:#1d4ed8}
footer{max-width:30rem;margin:0 auto;padding:0 1rem 2rem;color:#4b5563;font-size:.85rem}
${HOW_CSS}`;

// Shown only with JavaScript: copies the CVU. Without it the CVU is still a
// read-only field the payer can select.
const SCRIPT = `document.querySelectorAll('[data-copy]').forEach(function(b){b.hidden=false;b.addEventListener('click',function(){var i=document.getElementById(b.getAttribute('data-copy'));i.select();var done=function(){b.textContent='CVU copiado'};if(navigator.clipboard){navigator.clipboard.writeText(i.value).then(done,function(){document.execCommand('copy');done()})}else{document.execCommand('copy');done()}})})`;

/** A CSP source for an inline script or style: its SHA-256 (the checkout page and the dashboard). */
export const hash = (text: string) =>
  `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** Headers of every payer page: nothing loads from elsewhere, nothing is cached. */
export const PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': `default-src 'none'; style-src ${hash(CSS)}; script-src ${hash(SCRIPT)}; img-src data:; form-action 'self' https:; base-uri 'none'; frame-ancestors 'none'`,
  // frame-ancestors for browsers that read CSP; this for those that do not.
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

const ESTADOS: Record<EstadoCobro, string> = {
  PENDIENTE: 'Pendiente de pago',
  EN_PROCESO: 'Pago en proceso',
  PAGADA_PARCIALMENTE: 'Pagado en parte',
  PAGADA: 'Pagado',
  CANCELADO: 'Cancelado',
  DEVUELTA: 'Devuelto',
  DEVUELTA_PARCIALMENTE: 'Devuelto en parte',
};

/** Why a request that takes no payment takes none, in the payer's words. */
const CLOSED: Partial<Record<EstadoCobro, string>> = {
  PAGADA: 'Este cobro ya está pagado. No hace falta que vuelvas a pagar.',
  CANCELADO:
    'Este cobro fue cancelado: se rechazó el pago o venció. Si todavía tenés que pagar, pedile al comercio un link nuevo.',
  DEVUELTA: 'Este cobro se pagó y el comercio devolvió el dinero.',
};

export function estadoLabel(estado: EstadoCobro): string {
  return ESTADOS[estado] ?? estado;
}

export interface CheckoutView {
  codigo: string;
  comercio: string;
  concepto: string;
  estado: EstadoCobro;
  monto: Cents;
  cobrado: Cents;
  /** What the merchant refunded of what was paid. */
  devuelto: Cents;
  vencimiento: string | null;
  /** Methods the request accepts, in the order they are offered. */
  medios: { medio: Medio; label: string }[];
  cvu: string | null;
  qr: string | null;
  /** True in the states that take a payment. */
  canPay: boolean;
  /** True in the states that can still be rejected or expire. */
  canCancel: boolean;
  /** A confirmation to show (a partial payment just credited). */
  notice?: string;
  /** What went wrong with the last submit. */
  error?: string;
  /** What the page was rendered from (see versionOf); a submit from a stale page is refused. */
  version: string;
  /** What the payer typed and chose: the method is kept after an error, the amount is not. */
  typed?: { monto?: string; medio?: string };
}

export interface ReceiptLine {
  codigo: string;
  medio: string;
  monto: Cents;
  fecha: string;
}

function layout(title: string, main: string): string {
  return (
    `<!doctype html><html lang="es-AR"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<meta name="robots" content="noindex"><title>${esc(title)} · SANDBOX</title><style>${CSS}</style></head><body>` +
    `<div class="banner" role="note"><strong>SANDBOX</strong> · Página de prueba de svc: no se cobra dinero real.</div>` +
    `<main>${main}</main>` +
    `<footer>Sandbox de svc en tu máquina. Los pagos son simulados y disparan las mismas notificaciones firmadas que el servicio.</footer>` +
    `<script>${SCRIPT}</script></body></html>`
  );
}

const base = (codigo: string) => `/pagar/${encodeURIComponent(codigo)}`;

function row(label: string, valueHtml: string, cls = ''): string {
  return `<div${cls ? ` class="${cls}"` : ''}><dt>${esc(label)}</dt><dd>${valueHtml}</dd></div>`;
}

function when(local: string): string {
  return `<time datetime="${esc(local.replace(' ', 'T'))}">${esc(fecha(local))}</time>`;
}

/** What was refunded and what stays paid, when the merchant refunded anything. */
function refundRows(v: CheckoutView): string {
  if (v.devuelto <= 0n) return '';
  return (
    row('Devuelto', esc(pesos(v.devuelto))) +
    row('Queda pagado', esc(pesos(v.cobrado - v.devuelto)))
  );
}

export function checkoutPage(v: CheckoutView): string {
  const left = v.monto - v.cobrado;
  const rows = [
    v.canPay
      ? row('A pagar', esc(pesos(left)), 'total')
      : row('Monto', esc(pesos(v.monto)), 'total'),
    v.cobrado > 0n ? row('Ya pagado', `${esc(pesos(v.cobrado))} de ${esc(pesos(v.monto))}`) : '',
    refundRows(v),
    v.vencimiento && v.canPay ? row('Vence', when(v.vencimiento)) : '',
    row('Estado', esc(estadoLabel(v.estado))),
  ].join('');
  let html = `<div class="card"><p class="comercio">${esc(v.comercio)} te cobra</p><h1>${esc(v.concepto)}</h1><dl>${rows}</dl></div>`;
  if (v.notice) html += `<p class="msg ok" role="status">${esc(v.notice)}</p>`;
  if (v.error) html += `<p class="msg err" role="alert" id="error">${esc(v.error)}</p>`;
  if (!v.canPay) {
    const why =
      v.estado === 'DEVUELTA_PARCIALMENTE'
        ? `Este cobro se pagó y el comercio devolvió ${pesos(v.devuelto)} de los ${pesos(v.cobrado)} pagados: quedan ${pesos(v.cobrado - v.devuelto)} pagados.`
        : (CLOSED[v.estado] ?? `Este cobro no admite pagos (${estadoLabel(v.estado)}).`);
    html += `<p class="msg state" role="status">${esc(why)}</p>`;
    if (v.estado !== 'CANCELADO' && v.cobrado > 0n)
      html += `<p><a href="${base(v.codigo)}/recibo">Ver el comprobante</a></p>`;
    return layout(v.concepto, html);
  }
  if (v.medios.length === 0) {
    html += `<p class="msg state" role="status">Este cobro no acepta ningún medio de pago.</p>`;
    return layout(v.concepto, html);
  }
  const chosen = v.medios.some((m) => m.medio === v.typed?.medio)
    ? v.typed!.medio
    : v.medios[0]!.medio;
  const radios = v.medios
    .map(
      (m) =>
        `<label class="opt"><input type="radio" name="medio" value="${esc(m.medio)}"${m.medio === chosen ? ' checked' : ''}> ${esc(m.label)}</label>`,
    )
    .join('');
  const offered = new Set(v.medios.map((m) => HOW[m.medio]));
  let how = '';
  if (offered.has('qr')) {
    how += `<div class="how" data-medio="qr"><h2>Pagar con QR</h2>`;
    how += v.qr
      ? `<figure>${qrSvg(v.qr, `Código QR para pagar ${esc(pesos(left))} a ${esc(v.comercio)}`)}<figcaption>Escaneá el código con la app de tu banco o billetera.</figcaption></figure>`
      : `<p class="muted">El código QR se está generando. <a href="${base(v.codigo)}">Recargá la página</a> en unos segundos.</p>`;
    how += `</div>`;
  }
  if (offered.has('transferencia')) {
    how += `<div class="how" data-medio="transferencia"><h2>Pagar con transferencia</h2>`;
    how += v.cvu
      ? `<label class="field" for="cvu">CVU para transferir</label><input type="text" id="cvu" readonly value="${esc(v.cvu)}">` +
        `<button type="button" class="sec" data-copy="cvu" hidden>Copiar CVU</button>`
      : `<p class="muted">El CVU se está generando. <a href="${base(v.codigo)}">Recargá la página</a> en unos segundos.</p>`;
    how += `</div>`;
  }
  if (offered.has('tarjeta'))
    how += `<div class="how" data-medio="tarjeta"><h2>Pagar con tarjeta</h2><p class="muted">En el sandbox no se piden los datos de la tarjeta: el pago se simula al tocar «Pagar el total» o «Pagar este monto».</p></div>`;
  // A refused amount is not written back: what the payer types next starts an empty
  // field (the refusal quotes what was typed), and the field has the focus.
  const retype = Boolean(v.error && v.typed?.monto?.trim());
  const action = base(v.codigo);
  html +=
    `<form class="card" method="post" action="${action}/pagar" aria-label="Pagar este cobro"${v.error ? ' aria-describedby="error"' : ''}>` +
    `<input type="hidden" name="version" value="${esc(v.version)}">` +
    `<fieldset><legend>Medio de pago</legend>${radios}</fieldset>` +
    how +
    `<label class="field" for="monto">Monto a pagar ahora</label>` +
    `<p class="help" id="monto-ayuda">Para pagar una parte escribí el monto (${TYPED_AMOUNT_HINT}) y tocá «Pagar este monto».</p>` +
    `<input type="text" id="monto" name="monto" inputmode="decimal" autocomplete="off" aria-describedby="${retype ? 'error ' : ''}monto-ayuda"${retype ? ' autofocus' : ''} value="">` +
    `<button type="submit" class="sec" name="modo" value="parcial">Pagar este monto</button>` +
    `<button type="submit" class="pri" name="modo" value="total">Pagar el total (${esc(pesos(left))})</button>` +
    (v.canCancel
      ? `<div class="sim"><p>Simular otro resultado (solo en el sandbox):</p>` +
        `<button type="submit" formaction="${action}/rechazar">Simular pago rechazado</button>` +
        `<button type="submit" formaction="${action}/expirar">Dejar vencer el cobro</button></div>`
      : '') +
    `</form>`;
  return layout(v.concepto, html);
}

export function receiptPage(v: CheckoutView, lines: ReceiptLine[]): string {
  const paid = v.estado === 'PAGADA';
  let html = paid ? `<p class="msg ok" role="status">¡Listo! El pago está acreditado.</p>` : '';
  html +=
    `<div class="card"><p class="comercio">Comprobante de ${esc(v.comercio)}</p><h1>${esc(v.concepto)}</h1><dl>` +
    row('Total pagado', esc(pesos(v.cobrado)), 'total') +
    refundRows(v) +
    row('Monto del cobro', esc(pesos(v.monto))) +
    row('Estado', esc(estadoLabel(v.estado))) +
    row('Código del cobro', esc(v.codigo)) +
    `</dl>`;
  html += lines.length
    ? `<h2>Pagos</h2><ul class="txs">` +
      lines
        .map(
          (l) =>
            `<li><strong>${esc(pesos(l.monto))}</strong> · ${esc(l.medio)}<br><small>Operación ${esc(l.codigo)} · ${when(l.fecha)}</small></li>`,
        )
        .join('') +
      `</ul>`
    : `<p class="muted">Todavía no hay pagos acreditados.</p>`;
  html += `</div>`;
  if (v.canPay) html += `<p><a href="${base(v.codigo)}">Volver a la página de pago</a></p>`;
  return layout(`Comprobante: ${v.concepto}`, html);
}

export function notFoundPage(codigo: string): string {
  return layout(
    'Cobro no encontrado',
    `<div class="card"><h1>No encontramos este cobro</h1><p>No hay ningún cobro con el código <strong>${esc(codigo)}</strong> en este sandbox. ` +
      `Revisá que el link esté completo o pedile al comercio uno nuevo.</p></div>`,
  );
}
