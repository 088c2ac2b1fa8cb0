// Notifications: every delivery attempt with the receiver's status or error and its
// latency, a page at a time, each with its "Reenviar".
import { call, latest, soon } from './calls.js';
import { $, clear, el, text } from './dom.js';
import { notify, showError, zoneBox } from './messages.js';
import { pageOf, withNewer } from './paging.js';
import type { Entrega } from './wire.js';

let entregas: Entrega[] = [];

/** What the receiver answered an attempt, in a few words. */
export function answer(e: Entrega): string {
  if (e.status !== null) return `${e.status}${e.ok ? ' ok' : ' falló'}`;
  return e.error || 'sin respuesta';
}

export async function loadEntregas(): Promise<void> {
  const r = await latest('entregas', () =>
    Promise.all([
      call<Entrega[]>('GET', '/_sandbox/entregas'),
      call<{ url: string | null }>('GET', '/_sandbox/webhook'),
    ]),
  );
  if (!r) return;
  entregas = withNewer(r.v[0].slice().reverse(), entregas);
  text(
    $('webhook-url'),
    r.v[1].url
      ? `Se envían a ${r.v[1].url}`
      : 'Sin URL de notificaciones (svc sandbox --webhook-url, o POST /_sandbox/webhook): no se envía nada.',
  );
  renderEntregas();
}

export function addEntrega(e: Entrega): void {
  if (entregas.some((x) => x.id === e.id)) return;
  entregas.unshift(e);
  soon('pintar-entregas', async () => renderEntregas(), 60);
}

function resend(e: Entrega, b: HTMLButtonElement): void {
  const box = zoneBox(b);
  call<{ evento_id: number; event: string; url: string }>(
    'POST',
    `/_sandbox/eventos/${e.evento_id}/reenviar`,
    {},
  )
    .then((r) =>
      notify(
        `Evento ${r.evento_id} (${r.event}) reenviado a ${r.url}: el intento aparece en la lista.`,
        box,
      ),
    )
    .catch((err: unknown) => showError(err, box));
}

// A list, not a table: each delivery's button stays beside it at any width.
export function renderEntregas(): void {
  const ul = $('t-notif');
  clear(ul);
  if (!entregas.length) ul.appendChild(el('li', 'muted', 'Sin registros'));
  for (const e of pageOf('notif', entregas)) {
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
    b.addEventListener('click', () => resend(e, b));
    li.appendChild(b);
    ul.appendChild(li);
  }
}
