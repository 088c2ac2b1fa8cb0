// svc webhook eventos: lists the journal of received notifications: what arrived,
// whether its signature was valid, what was done with it and what the app answered.
// A table on a terminal, tab-separated rows when piped, the entries with --json.
import { readJournal, JournalError, type JournalEntry } from '../../../webhooks/journal.js';
import { printTable, colorState, type Column, printJson } from '../../../output/format.js';
import type { Context } from '../../context.js';
import { ConfigError } from '../../errors.js';
import { parsePositiveInt } from '../../parse.js';
import { clock, formatMs, journalPath, OUTCOME_LABEL } from './shared.js';

export async function run(ctx: Context, _args: string[], opts: Record<string, unknown>): Promise<void> {
  const { io } = ctx;
  const limit = opts.limit === undefined ? undefined : parsePositiveInt(opts.limit, '--limit');
  const path = await journalPath(ctx, opts);
  let read;
  try {
    read = readJournal(path);
  } catch (err) {
    if (err instanceof JournalError) throw new ConfigError(err.message);
    throw err;
  }
  const entries = limit ? read.entries.slice(-limit) : read.entries;
  if (read.skipped) io.err(io.c.yellow(`aviso: ${read.skipped} línea(s) del journal no se pudieron leer y se omitieron`));
  if (ctx.globals.json) {
    printJson(io, entries);
    return;
  }
  if (entries.length === 0) {
    io.err(`el journal ${path} está vacío: los eventos aparecen acá cuando \`svc webhook listen\` los recibe`);
    return;
  }
  const columns: Column<JournalEntry>[] = [
    { header: 'id', value: (e) => e.id },
    { header: 'fecha', value: (e) => (io.stdoutTTY ? `${e.received_at.slice(0, 10)} ${clock(e.received_at)}` : e.received_at) },
    { header: 'evento', value: (e) => e.event ?? '-' },
    { header: 'cobro', value: (e) => (e.cobro_id === null ? '-' : String(e.cobro_id)), align: 'right' },
    { header: 'estado', value: (e) => e.estado ?? '-', style: (s, _e, c) => colorState(s, c) },
    { header: 'monto', value: (e) => e.monto ?? '-', align: 'right' },
    {
      header: 'firma',
      value: (e) => (e.verification.valid ? 'válida' : (e.verification.reason ?? 'inválida')),
      style: (s, e, c) => (e.verification.valid ? c.green(s) : c.red(s)),
    },
    {
      header: 'resultado',
      value: (e) => (e.source === 'replay' ? `replay de ${e.replay_of ?? '?'}: ` : '') + (OUTCOME_LABEL[e.outcome] ?? e.outcome),
    },
    {
      header: 'status',
      value: (e) => (e.status === null ? (e.answered === null ? '-' : `(${e.answered})`) : String(e.status)),
      align: 'right',
      style: (s, e, c) => (e.status !== null && e.status >= 200 && e.status < 300 ? c.green(s) : e.status === null && e.answered === 200 ? s : c.red(s)),
    },
    { header: 'latencia', value: (e) => formatMs(e.latency_ms), align: 'right' },
  ];
  await printTable(io, columns, entries);
  if (io.stdoutTTY) io.err(io.c.dim(`${entries.length} evento(s) de ${read.entries.length} en ${path} · svc webhook replay <id> para reenviar`));
}
