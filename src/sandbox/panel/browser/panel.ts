// The dashboard's script: a browser program, type-checked with the DOM's types
// (tsconfig.json here) and bundled by src/build/bundle.mjs into dist/panel/panel.js,
// which page.ts serves inline, allowed by its hash. No framework. This file wires the
// page's controls to the modules beside it, one per concern:
//   calls.ts      the sandbox's routes, with the key kept in this tab (sessionStorage)
//   session.ts    connecting with the key, forgetting it
//   live.ts       the live stream of events, deliveries and log lines
//   cobro-list.ts the list of requests, the selected one, creating one
//   detail.ts     one request whole, and the payer's moves
//   refund.ts     a refund: svc devolver's checks, a confirmation, one POST
//   deliveries.ts, request-log.ts, settlements.ts, sandbox-clock.ts, faults-form.ts,
//   keys.ts       the other sections
//   dom.ts, messages.ts, paging.ts, amounts.ts, page-data.ts, wire.ts: what they share
// Every value from the sandbox reaches the page as text (dom.ts), amounts are read by
// money.ts as svc's prompts read them (amounts.ts), and the wire types are
// api/schemas.ts's (wire.ts).
import { showReading } from './amounts.js';
import { onKeyRefused, soon, storedKey } from './calls.js';
import { createCobro, loadCobros, onOpenCobro, renderCobros } from './cobro-list.js';
import { renderEntregas } from './deliveries.js';
import { closeDetail, movePayer, openDetail, pay, whenDetailOpens } from './detail.js';
import { $, el, input, select } from './dom.js';
import { addFault, clearFaults } from './faults-form.js';
import { toggleKeys } from './keys.js';
import { on, showError } from './messages.js';
import { DATA } from './page-data.js';
import { bindPager, pageAt } from './paging.js';
import { loadAll } from './refresh.js';
import { cancelDevolucion, confirmDevolucion, dropReview, reviewDevolucion } from './refund.js';
import { advanceClock } from './sandbox-clock.js';
import { connect, disconnect, submitKey } from './session.js';

onKeyRefused(disconnect);
onOpenCobro(openDetail);
whenDetailOpens(dropReview);

for (const e of DATA.estados) {
  const o = el('option', '', e);
  o.value = e;
  $('filtro-estado').appendChild(o);
}
on('form-clave', 'submit', submitKey);
on('form-crear', 'submit', createCobro);
on('form-filtro', 'submit', (ev) => {
  ev.preventDefault();
  pageAt.cobros = 0;
  return loadCobros();
});
on('filtro-estado', 'change', () => {
  pageAt.cobros = 0;
  return loadCobros();
});
on('filtro-q', 'input', () => {
  pageAt.cobros = 0;
  soon('cobros', loadCobros, 250);
});
bindPager('cobros', renderCobros);
bindPager('notif', renderEntregas);
for (const id of ['crear-monto', 'pagar-monto', 'devolver-monto'])
  on(id, 'input', () => showReading(input(id)));
on('form-pagar', 'submit', pay);
on('btn-iniciar', 'click', () => movePayer('iniciar'));
on('btn-rechazar', 'click', () => movePayer('rechazar', { medio: select('pagar-medio').value }));
on('btn-expirar', 'click', () => movePayer('expirar'));
on('btn-cerrar', 'click', closeDetail);
on('form-devolver', 'submit', (ev) => {
  ev.preventDefault();
  return reviewDevolucion(false);
});
on('devolver-todo', 'click', () => reviewDevolucion(true));
on('devolver-si', 'click', confirmDevolucion);
on('devolver-no', 'click', cancelDevolucion);
on('form-reloj', 'submit', async (ev) => {
  await advanceClock(ev);
  await loadAll();
});
on('form-falla', 'submit', addFault);
on('fallas-borrar', 'click', clearFaults);
on('claves-ver', 'click', toggleKeys);
on('salir', 'click', () => disconnect('Clave olvidada: esta pestaña ya no la tiene.'));
// Sections scrolled to from the bar stop below it, whatever its height at this width.
new ResizeObserver(() =>
  document.documentElement.style.setProperty('--bar', `${$('barra').offsetHeight + 8}px`),
).observe($('barra'));

if (storedKey()) connect().catch((err: unknown) => showError(err));
else $('clave').focus();
