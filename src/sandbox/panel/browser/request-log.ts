// The requests the sandbox received, newest first, live.
import { call, latest } from './calls.js';
import { $, clear, el } from './dom.js';
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

/**
 * A path with a line break allowed after each "/" and before "?" and "&": on a phone
 * /v1/cobros/12/devoluciones was cut inside a word (devolu|ciones). A part longer
 * than the line still breaks where it must (the list's overflow-wrap).
 */
function pathParts(path: string): (string | HTMLElement)[] {
  const out: (string | HTMLElement)[] = [];
  for (const part of path.split(/(?<=\/)|(?=[?&])/)) {
    if (out.length) out.push(el('wbr'));
    out.push(part);
  }
  return out;
}

function logLine(l: LineaLog): HTMLLIElement {
  const st = l.status === null ? 'x' : String(l.status).charAt(0);
  const li = el('li', `s${st}`);
  li.append(
    `#${l.id}  ${l.fecha}  ${l.method} `,
    ...pathParts(l.path),
    `  → ${l.status === null ? 'cortada' : l.status}  ${l.ms} ms` +
      (l.comercio === null ? '' : `  · comercio ${l.comercio}`) +
      (l.ensayo ? ' (ensayo live)' : ''),
  );
  return li;
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
