// svc caso: one payment request as a support agent needs it while the customer is on
// the line. The request is found by id, code or reference (shared/find-cobro.ts); its
// transactions, refunds and settlements come from one list call each, made at once,
// and the notifications from the local journal of `svc webhook listen`. On a terminal:
// the record, what is left to refund, each list and a timeline; --json one object;
// --markdown a report for a ticket that carries no key, secret or signature (the
// journal's headers, which hold the signature, are never shown here).
import { existsSync } from 'node:fs';
import type { Cobro, Devolucion, Liquidacion, Transaccion } from '../../../api/schemas.js';
import { inZone, serviceTime } from '../../../domain/dates.js';
import { refuseInexact } from '../../../api/exact.js';
import { DEFAULTS } from '../../../defaults.js';
import { formatCents, parseAmount, sumAmounts } from '../../../domain/money.js';
import {
  colorState,
  printJson,
  printRecord,
  printTable,
  type Column,
} from '../../../output/format.js';
import {
  devolucionColumns,
  liquidacionColumns,
  transaccionColumns,
  withoutCobro,
} from '../../../output/resources.js';
import { cobroPairs } from '../../../output/cobro.js';
import { count, printable, shown } from '../../../text.js';
import type { JournalEntry } from '../../../webhooks/event-journal.js';
import { UsageError } from '../../../errors.js';
import { settlementTotalsParts } from '../../shared/totals.js';
import type { Context } from '../../context.js';
import type { OptionsOf } from '../../define.js';
import { describeRef, findCobro, parseCobroRef, sayMatches } from '../../shared/find-cobro.js';
import { journalPath, readJournalAboutAt } from '../../shared/webhook.js';
import type { casoOptions } from './index.js';

/** A notification of the journal as a case shows it: what arrived and what became of it, no headers or body. */
export interface Notificacion {
  id: string;
  received_at: string;
  source: JournalEntry['source'];
  event: string | null;
  estado: string | null;
  monto: string | null;
  firma_valida: boolean;
  motivo: string | null;
  outcome: JournalEntry['outcome'];
  /** What the app answered (null: it was not asked, or did not answer). */
  status_app: number | null;
  /** The transaction the notification tells of (from its signed body; null when it names none). */
  transaccion_id: number | null;
}

export interface Caso {
  cobro: Cobro;
  transacciones: Transaccion[];
  devoluciones: Devolucion[];
  liquidaciones: Liquidacion[];
  notificaciones: Notificacion[];
}

export async function run(
  ctx: Context,
  args: string[],
  opts: OptionsOf<typeof casoOptions>,
): Promise<void> {
  // Two ways out asked at once: say so before any request, as --csv with --json is.
  if (opts.markdown === true && ctx.globals.json)
    throw new UsageError('--markdown o --json, no los dos');
  const ref = parseCobroRef(args[0], opts.referencia, 'svc caso');
  const journal = await journalPath(ctx, opts, true);
  const client = await ctx.client();
  const caso = await ctx
    .spin(`leyendo ${describeRef(ref)}…`, async () => {
      // The request first (a code or reference needs its list call); then the rest at once.
      const cobro = await findCobro(client, ref);
      // One pass over each list, keeping only this request's items as they arrive:
      // memory for the case, not for the merchant's history.
      const read = { keep: (x: unknown) => (x as { cobro_id?: unknown }).cobro_id === cobro.id };
      const [t, d, l] = await Promise.all([
        client.iterarTransacciones({}, read),
        client.iterarDevoluciones(read),
        client.iterarLiquidaciones(read),
      ]);
      const mine = <T extends { cobro_id: number }>(items: Iterable<T>) =>
        [...items].filter((x) => x.cobro_id === cobro.id);
      const caso = {
        cobro,
        transacciones: mine(t.data),
        devoluciones: mine(d.data),
        liquidaciones: mine(l.data),
        notificaciones: [] as Notificacion[],
      } satisfies Caso;
      // The case's totals and timeline rest on every row of the request: none taken in part.
      refuseInexact(
        [...caso.transacciones, ...caso.devoluciones, ...caso.liquidaciones],
        `el caso del cobro ${cobro.id}`,
      );
      return caso;
    })
    .catch((err: unknown) => {
      throw sayMatches(ctx, err);
    });
  // Only this request's notifications, found through the journal's index (the
  // listener keeps it; without one the journal is read a line at a time).
  const id = caso.cobro.id;
  caso.notificaciones = notificationsOf((await readJournalAboutAt(ctx, journal, id)).entries, id);

  // Every date as the service's zone reads it: shown so, and the timeline in its order.
  const zone = await ctx.zone();
  // One time format in the document: the journal's instants (UTC) as the service writes
  // its own dates, beside the records' `created_at` and `fecha`.
  if (ctx.globals.json)
    return printJson(ctx.io, {
      ...caso,
      notificaciones: caso.notificaciones.map((n) => ({
        ...n,
        received_at: serviceTime(n.received_at, zone),
      })),
    });
  const local: Caso = {
    ...caso,
    cobro: inZone(caso.cobro, zone),
    transacciones: caso.transacciones.map((x) => inZone(x, zone)),
    devoluciones: caso.devoluciones.map((x) => inZone(x, zone)),
    liquidaciones: caso.liquidaciones.map((x) => inZone(x, zone)),
  };
  if (opts.markdown === true) {
    ctx.io.out(markdown(local, zone));
    return;
  }
  await printCaso(ctx, local, journal);
}

/** The journal's notifications about one request, oldest first; none when there is no journal. */
function notificationsOf(entries: readonly JournalEntry[], cobroId: number): Notificacion[] {
  return entries
    .filter((e) => e.cobro_id === cobroId)
    .map((e) => ({
      id: e.id,
      received_at: e.received_at,
      source: e.source,
      event: e.event,
      estado: e.estado,
      monto: e.monto,
      firma_valida: e.verification.valid,
      motivo: e.verification.reason ?? null,
      outcome: e.outcome,
      status_app: e.status,
      transaccion_id: e.verification.valid ? transactionOf(e) : null,
    }));
}

/** The transaction a verified notification's body names, if it names one. */
function transactionOf(e: JournalEntry): number | null {
  if (e.body_encoding !== 'utf8') return null;
  try {
    const id = (JSON.parse(e.body) as { transaccion_id?: unknown }).transaccion_id;
    return typeof id === 'number' && Number.isSafeInteger(id) ? id : null;
  } catch {
    return null;
  }
}

interface Totals {
  cobrado: string;
  devuelto: string;
  queda: string;
  bruto: string;
  te_cobramos: string;
  te_queda: string;
}

function totalsOf(caso: Caso): Totals {
  const devuelto = sumAmounts(caso.devoluciones.map((d) => d.monto));
  const queda = parseAmount(caso.cobro.monto_cobrado) - devuelto;
  const sum = (pick: (l: Liquidacion) => string) =>
    formatCents(sumAmounts(caso.liquidaciones.map(pick)));
  return {
    cobrado: caso.cobro.monto_cobrado,
    devuelto: formatCents(devuelto),
    queda: formatCents(queda < 0n ? 0n : queda),
    bruto: sum((l) => l.bruto),
    te_cobramos: sum((l) => l.te_cobramos),
    te_queda: sum((l) => l.te_queda),
  };
}

/** What the app answered, in a table cell: the few words that tell the cases apart when shortened. */
function appShort(n: Notificacion): string {
  if (!n.firma_valida) return 'no reenviada';
  if (n.status_app !== null) return `respondió ${n.status_app}`;
  return n.outcome === 'unreachable'
    ? 'no respondió'
    : n.outcome === 'skipped'
      ? 'filtrada (--events)'
      : 'sin app';
}

function appAnswer(n: Notificacion): string {
  if (!n.firma_valida) return `rechazada (${n.motivo ?? 'firma inválida'})`;
  if (n.status_app !== null) return `la app respondió ${n.status_app}`;
  return n.outcome === 'unreachable'
    ? 'la app no respondió'
    : n.outcome === 'skipped'
      ? 'filtrada (--events)'
      : 'recibida, sin app';
}

/** A payment method in a sentence; one svc does not know, as sent. */
const MEDIO_WORDS: Record<string, string> = {
  transferencia: 'transferencia',
  qr: 'QR',
  debito: 'tarjeta de débito',
  credito: 'tarjeta de crédito',
  prepaga: 'tarjeta prepaga',
};
/** A state in a sentence (the tables keep the API's spelling); one svc does not know, as sent. */
const STATE_WORDS: Record<string, string> = {
  ACREDITADO: 'acreditado',
  RECHAZADO: 'rechazado',
  PENDIENTE: 'pendiente',
  EN_PROCESO: 'en proceso',
  PAGADA: 'pagado',
  PAGADA_PARCIALMENTE: 'pagado en parte',
  CANCELADO: 'cancelado',
  DEVUELTA: 'devuelto',
  DEVUELTA_PARCIALMENTE: 'devuelto en parte',
};
const inWords = (table: Record<string, string>, value: string) =>
  Object.hasOwn(table, value) ? table[value]! : value;

/**
 * What a settlement's `te queda` leaves out: it is figured on the whole payment
 * (its gross is the transaction's), so money refunded afterwards is not taken off.
 * Empty when nothing was refunded or the gross differs (the service may have).
 */
function settlementNote(caso: Caso, l: Liquidacion): string {
  const refunded = sumAmounts(caso.devoluciones.map((d) => d.monto));
  const tx = caso.transacciones.find((t) => t.id === l.transaccion_id);
  if (refunded === 0n || !tx || parseAmount(tx.monto) !== parseAmount(l.bruto)) return '';
  return ` (sobre el pago entero: no descuenta los ${formatCents(refunded)} devueltos)`;
}

/**
 * Every dated fact of the case, oldest by the service's clock: the service's local
 * times; a notification at the time of what it tells (the request created, the
 * payment of its transaction, the nth refund), since the journal's clock is this
 * machine's and the service's may have been moved (`svc sandbox reloj avanzar`); one
 * that tells of nothing dated goes after the one before it. At the same time, the
 * fact comes before its notifications. `q` renders the text that came from outside
 * (the concept, what a notification said): as is for a table, which shows each cell
 * safely; escaped for Markdown.
 */
function timeline(caso: Caso, q: (text: string) => string = (t) => t): [string, string][] {
  const c = caso.cobro;
  // [time, text, order at the same time]: a fact, then the notifications that tell of it.
  const rows: [string, string, number][] = [];
  const fact = (time: string, text: string) => {
    rows.push([time, text, rows.length * 1000]);
    return rows.at(-1)!;
  };
  const created = fact(c.created_at, `cobro creado: ${c.monto} (${q(c.concepto)})`);
  const paid = new Map(
    caso.transacciones.map((t) => [
      t.id,
      fact(
        t.fecha,
        `pago ${q(inWords(STATE_WORDS, t.estado))} con ${q(inWords(MEDIO_WORDS, t.medio))}: ${t.monto} (te queda ${t.te_queda}; operación ${q(t.codigo)})`,
      ),
    ]),
  );
  const refunds = [...caso.devoluciones]
    .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0))
    .map((d) =>
      fact(
        d.created_at,
        `devolución ${q(d.tipo)} de ${d.monto}; el cobro quedó ${q(inWords(STATE_WORDS, d.estado))}`,
      ),
    );
  let refundsTold = 0;
  let before: [string, number] = [created[0], created[2]];
  for (const n of caso.notificaciones) {
    // A notification that failed verification came from anyone: what it says is not the case's.
    const what = n.firma_valida
      ? `notificación ${q(n.event ?? '?')} (${q(n.estado ?? '?')}): ${appAnswer(n)}`
      : `notificación rechazada (${q(n.motivo ?? 'firma inválida')}), sin su contenido`;
    const told = !n.firma_valida
      ? undefined
      : n.event === 'payment.created'
        ? created
        : n.transaccion_id !== null
          ? paid.get(n.transaccion_id)
          : /refund/.test(n.event ?? '')
            ? refunds[refundsTold++]
            : undefined;
    const at: [string, number] =
      told && told[0] >= before[0] ? [told[0], told[2] + 1] : [before[0], before[1] + 1];
    before = at;
    rows.push([at[0], what, at[1]]);
  }
  for (const l of caso.liquidaciones)
    fact(
      l.fecha_estimada,
      `liquidación estimada de la transacción ${l.transaccion_id}: te quedan ${l.te_queda}${settlementNote(caso, l)}`,
    );
  // Paid in full, the request no longer expires: its vencimiento is no event of the case.
  if (c.vencimiento && parseAmount(c.monto_cobrado) < parseAmount(c.monto))
    fact(c.vencimiento, 'vencimiento del cobro');
  return rows
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[2] - b[2]))
    .map(([time, text]) => [time, text]);
}

const notificationColumns = (zone: string): Column<Notificacion>[] => [
  { header: 'FECHA', value: (n) => serviceTime(n.received_at, zone) },
  { header: 'EVENTO', value: (n) => n.event ?? '-' },
  // The request's state is in the record above: the first to go on a narrow terminal.
  {
    header: 'ESTADO',
    value: (n) => n.estado ?? '-',
    style: (s, _n, c) => colorState(s, c),
    drop: 2,
  },
  {
    header: 'FIRMA',
    value: (n) => (n.firma_valida ? 'válida' : `inválida (${n.motivo ?? '?'})`),
    shrink: true,
  },
  { header: 'APP', value: (n) => appShort(n), shrink: true },
  { header: 'ID', value: (n) => n.id, drop: 1 },
];

async function printCaso(ctx: Context, caso: Caso, journal: string): Promise<void> {
  const { io } = ctx;
  const zone = await ctx.zone();
  const totals = totalsOf(caso);
  printRecord(io, [
    ...cobroPairs(caso.cobro),
    [
      'devuelto',
      `${totals.devuelto} (${count(caso.devoluciones.length, 'devolución', 'devoluciones')})`,
    ],
    ['queda por devolver', totals.queda],
  ]);
  const section = async <T>(title: string, columns: Column<T>[], items: T[], footer?: string) => {
    io.out();
    io.out(io.c.bold(`${title} (${items.length})`));
    if (items.length) await printTable(io, columns, items);
    if (footer && items.length) io.out(io.c.dim(footer));
  };
  await section('transacciones', withoutCobro(transaccionColumns), caso.transacciones);
  await section(
    'devoluciones',
    withoutCobro(devolucionColumns),
    caso.devoluciones,
    `total devuelto ${totals.devuelto}; queda por devolver ${totals.queda}`,
  );
  await section(
    'liquidaciones',
    withoutCobro(liquidacionColumns),
    caso.liquidaciones,
    settlementTotalsParts(totals).join(' '),
  );
  await section('notificaciones recibidas', notificationColumns(zone), caso.notificaciones);
  // None: say where svc looked, so "0" is not read as "the service sent none".
  if (caso.notificaciones.length === 0)
    io.out(
      io.c.dim(
        existsSync(journal) || existsSync(`${journal}.1`)
          ? `ninguna de este cobro en el journal ${printable(journal, 500)}`
          : `no hay journal en ${printable(journal, 500)}: las guarda \`svc webhook listen\` mientras corre`,
      ),
    );
  io.out();
  io.out(io.c.bold('línea de tiempo'));
  await printTable(
    io,
    [
      { header: 'FECHA', value: (r: [string, string]) => r[0] },
      { header: 'QUÉ PASÓ', value: (r: [string, string]) => r[1], shrink: true, wrap: true },
    ],
    timeline(caso),
  );
}

/** svc's own words and the values the client checked (amounts, dates, states, ids) in a Markdown cell: one line, pipes escaped. */
function cell(text: string | number | null): string {
  return printable(String(text ?? '-'), 200).replace(/\|/g, '\\|');
}

/** Text that reads the same in Markdown: words, digits, spaces and `.,;-` with no `www.` (which GitHub would link). */
const PLAIN_MD = /^[\p{L}\p{N} .,;-]*$/u;

/**
 * Text from outside (the service's concept, reference, URLs, codes; what a journal
 * holds) in a Markdown report: as is when it cannot be read as Markdown or HTML,
 * else a code span, where nothing is a link, an image or a tag (`[Pagá acá](…)`,
 * `![](…)`, `<img onerror=…>`, a bare URL); one line, shown escaped when unsafe.
 */
function md(text: string | null): string {
  if (text === null || text === '') return '-';
  if (PLAIN_MD.test(text) && !/www\./i.test(text)) return text;
  const t = shown(text, 200).replace(/\|/g, '\\|');
  const fence = '`'.repeat(Math.max(0, ...(t.match(/`+/g) ?? []).map((run) => run.length)) + 1);
  const pad =
    t.startsWith('`') || t.endsWith('`') || (t.startsWith(' ') && t.endsWith(' ')) ? ' ' : '';
  return `${fence}${pad}${t}${pad}${fence}`;
}

/** A Markdown table of cells already rendered (cell or md). */
function mdTable(headers: string[], rows: string[][]): string {
  if (rows.length === 0) return '_ninguna_\n';
  return (
    [
      `| ${headers.join(' | ')} |`,
      `|${headers.map(() => '---').join('|')}|`,
      ...rows.map((r) => `| ${r.join(' | ')} |`),
    ].join('\n') + '\n'
  );
}

/** The case as a Markdown report for a ticket. */
export function markdown(caso: Caso, zone: string = DEFAULTS.timeZone): string {
  const c = caso.cobro;
  const t = totalsOf(caso);
  const cells = (rows: (string | number | null)[][]) => rows.map((r) => r.map(cell));
  return [
    `# Caso ${md(c.codigo)}: cobro ${c.id}`,
    '',
    mdTable(
      ['campo', 'valor'],
      [
        ['concepto', md(c.concepto)],
        ['referencia', md(c.referencia)],
        ['estado', cell(c.estado)],
        ['monto', cell(c.monto)],
        ['cobrado', cell(t.cobrado)],
        ['devuelto', cell(t.devuelto)],
        ['queda por devolver', cell(t.queda)],
        ['creado', cell(c.created_at)],
        ['vencimiento', cell(c.vencimiento)],
        ['link de pago', md(c.url)],
      ],
    ),
    `## Transacciones (${caso.transacciones.length})`,
    '',
    mdTable(
      ['id', 'medio', 'estado', 'monto', 'te cobramos', 'te queda', 'fecha', 'acreditación'],
      cells(
        caso.transacciones.map((x) => [
          x.id,
          x.medio,
          x.estado,
          x.monto,
          x.te_cobramos,
          x.te_queda,
          x.fecha,
          x.acreditacion,
        ]),
      ),
    ),
    `## Devoluciones (${caso.devoluciones.length})`,
    '',
    mdTable(
      ['id', 'monto', 'tipo', 'estado', 'fecha'],
      cells(caso.devoluciones.map((x) => [x.id, x.monto, x.tipo, x.estado, x.created_at])),
    ),
    `Total devuelto: **${t.devuelto}**. Queda por devolver: **${t.queda}**.`,
    '',
    `## Liquidaciones (${caso.liquidaciones.length})`,
    '',
    mdTable(
      ['transacción', 'bruto', 'te cobramos', 'te queda', 'llega (est.)'],
      cells(
        caso.liquidaciones.map((x) => [
          x.transaccion_id,
          x.bruto,
          x.te_cobramos,
          x.te_queda,
          x.fecha_estimada,
        ]),
      ),
    ),
    `Totales: bruto **${t.bruto}**, te cobramos **${t.te_cobramos}**, te queda **${t.te_queda}**.`,
    '',
    `## Notificaciones recibidas (${caso.notificaciones.length})`,
    '',
    mdTable(
      ['fecha', 'evento', 'estado', 'firma', 'app'],
      caso.notificaciones.map((n) =>
        // A notification that failed verification came from anyone: listed as rejected, nothing it said.
        n.firma_valida
          ? [
              cell(serviceTime(n.received_at, zone)),
              md(n.event),
              md(n.estado),
              'válida',
              cell(appAnswer(n)),
            ]
          : [
              cell(serviceTime(n.received_at, zone)),
              '-',
              '-',
              'inválida',
              `rechazada (${md(n.motivo ?? 'firma inválida')}), sin su contenido`,
            ],
      ),
    ),
    '## Línea de tiempo',
    '',
    mdTable(
      ['fecha', 'qué pasó'],
      timeline(caso, md).map(([when, what]) => [cell(when), what]),
    ),
  ].join('\n');
}
