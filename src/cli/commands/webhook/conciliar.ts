// svc webhook conciliar: compares what the app was told (the journal of `svc webhook
// listen`) with what the service says now (one list call), src/webhooks/reconcile.ts.
// One line per request where they differ, with the command that fixes it; exit 0
// when everything agrees, 1 when anything differs.
import { CliError, EXIT, UsageError } from '../../../errors.js';
import { printTable } from '../../../output/format.js';
import { shown } from '../../../text.js';
import { localDate } from '../../../domain/dates.js';
import { reconcile, type Diferencia } from '../../../webhooks/reconcile.js';
import type { Context } from '../../context.js';
import type { OptionsOf } from '../../define.js';
import { parseUrl } from '../../parse.js';
import { journalPath, readJournalAt } from '../../shared/webhook.js';
import type { conciliarOptions } from './index.js';

/** --desde: a date or date-time as the service writes them (its local time). */
export function parseDesde(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const s = String(value).trim();
  const m = /^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2})(?::(\d{2}))?)?$/.exec(s);
  if (!m)
    throw new UsageError(
      `--desde "${shown(s, 40)}" no es válido (AAAA-MM-DD o "AAAA-MM-DD HH:MM", hora del servicio)`,
    );
  return `${m[1]} ${m[2] ?? '00:00'}:${m[3] ?? '00'}`;
}

export async function run(
  ctx: Context,
  _args: string[],
  opts: OptionsOf<typeof conciliarOptions>,
): Promise<void> {
  const desde = parseDesde(opts.desde);
  const forwardTo =
    opts.forwardTo === undefined ? undefined : parseUrl(opts.forwardTo, '--forward-to', 'http');
  const path = await journalPath(ctx, opts, true);
  const journal = (await readJournalAt(ctx, path)).entries;
  const client = await ctx.client();
  const cobros = (await ctx.spin('leyendo los cobros…', () => client.listarCobros())).data.data;
  const zone = desde === undefined ? '' : await ctx.zone();
  const since =
    desde === undefined
      ? [...cobros]
      : [...cobros].filter((c) => localDate(c.created_at, zone) >= desde);
  const diffs = reconcile(since, journal, forwardTo);
  const { io } = ctx;
  if (ctx.globals.json) {
    for (const d of diffs) io.outRaw(JSON.stringify(d));
  } else if (diffs.length) {
    await printTable<Diferencia>(
      io,
      [
        { header: 'COBRO', value: (d) => String(d.cobro_id), align: 'right' },
        { header: 'CÓDIGO', value: (d) => d.codigo, drop: 1 },
        // States are never cut.
        { header: 'TU APP SABE', value: (d) => d.app ?? '(nada)' },
        { header: 'EL SERVICIO DICE', value: (d) => d.servicio },
        // A command to copy and run: never shortened (a cut command is of no use); on a narrow terminal broken between its words.
        { header: 'PARA ARREGLARLO', value: (d) => d.arreglo, shrink: true, wrap: true },
      ],
      diffs,
    );
  }
  const n = since.length;
  if (diffs.length === 0) {
    io.err(
      n === 0
        ? `no hay cobros${desde ? ` desde ${desde}` : ''}: nada que conciliar`
        : `tu app está al día: ${n === 1 ? 'el cobro' : `los ${n} cobros`}${desde ? ` desde ${desde}` : ''} ${n === 1 ? 'coincide' : 'coinciden'} con lo que le llegó`,
    );
    return;
  }
  throw new CliError(
    `${diffs.length} de ${n} cobros no coinciden con lo último que tu app aceptó`,
    {
      exit: EXIT.refused,
      code: 'mismatch',
      hint: 'corré el comando de cada fila (el journal es el de svc webhook listen)',
    },
  );
}
