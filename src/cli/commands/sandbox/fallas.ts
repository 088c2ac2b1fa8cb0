// svc sandbox fallas agregar|listar|borrar: the sandbox's fault injection
// (/_sandbox/fallas) from the command line, with the failures a developer names
// (500, 502-html, 503, 429, lento, cortar) mapped to the control plane's actions.
import { shown } from '../../../text.js';
import { UsageError } from '../../../errors.js';
import { printJson, printTable, type Column } from '../../../output/format.js';
import type { Context } from '../../context.js';
import type { OptionsOf } from '../../define.js';
import { parseChoice, parseInteger } from '../../parse.js';
import { SandboxControl, type Falla } from '../../shared/sandbox-control.js';
import { namedFault } from '../../../sandbox/faults.js';
import { TIPOS_FALLA, type fallasAgregarOptions } from './index.js';

type Options = OptionsOf<typeof fallasAgregarOptions>;

const TIPO_OF: Record<Falla['action'], (f: Falla) => string> = {
  respond: (f) => String(f.status ?? 500),
  respond_after: (f) => `${f.status ?? 500}-despues`,
  delay: (f) => `lento (${f.delay_ms} ms)`,
  cut: () => 'cortar',
  cut_after: () => 'cortar-despues',
};

const columns: Column<Falla>[] = [
  { header: 'ID', value: (f) => String(f.id ?? ''), align: 'right' },
  { header: 'MÉTODO', value: (f) => f.method },
  { header: 'RUTA', value: (f) => f.path, shrink: true },
  { header: 'TIPO', value: (f) => TIPO_OF[f.action](f) },
  { header: 'QUEDAN', value: (f) => String(f.count), align: 'right' },
  { header: 'CADA', value: (f) => String(f.every ?? 1), align: 'right' },
];

/**
 * A route a fault can match, checked here so the refusal is in Spanish and names the fix:
 * the sandbox compares a fault's route with a request's path alone, whole or up to a `*`.
 */
function checkRuta(text: string): string {
  const ruta = text.trim();
  const example = 'ej. /v1/cobros, /v1/cobros/1 o "/v1/cobros*"';
  if (!ruta.startsWith('/'))
    throw new UsageError(
      `--ruta "${shown(ruta, 60)}" tiene que empezar con /: ${example}`,
      ruta ? `¿quisiste decir /v1/${shown(ruta.replace(/^\/+/, ''), 60)}?` : undefined,
    );
  if (ruta.startsWith('/_sandbox'))
    throw new UsageError(
      '--ruta: las rutas de control del sandbox (/_sandbox/…) no fallan; elegí una del servicio, ej. /v1/cobros',
    );
  if (ruta.includes('?'))
    throw new UsageError(
      `--ruta "${shown(ruta, 60)}": sin ?consulta, la falla se compara con la ruta sola (${example})`,
    );
  if (ruta.length > 1 && ruta.endsWith('/')) {
    throw new UsageError(
      `--ruta "${shown(ruta, 60)}" termina en /: ninguna ruta del servicio termina así y la falla nunca ocurriría`,
      `usá ${ruta.slice(0, -1)}, o "${ruta}*" para todas las que siguen`,
    );
  }
  return ruta;
}

export async function run(ctx: Context, args: string[], opts: Options): Promise<void> {
  const accion = parseChoice(args[0], ['agregar', 'listar', 'borrar'] as const, 'acción');
  // Before any request: a route that could never fail is said at once.
  if (accion === 'agregar' && opts.ruta !== undefined) checkRuta(String(opts.ruta));
  const control = new SandboxControl(await ctx.client({ banner: false }));
  await control.ensureSandbox('svc sandbox fallas');
  if (accion === 'listar') {
    const list = await control.fallas();
    if (ctx.globals.json) return printJson(ctx.io, list);
    return printTable(ctx.io, columns, list, 'no hay fallas pendientes');
  }
  if (accion === 'borrar') {
    const n = await control.clearFallas();
    if (ctx.globals.json) return printJson(ctx.io, { borradas: n });
    ctx.io.err(
      n === 0
        ? 'no había fallas pendientes'
        : `${n} ${n === 1 ? 'falla borrada' : 'fallas borradas'}`,
    );
    return;
  }
  if (opts.ruta === undefined)
    throw new UsageError('falta --ruta: la ruta que falla, ej. /v1/cobros o "/v1/cobros*"');
  const ruta = checkRuta(String(opts.ruta));
  const tipo = parseChoice(opts.tipo, TIPOS_FALLA, '--tipo');
  if (!tipo) throw new UsageError(`falta --tipo: ${TIPOS_FALLA.join(', ')}`);
  if (opts.demora !== undefined && tipo !== 'lento')
    throw new UsageError('--demora va con --tipo lento');
  const delay =
    opts.demora === undefined ? 5000 : parseInteger(opts.demora, '--demora', 0, 120_000);
  const count = opts.veces === undefined ? 1 : parseInteger(opts.veces, '--veces', 1, 1_000_000);
  const every = opts.cada === undefined ? 1 : parseInteger(opts.cada, '--cada', 1, 1000);
  const method = opts.metodo === undefined ? '*' : String(opts.metodo).toUpperCase();
  const added = await control.addFalla({
    method,
    path: ruta,
    count,
    every,
    ...namedFault(tipo, delay),
  });
  if (ctx.globals.json) return printJson(ctx.io, added);
  // The route as the sandbox echoes it: service text, escaped like every other.
  const which =
    every > 1
      ? `uno de cada ${every} pedidos (${count === 1 ? 'una vez' : `${count} veces`})`
      : count === 1
        ? 'el próximo pedido'
        : `los próximos ${count} pedidos`;
  ctx.io.err(
    `falla ${added.id}: ${which} ${method === '*' ? '' : `${method} `}a ${shown(added.path, 200)} → ${tipo}`,
  );
}
