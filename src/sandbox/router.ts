// The routes of the sandbox: the 13 endpoints of the seed (made from the endpoint
// table, api/contract.ts), the payer page, the dashboard and the control plane. A
// route is a method, a path template (":" marks an id segment), who may call it, the
// 400 code of its body errors, and its handler.
import { API, type EndpointName } from '../api/contract.js';
import * as checkout from './checkout/index.js';
import * as panel from './panel/index.js';
import * as control from './control.js';
import type { ControlHandler } from './control.js';
import * as cobros from './handlers/cobros.js';
import { cargos } from './handlers/cargos.js';
import { cuenta } from './handlers/cuenta.js';
import * as devoluciones from './handlers/devoluciones.js';
import * as liquidaciones from './handlers/liquidaciones.js';
import { salud } from './handlers/salud.js';
import * as transacciones from './handlers/transacciones.js';

export interface Route {
  method: string;
  parts: string[];
  /** public: no key (health, payer page); api and control: a merchant's key. */
  access: 'public' | 'api' | 'control';
  /** Answered only on a loopback bind and to a loopback Host (the dashboard); elsewhere no such route. */
  local?: true;
  /** Code of the 400 for a body that is not JSON or not application/json. */
  code: string;
  handler: ControlHandler;
  /** The endpoint of the service it answers (its reply can be checked against the table). */
  endpoint?: EndpointName;
}

const local = (route: Route): Route => ({ ...route, local: true });

const r = (
  method: string,
  path: string,
  access: Route['access'],
  handler: ControlHandler,
  code = 'bad_request',
): Route => ({
  method,
  parts: path.split('/').slice(1),
  access,
  code,
  handler,
});

/** The sandbox's handler of each endpoint of the table: one missing is a type error. */
const HANDLERS: Record<EndpointName, ControlHandler> = {
  salud: () => salud(),
  cuenta,
  cargos,
  crearCobro: cobros.crear,
  listarCobros: cobros.listar,
  verCobro: cobros.ver,
  syncCobro: cobros.sync,
  devolver: devoluciones.crear,
  listarTransacciones: transacciones.listar,
  verTransaccion: transacciones.ver,
  listarDevoluciones: devoluciones.listar,
  verDevolucion: devoluciones.ver,
  listarLiquidaciones: liquidaciones.listar,
};

const endpoints = (Object.keys(API) as EndpointName[]).map((name): Route => {
  const e = API[name];
  const code = 'error400' in e ? e.error400 : undefined;
  return {
    ...r(
      e.method,
      e.path.replaceAll('{id}', ':'),
      e.access === 'public' ? 'public' : 'api',
      HANDLERS[name],
      code,
    ),
    endpoint: name,
  };
});

export const ROUTES: Route[] = [
  ...endpoints,
  r('GET', '/pagar/:', 'public', checkout.pagina),
  r('GET', '/pagar/:/recibo', 'public', checkout.recibo),
  r('POST', '/pagar/:/pagar', 'public', checkout.pagar),
  r('POST', '/pagar/:/rechazar', 'public', checkout.rechazar),
  r('POST', '/pagar/:/expirar', 'public', checkout.expirar),
  local(r('GET', '/', 'public', panel.pagina)),
  local(r('GET', '/_sandbox/panel', 'public', panel.pagina)),
  r('GET', '/_sandbox/stream', 'control', control.stream),
  r('POST', '/_sandbox/cobros', 'control', control.crearConId, API.crearCobro.error400),
  r('GET', '/_sandbox/cobros/:', 'control', control.detalle),
  r('POST', '/_sandbox/cobros/:/iniciar', 'control', control.iniciar),
  r('POST', '/_sandbox/cobros/:/pagar', 'control', control.pagar),
  r('POST', '/_sandbox/cobros/:/rechazar', 'control', control.rechazar),
  r('POST', '/_sandbox/cobros/:/expirar', 'control', control.expirar),
  r('POST', '/_sandbox/webhook', 'control', control.webhook),
  r('GET', '/_sandbox/webhook', 'control', control.verWebhook),
  r('GET', '/_sandbox/entregas', 'control', control.entregas),
  r('GET', '/_sandbox/eventos', 'control', control.eventos),
  r('POST', '/_sandbox/eventos/:/reenviar', 'control', control.reenviar),
  r('GET', '/_sandbox/liquidaciones/totales', 'control', control.totalesLiquidaciones),
  r('GET', '/_sandbox/claves', 'control', control.claves),
  r('GET', '/_sandbox/log', 'control', control.log),
  r('POST', '/_sandbox/fallas', 'control', control.crearFalla),
  r('GET', '/_sandbox/fallas', 'control', control.listarFallas),
  r('DELETE', '/_sandbox/fallas', 'control', control.borrarFallas),
  r('GET', '/_sandbox/reloj', 'control', control.reloj),
  r('POST', '/_sandbox/reloj', 'control', control.avanzarReloj),
];

export interface Match {
  route: Route;
  params: string[];
}

/**
 * The route for a method and path, or undefined (an unknown path or method is the same
 * 404). An id segment is never empty: `/v1/cobros/` is no route, not a missing id.
 */
export function match(method: string, path: string, routes: Route[] = ROUTES): Match | undefined {
  const parts = path.split('/').slice(1);
  outer: for (const route of routes) {
    if (route.method !== method || route.parts.length !== parts.length) continue;
    const params: string[] = [];
    for (let i = 0; i < parts.length; i++) {
      const want = route.parts[i]!;
      if (want === ':' && parts[i] === '') continue outer;
      if (want === ':') params.push(decodeSegment(parts[i]!));
      else if (want !== parts[i]) continue outer;
    }
    return { route, params };
  }
  return undefined;
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
