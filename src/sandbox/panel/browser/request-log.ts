// The requests the sandbox received, newest first, live.
import { call, latest } from './calls.js';
import { $, clear, el, text } from './dom.js';
import { withNewer } from './paging.js';
import type { LineaLog } from './wire.js';

const MAX_LOG = 300;
let lines: LineaLog[] = [];

export async function loadLog(): Promise<void> {
  const r = await latest('log', () => call<LineaLog[]>('GET', '/_sandbox/log'));
  if (!r) return;
  lines = withNewer(r.v.slice(-MAX_LOG).reverse(), lines).slice(0, MAX_LOG);
  const ol = $('log');
  clear(ol);
  for (const l of lines) ol.appendChild(logLine(l));
}

function logLine(l: LineaLog): HTMLLIElement {
  const st = l.status === null ? 'x' : String(l.status).charAt(0);
  return text(
    el('li', `s${st}`),
    `#${l.id}  ${l.fecha}  ${l.method} ${l.path}  → ${l.status === null ? 'cortada' : l.status}  ${l.ms} ms` +
      (l.comercio === null ? '' : `  · comercio ${l.comercio}`) +
      (l.ensayo ? ' (ensayo live)' : ''),
  );
}

export function addLogLine(l: LineaLog): void {
  if (lines.length && lines[0]!.id >= l.id) return;
  lines.unshift(l);
  const ol = $('log');
  ol.insertBefore(logLine(l), ol.firstChild);
  while (lines.length > MAX_LOG) {
    lines.pop();
    if (ol.lastChild) ol.removeChild(ol.lastChild);
  }
}
