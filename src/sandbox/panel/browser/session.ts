// Connecting with the pasted key, and forgetting it (asked, or refused by the sandbox).
import { call, forgetKey, SandboxError, storedKey, storeKey } from './calls.js';
import { selectCobro } from './cobro-list.js';
import { medioLabels } from './detail.js';
import { $, input, text } from './dom.js';
import { hideKeys } from './keys.js';
import { connectStream, showConnection, stopStream } from './live.js';
import { loadAll } from './refresh.js';
import { KEY_RE, keyMode } from '../../../domain/rules.js';
import type { Cargo, Cuenta } from './wire.js';

export function disconnect(why?: string): void {
  forgetKey();
  stopStream();
  selectCobro(null);
  hideKeys();
  $('app').hidden = true;
  $('detalle').hidden = true;
  $('acceso').hidden = false;
  text($('conexion'), 'Sin conectar');
  text($('acceso-error'), why ?? '');
  $('clave').focus();
}

export async function connect(): Promise<void> {
  let cuenta: Cuenta;
  try {
    cuenta = await call('GET', '/v1/cuenta');
  } catch (e) {
    // A refused key has already been forgotten, with the sandbox's reason.
    if (!(e instanceof SandboxError && e.status === 401))
      disconnect(e instanceof Error ? e.message : String(e));
    return;
  }
  const cargos = await call<Cargo[]>('GET', '/v1/cargos');
  for (const c of cargos) medioLabels[c.medio] = c.label;
  text($('acceso-error'), '');
  $('acceso').hidden = true;
  $('app').hidden = false;
  const mode =
    keyMode(storedKey()) === 'live' ? 'modo live de ensayo, sin dinero real' : 'modo test';
  showConnection(false, `Conectado como ${cuenta.nombre} (comercio ${cuenta.id}) · ${mode}`);
  await loadAll();
  void connectStream();
}

/** The key form: a key of the sandbox's form is kept in this tab and used; else said why not. */
export function submitKey(ev: Event): Promise<void> | undefined {
  ev.preventDefault();
  const k = input('clave').value.trim();
  if (!KEY_RE.test(k))
    return void text(
      $('acceso-error'),
      'Eso no es una clave: empieza con svc_test_ (la imprime svc sandbox al arrancar).',
    );
  storeKey(k);
  input('clave').value = '';
  return connect();
}
