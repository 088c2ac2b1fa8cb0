// The dashboard's one page: a static shell, its CSS and its script, both inline and
// allowed by hash in a CSP that loads nothing from elsewhere, talks only to this
// origin and cannot be framed; the only data in it is the service's states and rules
// as JSON, which the script reads (script.ts). The script fills the page with
// textContent only (browser/panel.ts). One column at 375 px, two from 64rem.
import { TYPED_AMOUNT_HINT } from '../../domain/money.js';
import { BANNER_CSS, hash } from '../checkout/page.js';
import { panelDataJson, panelScript } from './script.js';

// The banner is the checkout page's (checkout/page.ts), so both sides of the sandbox
// say SANDBOX the same way.
const CSS = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
[hidden]{display:none!important}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f3f4f6}
${BANNER_CSS}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem;z-index:2}
.skip:focus{left:.5rem}
header.top{max-width:90rem;margin:0 auto;padding:.75rem 1rem 0;display:flex;flex-wrap:wrap;align-items:baseline;gap:.25rem 1rem}
h1{font-size:1.3rem;margin:0}
h2{font-size:1.1rem;margin:0 0 .6rem}
h3{font-size:.95rem;margin:1rem 0 .35rem}
main{max-width:90rem;margin:0 auto;padding:.75rem 1rem 2rem}
#app{display:grid;gap:1rem;grid-template-columns:minmax(0,1fr)}
@media (min-width:64rem){#app{grid-template-columns:minmax(0,3fr) minmax(0,2fr)}#app>.bar{grid-column:1/-1}}
.bar{position:sticky;top:0;z-index:2;background:#f3f4f6;padding:.4rem 0;border-bottom:1px solid #d1d5db;display:grid;gap:.4rem}
section,[tabindex="-1"]{scroll-margin-top:var(--bar,4rem)}
.col{display:grid;gap:1rem;align-content:start;min-width:0}
.card{background:#fff;border-radius:.75rem;padding:1rem;box-shadow:0 1px 3px rgba(0,0,0,.12);min-width:0}
nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.3rem .4rem}
nav a{display:inline-block;padding:.2rem .55rem;border-radius:.4rem;background:#fff;border:1px solid #c7d2fe;text-decoration:none;font-weight:600;font-size:.9rem}
label{display:block;font-weight:600;font-size:.9rem;margin:.5rem 0 .2rem}
.help,.muted{color:#4b5563;font-size:.88rem;margin:.2rem 0}
.lectura:empty{display:none}
.lectura.mal{color:#b91c1c}
input,select{font:inherit;width:100%;padding:.45rem .55rem;border:1px solid #9ca3af;border-radius:.45rem;background:#fff;color:inherit;min-width:0}
input[readonly]{background:#f9fafb;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85rem}
textarea.secreto{display:block;width:100%;font:.85rem/1.4 ui-monospace,Menlo,Consolas,monospace;padding:.45rem .55rem;border:1px solid #9ca3af;border-radius:.45rem;background:#f9fafb;color:inherit;resize:none;overflow:hidden;word-break:break-all;field-sizing:content}
button{font:inherit;font-weight:600;min-height:2.5rem;padding:.4rem .9rem;border-radius:.45rem;cursor:pointer;border:2px solid #1d4ed8;background:#fff;color:#1d4ed8}
button.pri{background:#1d4ed8;color:#fff}
button.warn{border-color:#b91c1c;color:#b91c1c}
button:disabled{opacity:.55;cursor:not-allowed}
button:focus-visible,input:focus-visible,select:focus-visible,a:focus-visible,[tabindex]:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.grid{display:grid;gap:0 .75rem;grid-template-columns:repeat(auto-fit,minmax(min(100%,13rem),1fr));align-items:end}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;margin-top:.6rem}
fieldset{border:1px solid #e5e7eb;border-radius:.5rem;margin:.75rem 0 0;padding:.25rem .75rem .75rem;min-width:0}
legend{font-weight:700;padding:0 .25rem}
.msg{padding:.6rem .8rem;border-radius:.5rem;margin:0;overflow-wrap:anywhere}
.msg:empty{display:none}
.ok{background:#dcfce7;color:#14532d;border:1px solid #86efac}
.err{background:#fee2e2;color:#7f1d1d;border:1px solid #fca5a5}
.msgs{display:grid;gap:.5rem}
.msgs:has(.msg:not(:empty)){margin-top:.6rem}
.bar .msgs{margin:0}
.pager{display:flex;flex-wrap:wrap;align-items:center;gap:.4rem .75rem;margin-top:.5rem}
ul.ents{list-style:none;margin:.5rem 0 0;padding:0}
ul.ents li{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.25rem .75rem;padding:.4rem 0;border-top:1px solid #e5e7eb}
ul.ents li>div{min-width:0;flex:1 1 11rem;overflow-wrap:anywhere}
ul.ents button{min-height:2.25rem;padding:.25rem .6rem}
ul.ents small{display:block;color:#4b5563}
ul.rows{list-style:none;margin:.5rem 0 0;padding:0}
ul.rows li{border-top:1px solid #e5e7eb}
ul.rows button{display:block;width:100%;text-align:left;border:0;border-radius:0;background:none;color:inherit;font-weight:400;padding:.5rem .25rem;overflow-wrap:anywhere}
ul.rows button:hover{background:#eff6ff}
ul.rows li.sel button{background:#e0e7ff}
.code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85rem}
.estado{display:inline-block;white-space:nowrap;font-size:.78rem;font-weight:700;padding:.05rem .4rem;border-radius:.3rem;background:#e5e7eb;color:#111827}
.estado.PAGADA{background:#dcfce7;color:#14532d}.estado.PAGADA_PARCIALMENTE{background:#fef9c3;color:#713f12}
.estado.CANCELADO{background:#fee2e2;color:#7f1d1d}.estado.DEVUELTA,.estado.DEVUELTA_PARCIALMENTE{background:#ede9fe;color:#4c1d95}
.estado.EN_PROCESO{background:#dbeafe;color:#1e3a8a}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%;font-size:.85rem}
th,td{text-align:left;padding:.3rem .4rem;border-top:1px solid #e5e7eb;vertical-align:top;overflow-wrap:break-word}
td button{white-space:nowrap;min-height:2.25rem;padding:.25rem .6rem}
td small{display:block;color:#4b5563;white-space:nowrap}
th{font-weight:600;color:#374151;white-space:nowrap}
td.n{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
@media (max-width:40rem){.scroll table,.scroll tbody,.scroll tr,.scroll td{display:block}
.scroll thead{display:none}
.scroll tr{border-top:1px solid #e5e7eb;padding:.3rem 0}
.scroll td{display:flex;flex-wrap:wrap;justify-content:space-between;gap:0 .75rem;border:0;padding:.1rem .4rem;text-align:right;overflow-wrap:anywhere}
.scroll td::before{content:attr(data-label);color:#4b5563;font:600 .85rem system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;text-align:left}
.scroll td[colspan]{display:block;text-align:left}.scroll td[colspan]::before{content:none}}
dl.kv{margin:0;display:grid;grid-template-columns:minmax(0,max-content) minmax(min-content,1fr);gap:.15rem .75rem}
dl.kv dt{color:#4b5563}
dl.kv dd{margin:0;overflow-wrap:anywhere;font-weight:600}
.entera{white-space:nowrap}
ol.log{list-style:none;margin:.5rem 0 0;padding:0;max-height:24rem;overflow-y:auto;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.8rem}
ol.log li{padding:.15rem 0;border-top:1px solid #f3f4f6;overflow-wrap:anywhere}
.s2{color:#166534}.s4{color:#9a3412}.s5,.sx{color:#b91c1c}
.live{font-size:.85rem}
a{color:#1d4ed8}
`;

/**
 * Where the outcome of an action shows: a notice and an alert, inside the zone
 * ([data-zona]) of the control that caused it (browser/panel.ts), so a refusal appears
 * beside its form and not at the top of a long page.
 */
function msgs(ok?: string, err?: string): string {
  const id = (v: string | undefined) => (v ? ` id="${v}"` : '');
  return `<div class="msgs"><p class="msg ok"${id(ok)} role="status" aria-live="polite"></p><p class="msg err"${id(err)} role="alert"></p></div>`;
}

/**
 * How an amount field is read, said back while the person types (browser/panel.ts):
 * "1.500,50 → 1500.50" as svc's prompts say it, or money.ts's refusal.
 */
function lectura(id: string): string {
  return `<p class="help lectura" id="${id}-lectura" aria-live="polite"></p>`;
}

/** A long list a page at a time: newer, where it is, older (browser/panel.ts pages it). */
function pager(name: string, newer: string, older: string): string {
  return (
    `<div class="pager" id="${name}-pager" hidden><button type="button" id="${name}-nuevos">${newer}</button>` +
    `<span class="muted" id="${name}-pagina"></span><button type="button" id="${name}-viejos">${older}</button></div>`
  );
}

const HTML_BODY = `
<div class="banner" role="note"><strong>SANDBOX</strong> · Panel de prueba de svc: no se cobra dinero real.</div>
<a class="skip" href="#contenido">Saltar al contenido</a>
<header class="top"><h1>Panel del sandbox</h1><p class="muted live" id="conexion" role="status">Sin conectar</p></header>
<main id="contenido">
<section id="acceso" class="card" aria-labelledby="acceso-t">
<h2 id="acceso-t">Conectarse</h2>
<form id="form-clave">
<label for="clave">Clave de API de test</label>
<p class="help" id="clave-ayuda">La que imprime <code>svc sandbox</code> al arrancar (svc_test_…). Queda guardada solo en esta pestaña.</p>
<input id="clave" type="password" autocomplete="off" spellcheck="false" aria-describedby="clave-ayuda" required>
<div class="actions"><button type="submit" class="pri">Conectar</button></div>
</form>
<p class="msg err" id="acceso-error" role="alert"></p>
</section>
<div id="app" hidden>
<div class="bar" id="barra">
<nav aria-label="Secciones del panel"><ul>
<li><a href="#cobros">Cobros</a></li><li><a href="#notificaciones">Notificaciones</a></li><li><a href="#registro">Registro</a></li>
<li><a href="#liquidaciones">Liquidaciones</a></li><li><a href="#reloj">Reloj</a></li><li><a href="#fallas">Fallas</a></li><li><a href="#claves">Claves</a></li>
</ul></nav>
${msgs('aviso', 'error')}
</div>
<div class="col">
<section id="cobros" class="card" aria-labelledby="cobros-t">
<h2 id="cobros-t">Cobros</h2>
<div data-zona>
<form id="form-crear" aria-label="Crear un cobro">
<div class="grid">
<div><label for="crear-concepto">Concepto</label><input id="crear-concepto" required maxlength="500"></div>
<div><label for="crear-monto">Monto</label><input id="crear-monto" inputmode="decimal" autocomplete="off" placeholder="${TYPED_AMOUNT_HINT}" aria-describedby="crear-monto-lectura" required></div>
<div><label for="crear-referencia">Referencia (opcional)</label><input id="crear-referencia" maxlength="200"></div>
</div>
${lectura('crear-monto')}
<div class="actions"><button type="submit" class="pri">Crear cobro</button></div>
</form>
${msgs()}
</div>
<form id="form-filtro" role="search" aria-label="Filtrar cobros">
<div class="grid">
<div><label for="filtro-estado">Estado</label><select id="filtro-estado"><option value="">Todos</option></select></div>
<div><label for="filtro-q">Buscar (código, concepto o referencia)</label><input id="filtro-q" type="search" autocomplete="off"></div>
</div>
</form>
<p class="muted" id="cobros-n"></p>
<ul class="rows" id="lista-cobros" aria-label="Cobros, el más nuevo primero"></ul>
${pager('cobros', 'Cobros más nuevos', 'Cobros más viejos')}
</section>
<section id="detalle" class="card" aria-labelledby="detalle-t" hidden>
<h2 id="detalle-t" tabindex="-1">Cobro</h2>
<dl class="kv" id="detalle-datos"></dl>
<p><a id="detalle-url" target="_blank" rel="noopener noreferrer">Abrir la página de pago</a></p>
<div data-zona>
<form id="form-pagar" aria-label="Simular un pago">
<fieldset><legend>Simular un pago</legend>
<div class="grid">
<div><label for="pagar-monto">Monto a pagar (vacío = lo que queda)</label><input id="pagar-monto" inputmode="decimal" autocomplete="off" placeholder="${TYPED_AMOUNT_HINT}" aria-describedby="pagar-monto-lectura"></div>
<div><label for="pagar-medio">Medio</label><select id="pagar-medio"></select></div>
</div>
${lectura('pagar-monto')}
<div class="actions"><button type="submit" class="pri">Pagar</button><button type="button" id="btn-rechazar" class="warn">Rechazar pago</button></div>
</fieldset>
</form>
<div class="actions">
<button type="button" id="btn-iniciar">Iniciar pago (EN_PROCESO)</button>
<button type="button" id="btn-expirar" class="warn">Vencer cobro</button>
<button type="button" id="btn-cerrar">Cerrar detalle</button>
</div>
${msgs('detalle-aviso')}
</div>
<div data-zona>
<form id="form-devolver" aria-label="Devolver dinero">
<fieldset><legend>Devolver</legend>
<p class="muted" id="devolver-queda"></p>
<div class="grid">
<div><label for="devolver-monto">Monto a devolver</label><input id="devolver-monto" inputmode="decimal" autocomplete="off" placeholder="${TYPED_AMOUNT_HINT}" aria-describedby="devolver-monto-lectura"></div>
<div><label for="devolver-tx">Sobre la transacción</label><select id="devolver-tx"></select></div>
</div>
${lectura('devolver-monto')}
<div class="actions"><button type="submit">Revisar devolución</button><button type="button" id="devolver-todo">Devolver todo lo que queda</button></div>
<div id="devolver-confirmar" hidden>
<p id="devolver-pregunta" class="msg ok"></p>
<div class="actions"><button type="button" class="pri" id="devolver-si">Confirmar devolución</button><button type="button" id="devolver-no">Cancelar devolución</button></div>
</div>
</fieldset>
</form>
${msgs('devolver-aviso')}
</div>
<h3 id="h-tx">Transacciones</h3>
<div class="scroll" tabindex="0" role="region" aria-labelledby="h-tx"><table aria-labelledby="h-tx"><thead><tr><th scope="col">Id</th><th scope="col">Medio</th><th scope="col">Monto</th><th scope="col">Te queda</th><th scope="col">Estado</th><th scope="col">Código</th><th scope="col">Fecha</th></tr></thead><tbody id="t-tx"></tbody></table></div>
<h3 id="h-dev">Devoluciones</h3>
<div class="scroll" tabindex="0" role="region" aria-labelledby="h-dev"><table aria-labelledby="h-dev"><thead><tr><th scope="col">Id</th><th scope="col">Monto</th><th scope="col">Tipo</th><th scope="col">Estado</th><th scope="col">Fecha</th></tr></thead><tbody id="t-dev"></tbody></table></div>
<h3 id="h-liq">Liquidaciones estimadas</h3>
<div class="scroll" tabindex="0" role="region" aria-labelledby="h-liq"><table aria-labelledby="h-liq"><thead><tr><th scope="col">Id</th><th scope="col">Bruto</th><th scope="col">Te cobramos</th><th scope="col">Te queda</th><th scope="col">Llega</th></tr></thead><tbody id="t-liq"></tbody></table></div>
<h3 id="h-ev">Eventos</h3>
<div class="scroll" tabindex="0" role="region" aria-labelledby="h-ev"><table aria-labelledby="h-ev"><thead><tr><th scope="col">Nº</th><th scope="col">Evento</th><th scope="col">Estado</th><th scope="col">Cobrado</th><th scope="col">Fecha</th></tr></thead><tbody id="t-ev"></tbody></table></div>
<h3 id="h-ent">Entregas de este cobro</h3>
<div class="scroll" tabindex="0" role="region" aria-labelledby="h-ent"><table aria-labelledby="h-ent"><thead><tr><th scope="col">Nº</th><th scope="col">Evento</th><th scope="col">Intento</th><th scope="col">Respuesta</th><th scope="col">Latencia</th><th scope="col">Fecha</th></tr></thead><tbody id="t-ent"></tbody></table></div>
</section>
</div>
<div class="col">
<section id="notificaciones" class="card" aria-labelledby="notif-t" data-zona>
<h2 id="notif-t">Notificaciones</h2>
<p class="muted" id="webhook-url"></p>
${msgs('notif-aviso')}
<ul class="ents" id="t-notif" aria-labelledby="notif-t"></ul>
${pager('notif', 'Notificaciones más nuevas', 'Notificaciones más viejas')}
</section>
<section id="registro" class="card" aria-labelledby="registro-t">
<h2 id="registro-t">Registro de pedidos</h2>
<p class="muted">Se actualiza solo, el más nuevo primero. Nunca muestra encabezados, claves ni cuerpos.</p>
<ol class="log" id="log" aria-labelledby="registro-t" tabindex="0"></ol>
</section>
<section id="liquidaciones" class="card" aria-labelledby="liq-t">
<h2 id="liq-t">Liquidaciones</h2>
<h3 id="h-tot">Totales por fecha estimada</h3>
<div class="scroll" tabindex="0" role="region" aria-labelledby="h-tot"><table aria-labelledby="h-tot"><thead><tr><th scope="col">Fecha</th><th scope="col">Cantidad</th><th scope="col">Bruto</th><th scope="col">Te cobramos</th><th scope="col">Te queda</th></tr></thead><tbody id="t-tot"></tbody></table></div>
</section>
<section id="reloj" class="card" aria-labelledby="reloj-t">
<h2 id="reloj-t">Reloj</h2>
<dl class="kv"><dt>Ahora en el sandbox</dt><dd id="reloj-ahora">…</dd><dt>Adelanto</dt><dd id="reloj-adelanto">…</dd></dl>
<div data-zona>
<form id="form-reloj" aria-label="Adelantar el reloj">
<div class="grid">
<div><label for="reloj-dur">Adelantar</label><select id="reloj-dur"><option value="30m">30 minutos</option><option value="1h">1 hora</option><option value="12h">12 horas</option><option value="1d">1 día</option><option value="2d">2 días</option><option value="8d">8 días</option><option value="30d">30 días</option></select></div>
</div>
<div class="actions"><button type="submit">Adelantar el reloj</button></div>
</form>
${msgs('reloj-aviso')}
</div>
</section>
<section id="fallas" class="card" aria-labelledby="fallas-t">
<h2 id="fallas-t">Fallas</h2>
<div data-zona>
<form id="form-falla" aria-label="Agregar una falla">
<div class="grid">
<div><label for="falla-metodo">Método</label><select id="falla-metodo"><option value="*">Cualquiera</option><option>GET</option><option>POST</option></select></div>
<div><label for="falla-ruta">Ruta</label><input id="falla-ruta" value="/v1/cobros*" required></div>
<div><label for="falla-tipo">Falla</label><select id="falla-tipo"><option value="500">500</option><option value="500-despues">500 después de procesar</option><option value="502-html">502 con HTML</option><option value="503">503</option><option value="429">429</option><option value="lento">Lenta (5 s)</option><option value="cortar">Cortar la conexión</option><option value="cortar-despues">Cortar después de procesar</option></select></div>
<div><label for="falla-veces">Veces</label><input id="falla-veces" type="number" min="1" max="1000" value="1" required></div>
</div>
<div class="actions"><button type="submit">Agregar falla</button><button type="button" id="fallas-borrar" class="warn">Borrar todas las fallas</button></div>
</form>
${msgs()}
</div>
<div class="scroll" tabindex="0" role="region" aria-labelledby="fallas-t"><table aria-labelledby="fallas-t"><thead><tr><th scope="col">Id</th><th scope="col">Método</th><th scope="col">Ruta</th><th scope="col">Acción</th><th scope="col">Quedan</th></tr></thead><tbody id="t-fallas"></tbody></table></div>
</section>
<section id="claves" class="card" aria-labelledby="claves-t" data-zona>
<h2 id="claves-t">Claves y secreto</h2>
<p class="muted">Ocultos hasta que los pidas. El secreto firma las notificaciones (X-Svc-Signature).</p>
<div class="actions"><button type="button" id="claves-ver" aria-expanded="false" aria-controls="claves-datos">Mostrar claves y secreto</button><button type="button" id="salir">Olvidar la clave de esta pestaña</button></div>
${msgs()}
<div id="claves-datos" hidden></div>
</section>
</div>
</div>
</main>`;

/**
 * Headers of the dashboard: only its own hashed style and script run, it fetches
 * only from this origin, submits nowhere, and no other page may frame it.
 */
const panelHeaders = (script: string): Record<string, string> => ({
  'Content-Security-Policy':
    `default-src 'none'; style-src ${hash(CSS)}; script-src ${hash(script)}; connect-src 'self'; img-src data:; ` +
    `form-action 'none'; base-uri 'none'; frame-ancestors 'none'`,
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
});

let built: { html: string; headers: Record<string, string> } | undefined;

/** The page and its headers, made when first asked for (the script is read from the build then). */
export function panelPage(): { html: string; headers: Record<string, string> } {
  if (built) return built;
  const script = panelScript();
  const html =
    `<!doctype html><html lang="es-AR"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<meta name="robots" content="noindex"><link rel="icon" href="data:,"><title>Panel · SANDBOX</title><style>${CSS}</style></head><body>` +
    HTML_BODY +
    `<script type="application/json" id="panel-datos">${panelDataJson()}</script>` +
    `<script>${script}</script></body></html>`;
  built = { html, headers: panelHeaders(script) };
  return built;
}
