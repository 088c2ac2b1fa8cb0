// svc sandbox reloj [avanzar <duración> | reiniciar]: the sandbox's clock, and moving it
// on instead of waiting (GET/POST /_sandbox/reloj): what falls due in that time happens,
// in time order, as it would have (expired requests, notification retries); reiniciar
// sets it back to the real time, leaving what was written meanwhile as it is.
import { UsageError } from '../../../errors.js';
import { printJson, printRecord } from '../../../output/format.js';
import { parseDuration } from '../../../sandbox/time.js';
import { shown } from '../../../text.js';
import type { Context } from '../../context.js';
import { parseChoice } from '../../parse.js';
import { SandboxControl } from '../../shared/sandbox-control.js';

/** 3 d 4 h, 90 min… as a person reads a span. */
function span(ms: number): string {
  if (ms === 0) return 'en hora (sin adelantar)';
  const m = Math.round(ms / 60_000);
  const d = Math.floor(m / 1440);
  const h = Math.floor((m % 1440) / 60);
  const min = m % 60;
  return `${[d && `${d} d`, h && `${h} h`, min && `${min} min`].filter(Boolean).join(' ') || `${Math.round(ms / 1000)} s`} adelantado`;
}

export async function run(ctx: Context, args: string[]): Promise<void> {
  const accion =
    args[0] === undefined
      ? undefined
      : parseChoice(args[0], ['avanzar', 'reiniciar'] as const, 'acción');
  const control = new SandboxControl(await ctx.client({ banner: false }));
  await control.ensureSandbox('svc sandbox reloj');
  if (!accion) {
    const r = await control.reloj();
    if (ctx.globals.json) return printJson(ctx.io, r);
    return printRecord(ctx.io, [
      ['ahora', r.ahora],
      ['zona', r.tz],
      ['reloj', span(r.adelanto_ms)],
    ]);
  }
  if (accion === 'reiniciar') {
    if (args[1] !== undefined)
      throw new UsageError(
        `reiniciar no lleva duración ("${shown(args[1], 20)}")`,
        'ej. svc sandbox reloj reiniciar',
      );
    const r = await control.reiniciar();
    if (ctx.globals.json) return printJson(ctx.io, r);
    return printRecord(ctx.io, [
      ['ahora', r.ahora],
      ['reloj', span(r.adelanto_ms)],
    ]);
  }
  const duracion = args[1];
  if (duracion === undefined || parseDuration(duracion) === undefined) {
    throw new UsageError(
      `${duracion === undefined ? 'falta cuánto avanzar' : `"${shown(duracion, 20)}" no es una duración`}: 30m, 12h, 8d o 1d12h (hasta diez años)`,
      'ej. svc sandbox reloj avanzar 8d',
    );
  }
  const r = await ctx.spin(`adelantando el reloj ${duracion}…`, () => control.avanzar(duracion));
  if (ctx.globals.json) return printJson(ctx.io, r);
  printRecord(ctx.io, [
    ['ahora', r.ahora],
    ['reloj', span(r.adelanto_ms)],
    ['vencidos', r.vencidos.length ? r.vencidos.join(', ') : '-'],
    ['reintentos', String(r.reintentos)],
  ]);
}
