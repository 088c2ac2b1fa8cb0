// Faults: add, list and clear the sandbox's injected faults (`svc sandbox fallas`).
import { call } from './calls.js';
import { $, cell, fill, input, select } from './dom.js';
import { notify, zoneBox } from './messages.js';
import { DATA } from './page-data.js';
import type { Falla } from './wire.js';

export async function loadFaults(): Promise<void> {
  const list = await call<Falla[]>('GET', '/_sandbox/fallas');
  fill($('t-fallas'), list, 5, (tr, f) => {
    const what =
      f.action === 'respond'
        ? String(f.status ?? 500)
        : f.action === 'respond_after'
          ? `${f.status ?? 500} después de procesar`
          : f.action === 'delay'
            ? `lenta (${f.delay_ms} ms)`
            : f.action === 'cut'
              ? 'cortar'
              : 'cortar después';
    cell(tr, f.id, 'n');
    cell(tr, f.method);
    cell(tr, f.path, 'code');
    cell(tr, what);
    cell(tr, f.count, 'n');
  });
}
export async function addFault(ev: Event): Promise<void> {
  ev.preventDefault();
  const tipo = select('falla-tipo').value;
  const body = {
    method: select('falla-metodo').value,
    path: input('falla-ruta').value.trim(),
    count: Number(input('falla-veces').value),
    ...DATA.fallas[tipo],
  };
  const f = await call<Falla>('POST', '/_sandbox/fallas', body);
  notify(
    `Falla ${f.id}: los próximos ${f.count} pedidos ${f.method === '*' ? '' : `${f.method} `}a ${f.path} fallan (${tipo}). El panel no las consume.`,
    zoneBox($('form-falla')),
  );
  await loadFaults();
}
export async function clearFaults(): Promise<void> {
  const r = await call<{ borradas: number }>('DELETE', '/_sandbox/fallas');
  notify(
    r.borradas === 0
      ? 'No había fallas pendientes.'
      : `${r.borradas}${r.borradas === 1 ? ' falla borrada.' : ' fallas borradas.'}`,
    zoneBox($('form-falla')),
  );
  await loadFaults();
}
