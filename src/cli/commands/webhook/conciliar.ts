// svc webhook conciliar: compares what the app was told (the journal of `svc webhook
// listen`) with what the service says now (one list call), src/webhooks/reconcile.ts.
// On a terminal the differences come grouped by what fixes them (replay what the app
// refused, trigger what never arrived, nothing for a state svc does not know), with
// the app's address the journal knows; requests older than the journal are counted
// apart. Piped: one row per difference with the command that fixes it. `--plan FILE`
// writes every fix to a plan and `--aplicar FILE` sends them (conciliar-plan.ts).
// Exit 0 when everything agrees, 1 when anything differs.
import { resolve } from 'node:path';
import { CliError, EXIT, UsageError } from '../../../errors.js';
import { printTable, type Column } from '../../../output/format.js';
import { breakAtSpaces } from '../../../output/io.js';
import { count, shown, wrapWords } from '../../../text.js';
import { localDate, serviceTime } from '../../../domain/dates.js';
import { maskTarget } from '../../../api/address.js';
import {
  journalState,
  judge,
  reconcile,
  URL_PLACEHOLDER,
  type Accion,
  type Conciliacion,
  type Diferencia,
  type JournalState,
} from '../../../webhooks/reconcile.js';
import type { Cobro } from '../../../api/schemas.js';
import { refuseInexact } from '../../../api/exact.js';
import { foldList } from '../../shared/lists.js';
import type { Context } from '../../context.js';
import type { OptionsOf } from '../../define.js';
import { carried, shellWord } from '../../outcome.js';
import { parseFilePath, parseUrl } from '../../parse.js';
import {
  journalPath,
  journalRead,
  readJournalAt,
  reportSkipped,
  resolveSecret,
} from '../../shared/webhook.js';
import type { conciliarOptions } from './index.js';

type Options = OptionsOf<typeof conciliarOptions>;

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

/** The groups a terminal shows, in the order to act on them. */
const GROUPS: { accion: Accion; title: (n: number) => string }[] = [
  { accion: 'replay', title: (n) => `tu app no aceptó (${n}): svc webhook replay EVENTO` },
  {
    accion: 'trigger',
    title: (n) => `nunca llegó al listener (${n}): svc webhook trigger EVENTO --cobro N`,
  },
  {
    accion: 'ninguna',
    title: (n) => `en un estado que svc no conoce (${n}): sin arreglo automático; svc caso N`,
  },
];

export async function run(ctx: Context, _args: string[], opts: Options): Promise<void> {
  if (opts.aplicar !== undefined) {
    if (
      opts.plan !== undefined ||
      opts.desde !== undefined ||
      opts.forwardTo !== undefined ||
      opts.anteriores !== undefined
    )
      throw new UsageError(
        '--aplicar va solo: el plan ya dice qué enviar y adónde (--desde, --forward-to, --anteriores y --plan van al prepararlo)',
      );
    return applyPlan(ctx, String(opts.aplicar), opts);
  }
  const desde = parseDesde(opts.desde);
  const forwardTo =
    opts.forwardTo === undefined ? undefined : parseUrl(opts.forwardTo, '--forward-to', 'http');
  const planPath = opts.plan === undefined ? undefined : parseFilePath(opts.plan, '--plan');
  const path = await journalPath(ctx, opts, true);
  // The journal read once as it streams, remembered by request; then the requests, each
  // judged as it arrives and let go (only the differences are kept).
  const state = await readJournalState(ctx, path);
  const client = await ctx.client();
  const zone = await ctx.zone();
  const options = { forwardTo, zone, anteriores: opts.anteriores === true };
  const { tally, inexact } = await ctx.spin('leyendo los cobros…', () =>
    foldList<Cobro, Judged>(
      (read) => client.iterarCobros({}, read),
      {},
      (c) => c.created_at,
      {
        tally: () => new Judged(),
        add: (t, c) => {
          if (desde === undefined || localDate(c.created_at, zone) >= desde)
            t.add(c, judge(c, state, options));
        },
        showRows: false,
      },
    ),
  );
  refuseInexact(inexact, 'la conciliación');
  const result: Conciliacion = {
    diferencias: tally.diferencias,
    anteriores: tally.anteriores,
    inicio: state.inicio,
    app_url: forwardTo ?? state.appUrl,
    app_url_oculta: forwardTo === undefined && state.appUrlHidden,
  };
  const diffs = result.diferencias;
  const { io } = ctx;
  if (ctx.globals.json) {
    for (const d of diffs) io.outRaw(JSON.stringify(d));
  } else if (diffs.length && io.stdoutTTY && !io.csv) {
    await grouped(ctx, result);
  } else if (diffs.length) {
    await printTable<Diferencia>(io, columns('arreglo'), diffs, undefined, [
      'cobro_id',
      'codigo',
      'app',
      'servicio',
      'arreglo',
    ]);
  }
  const n = tally.judged;
  const judged = n - result.anteriores.length;
  // --json: stdout keeps one difference a line; what was judged, and the requests older
  // than the journal counted apart, go on stderr as one JSON line, before any error's.
  if (ctx.globals.json)
    io.err(
      JSON.stringify({
        cobros: n,
        juzgados: judged,
        diferencias: diffs.length,
        anteriores: result.anteriores.length,
        journal_desde: result.inicio,
      }),
    );
  else notes(ctx, result, path, n, zone);
  if (planPath !== undefined) return writeThePlan(ctx, result, planPath, path);
  if (diffs.length === 0) {
    if (judged === 0 && n > 0 && result.inicio === null)
      throw new CliError(
        `el journal ${shown(path)} no tiene eventos del listener: no se sabe qué le llegó a tu app`,
        {
          exit: EXIT.refused,
          code: 'journal_empty',
          hint: '¿corre svc webhook listen con este journal, y el servicio le manda las notificaciones? --anteriores da cada cobro por no avisado',
        },
      );
    io.err(
      n === 0
        ? `no hay cobros${desde ? ` desde ${desde}` : ''}: nada que conciliar`
        : judged === 0
          ? `nada que conciliar: ${n === 1 ? 'el cobro es anterior' : `los ${n} cobros son anteriores`} al journal`
          : `tu app está al día: ${judged === 1 ? 'el cobro' : `los ${judged} cobros`}${desde ? ` desde ${desde}` : ''} ${judged === 1 ? 'coincide' : 'coinciden'} con lo que le llegó`,
    );
    return;
  }
  throw new CliError(
    `${diffs.length} de ${judged} cobros no coinciden con lo último que tu app aceptó`,
    {
      exit: EXIT.refused,
      code: 'mismatch',
      hint: ctx.globals.json
        ? undefined
        : `todo de una vez: ${planCommand(
            ctx,
            opts,
            'conciliar.json',
            diffs.some((d) => d.accion !== 'ninguna' && d.forward_to === null),
          )}, y después --aplicar conciliar.json`,
    },
  );
}

function columns(last: 'arreglo' | 'evento'): Column<Diferencia>[] {
  return [
    { header: 'COBRO', value: (d) => String(d.cobro_id), align: 'right' },
    // A terminal's grouped view leaves the code to --json and `svc caso`: the id is what the fix takes.
    ...(last === 'arreglo'
      ? [{ header: 'CÓDIGO', value: (d: Diferencia) => d.codigo, drop: 1 }]
      : []),
    // States are never cut.
    { header: 'TU APP SABE', value: (d) => d.app ?? '(nada)' },
    { header: 'EL SERVICIO DICE', value: (d) => d.servicio },
    last === 'arreglo'
      ? // A command to copy and run: never shortened; on a narrow terminal broken between its words.
        { header: 'PARA ARREGLARLO', value: (d) => d.arreglo, shrink: true, wrap: true }
      : {
          header: 'EVENTO',
          value: (d) => (d.accion === 'replay' ? d.evento_id! : (d.evento ?? '-')),
        },
  ];
}

/** The terminal's view: a short table per group, each under what to do. */
async function grouped(ctx: Context, result: Conciliacion): Promise<void> {
  const { io } = ctx;
  const width = io.columns ?? 80;
  let first = true;
  for (const g of GROUPS) {
    const rows = result.diferencias.filter((d) => d.accion === g.accion);
    if (!rows.length) continue;
    if (!first) io.out('');
    first = false;
    for (const line of wrapWords(g.title(rows.length), width)) io.out(io.c.bold(line));
    await printTable<Diferencia>(io, columns('evento'), rows);
  }
}

/** What the table leaves implicit: where fixes go, what was not judged, how to fix all. */
function notes(ctx: Context, result: Conciliacion, path: string, n: number, zone: string): void {
  const { io } = ctx;
  const fixable = result.diferencias.filter((d) => d.accion !== 'ninguna');
  const places = [...new Set(fixable.map((d) => d.forward_to ?? URL_PLACEHOLDER))];
  if (fixable.length && io.stdoutTTY && !io.csv) {
    if (places.length === 1 && places[0] !== URL_PLACEHOLDER)
      io.err(`a ${shown(maskTarget(places[0]!))} (adonde el listener reenvió por última vez)`);
    else if (places.includes(URL_PLACEHOLDER))
      io.err(
        io.c.yellow(
          result.app_url_oculta
            ? 'el journal guarda la dirección de tu app sin sus credenciales (***): indicala con --forward-to'
            : 'el journal no sabe adónde reenviar (el listener no tenía --forward-to): indicala con --forward-to',
        ),
      );
  }
  // An empty journal is the error's to say (see run), not a note's.
  if (result.anteriores.length && (result.inicio !== null || result.diferencias.length)) {
    const when =
      result.inicio === null
        ? `el journal ${shown(path)} no tiene eventos del listener`
        : `empieza ${serviceTime(result.inicio, zone)}`;
    const one = result.anteriores.length === 1;
    io.err(
      io.c.dim(
        `${count(result.anteriores.length, 'cobro', 'cobros')} de ${n} sin cambios desde antes del journal (${when}): no se sabe si tu app ${one ? 'lo oyó' : 'los oyó'}, no ${one ? 'se juzga' : 'se juzgan'} (--anteriores ${one ? 'lo incluye' : 'los incluye'})`,
      ),
    );
  }
}

/**
 * `svc … webhook conciliar --plan FILE` with the flags this run was given, runnable as
 * printed; `needsUrl`: some fix has nowhere to go (the journal does not know the app's
 * address), so the plan needs --forward-to, and the command says so in its place.
 */
function planCommand(ctx: Context, opts: Options, file: string, needsUrl = false): string {
  const more = [
    opts.desde !== undefined ? ` --desde ${shellWord(String(opts.desde))}` : '',
    opts.forwardTo !== undefined
      ? ` --forward-to ${shellWord(String(opts.forwardTo))}`
      : needsUrl
        ? ` --forward-to ${URL_PLACEHOLDER}`
        : '',
    opts.journal !== undefined ? ` --journal ${shellWord(String(opts.journal))}` : '',
    opts.anteriores === true ? ' --anteriores' : '',
  ].join('');
  return `svc${carried(ctx.globals)} webhook conciliar${more} --plan ${file}`;
}

async function writeThePlan(
  ctx: Context,
  result: Conciliacion,
  planPath: string,
  journal: string,
): Promise<void> {
  const { io } = ctx;
  const fixable = result.diferencias.filter((d) => d.accion !== 'ninguna');
  if (fixable.length === 0) {
    io.err('no hay nada que enviar: no se escribió ningún plan');
    return;
  }
  if (fixable.some((d) => d.forward_to === null))
    throw new UsageError(
      'el plan necesita adónde enviar: el journal no sabe la dirección de tu app',
      'agregá --forward-to URL_DE_TU_APP',
    );
  const resolved = await ctx.resolved();
  const { makePlan, writePlan } = await import('./conciliar-plan.js');
  const plan = makePlan(fixable, {
    perfil: resolved.profileName.value,
    modo: resolved.mode,
    // Absolute: the plan may be applied from another folder.
    journal: resolve(journal),
  });
  writePlan(planPath, plan);
  const replays = fixable.filter((d) => d.accion === 'replay').length;
  const text = `plan escrito en ${shown(planPath)} (nada se envió): ${count(fixable.length, 'notificación', 'notificaciones')}, ${replays} desde el journal y ${fixable.length - replays} nueva${fixable.length - replays === 1 ? '' : 's'}; lo aplica svc${carried(ctx.globals)} webhook conciliar --aplicar ${shellWord(planPath)}`;
  if (ctx.globals.json) io.err(JSON.stringify({ plan: planPath, acciones: fixable.length }));
  else io.err(text);
}

async function applyPlan(ctx: Context, path: string, opts: Options): Promise<void> {
  const { io, globals } = ctx;
  const { readPlan, applyActions, envioLine, applied } = await import('./conciliar-plan.js');
  const plan = readPlan(parseFilePath(path, '--aplicar'));
  const resolved = await ctx.resolved();
  if (plan.modo !== resolved.mode || plan.perfil !== resolved.profileName.value)
    throw new CliError(
      `el plan se hizo con el perfil "${shown(plan.perfil)}" en modo ${plan.modo} y estás usando "${shown(resolved.profileName.value)}" en modo ${resolved.mode}: no se aplica`,
      {
        exit: EXIT.refused,
        code: 'plan_refused',
        hint: `svc --profile ${shellWord(plan.perfil)}${plan.modo === 'live' ? ' --live' : ''} webhook conciliar --aplicar ${shellWord(path)}`,
      },
    );
  const secret = await resolveSecret(ctx, opts);
  const entries = (await readJournalAt(ctx, plan.journal)).entries;
  const client = await ctx.client();
  const planned = new Set(plan.acciones.map((a) => a.cobro_id));
  // Only the plan's requests are kept as the list arrives.
  const { data } = await ctx.spin('leyendo los cobros…', () =>
    client.iterarCobros({}, { keep: (x) => planned.has((x as { id?: number }).id ?? NaN) }),
  );
  const mine = [...data].filter((c) => planned.has(c.id));
  // Judged as when planned: a request the plan holds is one the plan chose to tell.
  const now = reconcile(mine, entries, { zone: await ctx.zone(), anteriores: true }).diferencias;
  const envios = await applyActions(
    ctx,
    plan,
    {
      now: new Map(now.map((d) => [d.cobro_id, d])),
      cobros: new Map(mine.map((c) => [c.id, c])),
      entries,
    },
    secret,
    (e) =>
      globals.json
        ? io.outRaw(
            JSON.stringify({
              cobro_id: e.accion.cobro_id,
              accion: e.accion.accion,
              evento: e.accion.evento,
              evento_id: e.accion.evento_id,
              forward_to: maskTarget(e.accion.forward_to),
              resultado: e.resultado,
              status: e.status,
              ...(e.detalle ? { detalle: e.detalle } : {}),
            }),
          )
        : io.out(breakAtSpaces(envioLine(ctx, e), io.columns, 2)),
  );
  const { text, exit } = applied(envios);
  if (!globals.json) io.err(text);
  if (exit) throw exit;
}

/** The requests judged so far (a page of the list): how many, the differences, those older than the journal. */
class Judged {
  count = 0;
  judged = 0;
  diferencias: Diferencia[] = [];
  anteriores: number[] = [];
  add(c: Cobro, d: Diferencia | 'anterior' | undefined): void {
    this.count++;
    this.judged++;
    if (d === 'anterior') this.anteriores.push(c.id);
    else if (d) this.diferencias.push(d);
  }
  merge(o: Judged): void {
    this.count += o.count;
    this.judged += o.judged;
    // One at a time: a spread of 200,000 arguments overflows the stack.
    for (const d of o.diferencias) this.diferencias.push(d);
    for (const id of o.anteriores) this.anteriores.push(id);
  }
}

/** The journal's state, read once as it streams (lines that are not entries said on stderr). */
async function readJournalState(ctx: Context, path: string): Promise<JournalState> {
  const { JournalReader } = await import('../../../webhooks/event-journal.js');
  const reader = new JournalReader(path);
  const state = await journalRead(() => journalState(reader.all()));
  reportSkipped(ctx, { problems: reader.problems(), skipped: reader.skipped });
  return state;
}
