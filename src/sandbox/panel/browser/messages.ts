// An outcome shows in the message box of the zone ([data-zona], page.ts) of the control
// that caused it, beside its form; what no control caused (a live update that failed)
// shows in the bar that stays on screen. One outcome at a time: a new one clears the rest.
import { $, text } from './dom.js';

export function zoneBox(node: Element | null): HTMLElement {
  const z = node?.closest('[data-zona]') ?? $('barra');
  return z.querySelector('.msgs') as HTMLElement;
}
function show(box: HTMLElement | undefined, cls: string, msg: string): void {
  document.querySelectorAll('.msgs .msg').forEach((m) => text(m, ''));
  text((box ?? zoneBox(null)).querySelector(cls)!, msg);
}
export function notify(msg: string, box?: HTMLElement): void {
  show(box, '.ok', msg);
}
export function showError(err: unknown, box?: HTMLElement): void {
  show(box, '.err', err instanceof Error ? err.message : String(err));
}
/** showError, in the box of node's zone. */
export const showErrorAt = (node: Element) => (err: unknown) => showError(err, zoneBox(node));

/** Listens to type on #id; a failure of fn shows in that element's zone. */
export function on(id: string, type: string, fn: (ev: Event) => unknown): void {
  const node = $(id);
  node.addEventListener(type, (ev) => {
    const p = fn(ev);
    if (p instanceof Promise) p.catch(showErrorAt(node));
  });
}
