// The live stream: one fetch-read stream of server-sent events (/_sandbox/stream, which
// needs the key in a header, so not EventSource) brings new events, delivery attempts
// and log lines. Cut, it comes back with a growing wait, and what happened meanwhile is
// read again whole.
import { headers, keyRefused, soon } from './calls.js';
import { loadCobros, selectedCobro } from './cobro-list.js';
import { addEntrega } from './deliveries.js';
import { reloadDetail } from './detail.js';
import { $, text } from './dom.js';
import { showError } from './messages.js';
import { loadAll } from './refresh.js';
import { addLogLine } from './request-log.js';
import { loadLiquidaciones } from './settlements.js';
import type { Entrega, Evento, LineaLog } from './wire.js';

const stream = { ctl: null as AbortController | null, wait: 1000 };
/** Who the page is connected as and in which mode (session.ts), said beside the stream's state. */
let who = '';

/**
 * "Conectado como … · modo test · el panel se actualiza solo". The stream's state is
 * said as what it does for the person, never as "en vivo", which reads as svc's live
 * mode (real money): the mode is said apart, from the key.
 */
export function showConnection(streaming: boolean, as?: string): void {
  if (as !== undefined) who = as;
  text(
    $('conexion'),
    who + (streaming ? ' · el panel se actualiza solo' : ' · sin actualizar: reconectando…'),
  );
}

export function stopStream(): void {
  if (!stream.ctl) return;
  const c = stream.ctl;
  stream.ctl = null;
  c.abort();
}

export async function connectStream(): Promise<void> {
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
      keyRefused('El sandbox no aceptó la clave.');
      return;
    }
    if (!res.ok || !res.body) throw new Error(`stream ${res.status}`);
    showConnection(true);
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
        receive(buf.slice(0, i));
        buf = buf.slice(i + 2);
      }
    }
  } catch {
    if (ctl.signal.aborted) return;
  }
  if (stream.ctl !== ctl) return;
  showConnection(false);
  // Whatever happened while cut is read again whole once the stream is back.
  setTimeout(() => {
    if (stream.ctl !== ctl) return;
    loadAll().catch((err: unknown) => showError(err));
    void connectStream();
  }, stream.wait);
  stream.wait = Math.min(stream.wait * 2, 30000);
}

function receive(block: string): void {
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
    addLogLine(msg as LineaLog);
  } else if (kind === 'entrega') {
    const e = msg as Entrega;
    addEntrega(e);
    if (selectedCobro() === e.cobro_id) soon('detalle', reloadDetail);
  } else if (kind === 'evento') {
    soon('cobros', loadCobros);
    soon('liq', loadLiquidaciones, 300);
    if (selectedCobro() === (msg as Evento).body.cobro_id) soon('detalle', reloadDetail);
  }
}
