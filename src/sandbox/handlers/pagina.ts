// GET /pagar/{codigo}: the payer's page the `url` of a payment request points at.
// Public, read-only: it shows what the payer would pay; paying is simulated through
// the control plane (`svc sandbox pagar <id>`).
import type { Reply } from '../types.js';
import type { ControlDeps } from '../control.js';
import type { ApiRequest } from '../types.js';

export function pagina(deps: ControlDeps, req: ApiRequest): Reply {
  const rec = deps.store.codigos.get(req.params[0] ?? '');
  if (!rec) return { status: 404, contentType: 'text/html; charset=utf-8', body: page('Cobro no encontrado', '<p>No existe un cobro con ese código.</p>') };
  const d = rec.d;
  const rows = [
    ['Concepto', d.concepto],
    ['Monto', `$ ${d.monto}`],
    ['Cobrado', `$ ${d.monto_cobrado}`],
    ['Estado', d.estado],
    ['Vence', d.vencimiento ?? '-'],
    ['CVU', d.cvu ?? 'todavía no disponible'],
  ]
    .map(([k, v]) => `<tr><th>${esc(k!)}</th><td>${esc(v!)}</td></tr>`)
    .join('');
  return {
    status: 200,
    contentType: 'text/html; charset=utf-8',
    body: page(`Cobro ${d.codigo}`, `<table>${rows}</table><p><small>Sandbox de svc: el pago se simula con <code>svc sandbox pagar ${d.id}</code>.</small></p>`),
  };
}

function page(title: string, content: string): string {
  return `<!doctype html><html lang="es"><head><meta charset="utf-8"><title>${esc(title)}</title></head><body><h1>${esc(title)}</h1>${content}</body></html>`;
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
