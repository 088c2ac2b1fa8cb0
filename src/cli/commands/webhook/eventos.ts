// svc webhook eventos: lists the journal of received notifications: what arrived,
// whether its signature was valid, what was done with it and what the app answered.
// A table on a terminal; piped, --csv's fields in its order, tab-separated; the entries
// with --json.
// The journal holds what strangers sent: every field is a string to show safely
// (printTable renders each cell with `shown`), and of any type (the file is edited by hand).
import { maskTarget } from '../../../api/address.js';
import type { JournalEntry } from '../../../webhooks/event-journal.js';
import {
  csvHeader,
  printCsv,
  printTable,
  colorState,
  type Column,
  printJsonItems,
} from '../../../output/format.js';
import { serviceTime } from '../../../domain/dates.js';
import { count, wrapWords } from '../../../text.js';
import type { Context } from '../../context.js';
import type { OptionsOf } from '../../define.js';
import { parseLimit } from '../../parse.js';
import type { eventosOptions } from './index.js';
import {
  formatMs,
  journalPath,
  journalStream,
  OUTCOME_LABEL,
  eventAmount,
  reportSkipped,
} from '../../shared/webhook.js';

/**
 * A field as text for a cell (printTable shows it safely). Strings stay as they are,
 * so a replay's id or a state reads the same as elsewhere; anything else becomes its JSON.
 */
function raw(value: unknown, dash = '-'): string {
  if (value === null || value === undefined) return dash;
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}

/**
 * An entry as a --csv row and a piped one, named as in --json (nested fields as
 * `verification.valid`, as the other lists' CSVs name theirs): the same columns for
 * every entry, so a hand-edited or older line cannot change the header; headers and
 * bodies stay in --json.
 */
function csvRow(e: JournalEntry, zone: string): Record<string, unknown> {
  return {
    id: e.id,
    // In the service's zone and format, as every other CSV's dates (--json keeps ISO 8601).
    received_at: serviceTime(e.received_at, zone),
    source: e.source,
    replay_of: e.replay_of ?? null,
    event: e.event,
    cobro_id: e.cobro_id,
    estado: e.estado,
    monto: e.monto,
    'verification.valid': e.verification?.valid ?? null,
    'verification.reason': e.verification?.reason ?? null,
    outcome: e.outcome,
    target: maskTarget(e.target),
    status: e.status,
    answered: e.answered,
    latency_ms: e.latency_ms,
    error: e.error ?? null,
  };
}
/** The header of an empty journal's --csv: a row's names. */
const CSV_FIELDS = csvHeader(csvRow({ verification: {} } as JournalEntry, 'UTC'));

export async function run(
  ctx: Context,
  _args: string[],
  opts: OptionsOf<typeof eventosOptions>,
): Promise<void> {
  const { io } = ctx;
  const limit = parseLimit(opts.limit);
  const path = await journalPath(ctx, opts, true);
  // Newest first, as every list of svc and of the service: read from the journal's end,
  // a line at a time, and no further than --limit (one more, to know there are more).
  const { JournalReader } = await import('../../../webhooks/event-journal.js');
  const reader = new JournalReader(path);
  const stream = (await journalStream(reader.all('newest')))[Symbol.iterator]();
  let shownCount = 0;
  let more = false;
  const entries = (function* () {
    try {
      for (let next = stream.next(); !next.done; next = stream.next()) {
        if (limit !== undefined && shownCount === limit) {
          more = true;
          return;
        }
        shownCount++;
        yield next.value;
      }
    } finally {
      // The files are closed when the reading stops before their start.
      stream.return?.(undefined);
    }
  })();
  try {
    if (ctx.globals.json) {
      // An older journal may hold a target whole: shown without its credentials.
      await printJsonItems(
        io,
        map(entries, (e) => ({ ...e, target: maskTarget(e.target) })),
      );
      return;
    }
    const zone = await ctx.zone();
    if (io.csv)
      return await printCsv(
        io,
        map(entries, (e) => csvRow(e, zone)),
        CSV_FIELDS,
      );
    const first = entries.next();
    if (first.done) {
      io.err(
        `el journal ${path} está vacío: los eventos aparecen acá cuando \`svc webhook listen\` los recibe`,
      );
      return;
    }
    if (!io.stdoutTTY) {
      // Piped: the fields --csv has, in its order, as every list of svc pipes them (a
      // null is an empty field, a boolean `true`/`false`), not the table's wording.
      const fields: Column<Record<string, unknown>>[] = CSV_FIELDS.map((name) => ({
        header: name,
        value: (row) => raw(row[name], ''),
      }));
      const rows = map(prepend(first.value, entries), (e) => csvRow(e, zone));
      await printTable(io, fields, rows);
      return;
    }
    await table(ctx, zone, map(prepend(first.value, entries), summaryOf));
  } finally {
    reportSkipped(ctx, { problems: reader.problems(), skipped: reader.skipped });
  }
  if (io.stdoutTTY) {
    const note = more
      ? `los ${count(shownCount, 'evento más reciente', 'eventos más recientes')} de ${path} (hay más) · svc webhook replay <id> para reenviar`
      : `${count(shownCount, 'evento', 'eventos')} en ${path} · svc webhook replay <id> para reenviar`;
    for (const line of wrapWords(note, io.columns ?? Infinity)) io.err(io.c.dim(line));
  }
}

function* map<T, U>(items: Iterable<T>, f: (item: T) => U): Generator<U> {
  for (const item of items) yield f(item);
}

function* prepend<T>(first: T, rest: Iterable<T>): Generator<T> {
  yield first;
  yield* rest;
}

/** What a row of the table shows of an entry: not its bodies (a table of a year of events keeps only these). */
function summaryOf(e: JournalEntry): JournalEntry {
  return { ...e, monto: eventAmount(e), headers: {}, body: '', response: undefined };
}

async function table(ctx: Context, zone: string, entries: Iterable<JournalEntry>): Promise<void> {
  const { io } = ctx;
  const columns: Column<JournalEntry>[] = [
    { header: 'ID', value: (e) => e.id },
    { header: 'FECHA', value: (e) => serviceTime(e.received_at, zone), drop: 4 },
    // An event's name is a code, never shortened; a hostile one is shown escaped whole.
    { header: 'EVENTO', value: (e) => raw(e.event) },
    { header: 'COBRO', value: (e) => raw(e.cobro_id), align: 'right' },
    // What the event said (ESTADO, MONTO) stays longest on a narrow terminal, with what
    // happened to it (FIRMA, RESULTADO, STATUS) next; the rest is in `svc webhook ver <id>`.
    {
      header: 'ESTADO',
      value: (e) => raw(e.estado),
      style: (s, _e, c) => colorState(s, c),
      drop: 8,
    },
    // A partial payment's `3000.00 de 23000.00` breaks at its spaces before MONTO goes.
    {
      header: 'MONTO',
      value: (e) => raw(e.monto),
      align: 'right',
      shrink: true,
      wrap: true,
      drop: 9,
    },
    {
      header: 'FIRMA',
      value: (e) =>
        e.verification?.valid === true ? 'válida' : raw(e.verification?.reason, 'inválida'),
      shrink: true,
      drop: 6,
      style: (s, e, c) => (e.verification?.valid === true ? c.green(s) : c.red(s)),
    },
    {
      header: 'RESULTADO',
      shrink: true,
      drop: 7,
      value: (e) =>
        (e.source === 'replay' ? `replay de ${raw(e.replay_of, '?')}: ` : '') +
        (Object.hasOwn(OUTCOME_LABEL, e.outcome) ? OUTCOME_LABEL[e.outcome]! : raw(e.outcome)),
    },
    {
      header: 'STATUS',
      drop: 5,
      value: (e) =>
        e.status === null || e.status === undefined
          ? e.answered === null || e.answered === undefined
            ? '-'
            : `(${raw(e.answered)})`
          : raw(e.status),
      align: 'right',
      style: (s, e, c) =>
        e.status !== null && e.status >= 200 && e.status < 300
          ? c.green(s)
          : e.status === null && e.answered === 200
            ? s
            : c.red(s),
    },
    { header: 'LATENCIA', value: (e) => formatMs(e.latency_ms), align: 'right', drop: 1 },
  ];
  await printTable(io, columns, entries);
}
