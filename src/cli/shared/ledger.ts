// What a batch (refunds, payment requests) needs to do each row exactly once across
// kill -9, Ctrl-C and replies whose outcome is unknown: a ledger beside the batch's file,
// one JSON line per intent (written and fsynced before the row's POST) and per outcome
// (written after it, and on the disk with the next row's intent or when the ledger is
// closed: one fsync a row), read back on the next run; and, on a terminal, one progress
// line. An outcome a power cut loses leaves its intent alone, and a row with an intent
// and no outcome is looked up on the service before anything is sent: the service, not
// the ledger, says whether it was done.
import { closeSync, readFileSync } from 'node:fs';
import { UsageError } from '../../errors.js';
import { printable } from '../../text.js';
import { AppendLog, openRegularFile } from '../../durable.js';
import { formatCents, parseAmount } from '../../domain/money.js';
import type { Context } from '../context.js';
import { outcomeUnknown } from '../outcome.js';

/** A row's outcome as the ledger keeps it: `estado` says which. */
export interface LedgerOutcome {
  fila: number;
  estado: string;
}

export class Ledger<O extends LedgerOutcome> {
  readonly intents = new Set<number>();
  readonly outcomes = new Map<number, O>();
  /** The first `{ "archivo": … }` line: what the batch was when its ledger began. */
  readonly meta: Record<string, unknown> | undefined;
  private log: AppendLog;

  /** Opens (or creates, 0600) the ledger at `path`; `isOutcome` tells an outcome line from anything else. */
  constructor(
    readonly path: string,
    isOutcome: (line: Record<string, unknown>) => boolean,
  ) {
    const text = readLedger(path);
    let meta: Record<string, unknown> | undefined;
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      let e: Record<string, unknown>;
      try {
        e = JSON.parse(line) as Record<string, unknown>;
      } catch {
        // A line cut by a kill: an intent cut before its POST, or an outcome the service is asked about again.
        continue;
      }
      if (typeof e !== 'object' || e === null) continue;
      if ('archivo' in e) meta ??= e;
      else if (typeof e.fila === 'number' && 'intento' in e) this.intents.add(e.fila);
      else if (typeof e.fila === 'number' && isOutcome(e))
        this.outcomes.set(e.fila, e as unknown as O);
    }
    this.meta = meta;
    this.log = AppendLog.open(path);
    // A line cut by a kill is closed, so the next one starts clean.
    if (text && !text.endsWith('\n')) this.append('');
  }

  private append(line: string): void {
    this.log.append(`${line}\n`);
  }

  /** Records what the batch is, once, before its first row. */
  begin(meta: Record<string, unknown>): void {
    if (!this.meta) this.append(JSON.stringify({ archivo: true, ...meta }));
  }

  intent(fila: number): void {
    this.append(JSON.stringify({ fila, intento: new Date().toISOString() }));
    this.intents.add(fila);
  }

  /** The row's outcome: written now, on the disk with the next intent's fsync or at close(). */
  outcome(o: O): void {
    this.log.write(`${JSON.stringify(o)}\n`);
    this.outcomes.set(o.fila, o);
  }

  close(): void {
    this.log.close();
  }
}

/**
 * The ledger's text ('' when there is none yet). A regular file only, never through a
 * link: a FIFO would block the read forever, a link to /dev/zero would never end.
 */
function readLedger(path: string): string {
  let fd: number;
  try {
    fd = openRegularFile(path).fd;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return '';
    throw new UsageError(
      `el registro ${printable(path, 500)} ${
        code === 'ELOOP'
          ? 'es un enlace simbólico'
          : code === 'ENOTREG'
            ? 'no es un archivo común (una tubería, un dispositivo)'
            : `no se puede leer (${code ?? (err as Error).message})`
      }: no se hizo nada`,
    );
  }
  try {
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** Runs `work` over `items`, `paralelo` at a time, in order of start. */
export async function eachInTurn<T>(
  items: T[],
  paralelo: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(paralelo, items.length) }, worker));
}

/**
 * On a terminal: one line rewritten in place with rows, amount and time left; elsewhere
 * nothing (rows are reported one per line). Call with undefined at the end.
 */
export function makeProgress(
  ctx: Context,
  rows: number,
  total: bigint,
): (done: { monto: string; counted: boolean } | undefined) => void {
  if (!ctx.io.stderrTTY || ctx.globals.json) return () => {};
  const started = Date.now();
  let n = 0;
  let amount = 0n;
  let shown = 0;
  return (res) => {
    if (!res) {
      ctx.io.stderr.write('\n');
      return;
    }
    n++;
    if (res.counted) amount += parseAmount(res.monto);
    const perRow = (Date.now() - started) / n;
    const left = Math.round((perRow * (rows - n)) / 1000);
    const width = 20;
    const filled = Math.round((n / rows) * width);
    const counts = `${n}/${rows} filas · ${formatCents(amount)} de ${formatCents(total)} · quedan ~${left} s`;
    // Always shorter than the terminal: a line that wraps is not rewritten by \r, and
    // each update would leave a line behind. The bar goes first, then the amounts.
    const room = (ctx.io.errColumns ?? 80) - 1;
    const line = [
      `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${counts}`,
      counts,
      `${n}/${rows} filas · quedan ~${left} s`,
      `${n}/${rows}`,
    ].find((l, i, all) => l.length <= room || i === all.length - 1)!;
    // \r, the line, then blanks over what is left of the old one (it may have been longer).
    ctx.io.stderr.write(`\r${line.padEnd(shown)}`);
    shown = line.length;
  };
}

/** A row's try: the outcome the ledger now holds, or why it is still unknown. */
export type RowTry<O> = { outcome: O } | { unknown: string };

/**
 * One row, exactly once: when the ledger holds its intent (a run before was cut, or a
 * reply was lost), what `find` finds on the service is its outcome; only when there is
 * nothing is it sent, its intent written first. A reply lost on the way is looked for
 * again, three rounds at most; a refusal is the row's outcome. `find(round)` may answer
 * from what the run read before it began in round 0.
 */
export async function rowOnce<O extends LedgerOutcome>(
  ledger: Ledger<O>,
  fila: number,
  steps: {
    find(round: number): Promise<O | undefined>;
    send(): Promise<O>;
    refused(err: { error?: string; message: string }): O;
  },
): Promise<RowTry<O>> {
  for (let round = 0; round < 3; round++) {
    if (ledger.intents.has(fila)) {
      let found: O | undefined;
      try {
        found = await steps.find(round);
      } catch (err) {
        return { unknown: `no se pudo revisar el servicio: ${(err as Error).message}` };
      }
      if (found) {
        ledger.outcome(found);
        return { outcome: found };
      }
    }
    ledger.intent(fila);
    try {
      const made = await steps.send();
      ledger.outcome(made);
      return { outcome: made };
    } catch (err) {
      if (!outcomeUnknown(err)) {
        const refused = steps.refused(err as { error?: string; message: string });
        ledger.outcome(refused);
        return { outcome: refused };
      }
      // Unknown: the next round looks for it on the service before sending again.
    }
  }
  return { unknown: 'sin respuesta del servicio' };
}

/** A refusal as the ledger keeps it: the service's error name and message. */
export const refusalText = (e: { error?: string; message: string }) =>
  `${e.error ?? 'error'}: ${e.message}`;
