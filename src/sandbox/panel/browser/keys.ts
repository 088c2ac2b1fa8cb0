// Keys and secret: fetched only when asked, removed from the page when hidden.
import { call } from './calls.js';
import { $, clear, el, text } from './dom.js';
import { notify, zoneBox } from './messages.js';

function copy(field: HTMLTextAreaElement, label: string): void {
  field.select();
  const done = () => notify(`${label} copiado al portapapeles.`, zoneBox(field));
  const old = () => {
    document.execCommand('copy');
    done();
  };
  if (navigator.clipboard && navigator.clipboard.writeText)
    navigator.clipboard.writeText(field.value).then(done, old);
  else old();
}
function secretField(box: HTMLElement, id: string, label: string, value: string): void {
  const l = el('label', '', label);
  l.htmlFor = id;
  // A text area, not an input: a key is longer than a phone's field (a whsec_ secret is
  // 54 characters), and an input showed only its start; this one wraps to show it whole.
  const i = el('textarea', 'secreto');
  i.id = id;
  i.rows = 1;
  i.readOnly = true;
  i.value = value;
  i.spellcheck = false;
  i.autocomplete = 'off';
  const b = el('button', '', 'Copiar');
  b.type = 'button';
  b.setAttribute('aria-label', `Copiar ${label.toLowerCase()}`);
  b.addEventListener('click', () => copy(i, label));
  const row = el('div', 'actions');
  row.appendChild(b);
  box.append(l, i, row);
}

/** Removes the keys from the page. */
export function hideKeys(): void {
  const box = $('claves-datos');
  clear(box);
  box.hidden = true;
}

export async function toggleKeys(): Promise<void> {
  const box = $('claves-datos');
  const btn = $('claves-ver');
  if (!box.hidden) {
    hideKeys();
    btn.setAttribute('aria-expanded', 'false');
    text(btn, 'Mostrar claves y secreto');
    return;
  }
  const c = await call<{
    comercio: number;
    claves: { comercio: number; modo: string; nombre: string; clave: string }[];
    webhook_secret: string;
  }>('GET', '/_sandbox/claves');
  clear(box);
  for (const k of c.claves)
    secretField(
      box,
      `clave-${k.comercio}`,
      `Clave ${k.modo} de ${k.nombre}${k.comercio === c.comercio ? ' (la tuya)' : ''}`,
      k.clave,
    );
  secretField(box, 'secreto', 'Secreto de notificaciones', c.webhook_secret);
  box.hidden = false;
  btn.setAttribute('aria-expanded', 'true');
  text(btn, 'Ocultar claves y secreto');
}
