// The list of payment requests: filtered by state and searched as `q` does, newest
// first, a page at a time; which one is selected; creating one.
import { amountOf, showReading } from './amounts.js';
import { call, latest } from './calls.js';
import { $, badge, clear, el, input, select, text } from './dom.js';
import { notify, showErrorAt, zoneBox } from './messages.js';
import { pageAt, pageOf } from './paging.js';
import type { Cobro } from './wire.js';

let cobros: Cobro[] = [];
let selected: number | null = null;
/** What choosing a request does (detail.ts: open its detail), set by panel.ts. */
let open: (id: number) => Promise<void> = async () => {};

export const selectedCobro = () => selected;
export function selectCobro(id: number | null): void {
  selected = id;
}
export function onOpenCobro(fn: (id: number) => Promise<void>): void {
  open = fn;
}

export async function loadCobros(): Promise<void> {
  const q = new URLSearchParams();
  if (select('filtro-estado').value) q.set('estado', select('filtro-estado').value);
  if (input('filtro-q').value.trim()) q.set('q', input('filtro-q').value.trim());
  const qs = q.toString();
  const r = await latest('cobros', () => call<Cobro[]>('GET', `/v1/cobros${qs ? `?${qs}` : ''}`));
  if (!r) return;
  cobros = r.v;
  renderCobros();
}

export function renderCobros(): void {
  const ul = $('lista-cobros');
  clear(ul);
  const n = cobros.length;
  text(
    $('cobros-n'),
    n === 0 ? 'No hay cobros con ese filtro.' : `${n}${n === 1 ? ' cobro' : ' cobros'}`,
  );
  for (const c of pageOf('cobros', cobros)) {
    const li = el('li', c.id === selected ? 'sel' : '');
    const b = el('button');
    b.type = 'button';
    b.dataset.id = String(c.id);
    if (c.id === selected) b.setAttribute('aria-current', 'true');
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
    b.addEventListener('click', () => open(c.id).catch(showErrorAt(b)));
    li.appendChild(b);
    ul.appendChild(li);
  }
}

export async function createCobro(ev: Event): Promise<void> {
  ev.preventDefault();
  const body: Record<string, string> = {
    concepto: input('crear-concepto').value,
    monto: amountOf(input('crear-monto')),
  };
  const ref = input('crear-referencia').value.trim();
  if (ref) body.referencia = ref;
  const c = await call<Cobro>('POST', '/v1/cobros', body);
  ($('form-crear') as HTMLFormElement).reset();
  showReading(input('crear-monto'));
  pageAt.cobros = 0;
  // Said where the person is taken: the new request's detail.
  try {
    await loadCobros();
    await open(c.id);
  } finally {
    notify(
      `Cobro ${c.id} creado (${c.codigo}): ${c.monto}, ${c.estado}.`,
      zoneBox($('form-pagar')),
    );
  }
}
