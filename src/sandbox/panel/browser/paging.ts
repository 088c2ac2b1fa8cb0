// Long lists: rows shown a page at a time (the pagers of page.ts), so the page stays short
// enough that every section is a click away; and a list read whole merged with what the
// live stream brought meanwhile.
import { $, button, text } from './dom.js';
import { on } from './messages.js';

const PAGE = { cobros: 15, notif: 15 };
export type Paged = keyof typeof PAGE;
/** The page each list shows (0: the newest). */
export const pageAt: Record<Paged, number> = { cobros: 0, notif: 0 };

/** The rows of list on its page, and its pager set: hidden when one page holds them all. */
export function pageOf<T>(name: Paged, list: T[]): T[] {
  const size = PAGE[name];
  const pages = Math.max(1, Math.ceil(list.length / size));
  if (pageAt[name] >= pages) pageAt[name] = pages - 1;
  const from = pageAt[name] * size;
  const rows = list.slice(from, from + size);
  $(`${name}-pager`).hidden = pages <= 1;
  button(`${name}-nuevos`).disabled = pageAt[name] === 0;
  button(`${name}-viejos`).disabled = pageAt[name] >= pages - 1;
  text(
    $(`${name}-pagina`),
    rows.length ? `${from + 1}–${from + rows.length} de ${list.length}` : '',
  );
  return rows;
}

/** The pager's buttons of list name: a page newer or older, drawn by render. */
export function bindPager(name: Paged, render: () => void): void {
  on(`${name}-nuevos`, 'click', () => {
    pageAt[name] = Math.max(0, pageAt[name] - 1);
    render();
  });
  on(`${name}-viejos`, 'click', () => {
    pageAt[name] += 1;
    render();
  });
}

// A list read whole (newest first), with what the live stream brought while the read
// was on its way: a delivery made after the sandbox answered the read, but shown by
// the stream before the answer arrived, must not be dropped by it (newest first, by id).
export function withNewer<T extends { id: number }>(read: T[], current: T[]): T[] {
  const ids = new Set(read.map((x) => x.id));
  return current
    .filter((x) => !ids.has(x.id))
    .concat(read)
    .sort((a, b) => b.id - a.id);
}
