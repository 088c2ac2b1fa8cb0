// Building the page: every value from the sandbox reaches it through textContent or a
// property (never HTML), so a concept holding markup is shown as text.
import { DATA } from './page-data.js';

/** Rows of a table drawn at most. */
const MAX_ROWS = 200;

export function $(id: string): HTMLElement {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no #${id}`);
  return node;
}
export const input = (id: string) => $(id) as HTMLInputElement;
export const select = (id: string) => $(id) as HTMLSelectElement;
export const button = (id: string) => $(id) as HTMLButtonElement;

export function text<T extends Node>(node: T, value: unknown): T {
  node.textContent = value === null || value === undefined ? '' : String(value);
  return node;
}
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  cls?: string,
  value?: unknown,
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (value !== undefined) text(e, value);
  return e;
}
export function clear(node: Node): void {
  while (node.firstChild) node.removeChild(node.firstChild);
}

export function cell(tr: HTMLTableRowElement, value: unknown, cls?: string): HTMLTableCellElement {
  const td = el('td', cls, value);
  tr.appendChild(td);
  return td;
}
/** A table's body: a row per item (at most MAX_ROWS), or one row saying there is none. */
export function fill<T>(
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
  // Each cell names its column (page.ts: a narrow screen shows a row as label: value).
  const heads = [...(tbody.closest('table')?.querySelectorAll('thead th') ?? [])].map(
    (th) => th.textContent ?? '',
  );
  for (const r of rows.slice(0, MAX_ROWS)) {
    const tr = el('tr');
    render(tr, r);
    tr.querySelectorAll('td').forEach((td, i) => (td.dataset.label = heads[i] ?? ''));
    tbody.appendChild(tr);
  }
}
/** A state as a badge, coloured when it is one of the service's states. */
export function badge(estado: string): HTMLSpanElement {
  return el(
    'span',
    `estado ${(DATA.estados as readonly string[]).includes(estado) ? estado : ''}`,
    estado,
  );
}
