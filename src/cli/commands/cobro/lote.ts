// Payment requests in a batch: `svc cobro crear --lote FILE.csv` creates one request per
// row (a school's 300 families each month), each exactly once under kill -9, Ctrl-C, a
// second run at the same moment and replies whose outcome is unknown:
// - the file is read as a stream (../../shared/csv.ts readCsvRows), a row kept as its
//   line and one short string; every row is checked before anything is sent (as
//   `cobro crear` checks its flags), and a file with any bad row creates nothing,
//   naming each bad line;
// - `referencia` is required and unique in the file: it is how a row is found on the
//   service again. Referencias are compared in one normal form (rules.ts referenciaKey:
//   NFC, invisible characters removed, blanks trimmed; case significant) and sent as
//   written. A referencia the service already holds is refused before anything is
//   sent, unless this batch's own ledger says the row was sent (then it is that row's);
// - the file is locked while it runs, by what it is (../../../lock.ts: its content's
//   digest, its device and inode, FILE.lock: copies and links of it wait too), and a ledger beside it
//   (FILE.csv.registro.jsonl) gets the file's digest, then each row's intent, fsynced,
//   before its POST, and its outcome after. A run over a file edited since its ledger
//   began is refused: line numbers would name other rows;
// - a row with an intent and no outcome is looked for by its referencia first; only
//   when the service has none is it sent again.
import type { Client } from '../../../api/client.js';
import type { Cobro } from '../../../api/schemas.js';
import type { CrearCobroInput } from '../../../api/contract.js';
import { DateError, parseVencimiento } from '../../../domain/dates.js';
import { serviceNow } from '../../shared/service-clock.js';
import { CliError, EXIT, UsageError } from '../../../errors.js';
import { formatCents, sumAmounts } from '../../../domain/money.js';
import { csvField, printTable, type Column } from '../../../output/format.js';
import { MAX_CONCEPTO, MAX_REFERENCIA, referenciaKey } from '../../../domain/rules.js';
import { count, printable, shown } from '../../../text.js';
import type { Context } from '../../context.js';
import { parseId, parseUrl } from '../../parse.js';
import {
  batchColumns,
  cellAmount,
  encodingNote,
  parseSeparator,
  readCsvRows,
  type CsvRecord,
  type Separator,
} from '../../shared/csv.js';
import { lockFile } from '../../../lock.js';
import { eachInTurn, Ledger, makeProgress, refusalText, rowOnce } from '../../shared/ledger.js';
import { replaceFile } from '../../../durable.js';
import { checkText } from './crear.js';

const COLUMNS = [
  'concepto',
  'monto',
  'referencia',
  'vencimiento',
  'medios',
  'success_url',
  'error_url',
] as const;
const MEDIOS = ['tarjeta', 'qr', 'transferencia'] as const;

interface Row {
  fila: number;
  body: CrearCobroInput & { referencia: string };
}

type Outcome =
  | { fila: number; estado: 'creado'; cobro_id: number; codigo: string; url: string }
  | { fila: number; estado: 'rechazado'; error: string };

interface RowResult {
  fila: number;
  referencia: string;
  monto: string;
  estado: 'creado' | 'ya_creado' | 'rechazado' | 'incierto';
  cobro_id: number | null;
  codigo: string | null;
  url: string | null;
  error: string | null;
}

export interface LoteOptions {
  lote: string;
  separador?: unknown;
  resultado?: unknown;
  paralelo?: unknown;
}

/** `medios`: empty for all three, else the ones named (tarjeta, qr, transferencia), separated by spaces, `+`, `|` or `/`. */
function csvMedios(text: string): Partial<Record<(typeof MEDIOS)[number], false>> {
  if (text.trim() === '') return {};
  const named = text
    .toLowerCase()
    .split(/[\s+|/]+/)
    .filter(Boolean);
  const wrong = named.find((m) => !(MEDIOS as readonly string[]).includes(m));
  if (wrong !== undefined)
    throw new UsageError(
      `medios: "${printable(wrong, 40)}" no es un medio (tarjeta, qr, transferencia)`,
    );
  return Object.fromEntries(MEDIOS.filter((m) => !named.includes(m)).map((m) => [m, false]));
}

/** A row's body as one short string: [concepto, monto, referencia] then, when any, [medios left out, vencimiento, success_url, error_url]. */
function pack(body: Row['body']): string {
  const off = MEDIOS.filter((m) => body[m] === false).join(' ');
  const more = [off, body.vencimiento ?? '', body.success_url ?? '', body.error_url ?? ''];
  return JSON.stringify([
    body.concepto,
    body.monto,
    body.referencia,
    ...(more.some(Boolean) ? more : []),
  ]);
}

function unpack(packed: string): Row['body'] {
  const [concepto, monto, referencia, off, vencimiento, success, error] = JSON.parse(
    packed,
  ) as string[];
  const body: Row['body'] = { concepto: concepto!, monto: monto!, referencia: referencia! };
  for (const m of off ? off.split(' ') : []) body[m as (typeof MEDIOS)[number]] = false;
  if (vencimiento) body.vencimiento = vencimiento;
  if (success) body.success_url = success;
  if (error) body.error_url = error;
  return body;
}

/**
 * A batch's rows as they are read, each checked as `cobro crear` checks its flags: a
 * good row is kept as its line and one short string (a million rows fit in about a
 * hundred MB), a bad one as the line that names it. Referencias are compared in one
 * normal form, each kept once with its line.
 */
class CheckedRows {
  readonly lines: number[] = [];
  private readonly packed: string[] = [];
  /** referenciaKey → the line that has it. */
  readonly keys = new Map<string, number>();
  readonly bad: string[] = [];

  constructor(
    private readonly at: Partial<Record<(typeof COLUMNS)[number], number>>,
    private readonly timeZone: string,
    /** The service's now (a sandbox's clock may be moved on): "mañana" is its tomorrow. */
    private readonly now: number,
  ) {}

  get length(): number {
    return this.lines.length;
  }

  row(i: number): Row {
    return { fila: this.lines[i]!, body: unpack(this.packed[i]!) };
  }

  *[Symbol.iterator](): Generator<Row> {
    for (let i = 0; i < this.lines.length; i++) yield this.row(i);
  }

  check(r: CsvRecord): void {
    const cell = (c: (typeof COLUMNS)[number]) => {
      const i = this.at[c];
      return i === undefined ? '' : (r.values[i] ?? '');
    };
    try {
      const concepto = checkText(cell('concepto'), 'concepto', MAX_CONCEPTO);
      const referencia = checkText(cell('referencia'), 'referencia', MAX_REFERENCIA);
      // Compared as people type them: NFC and NFD, a zero-width space, a trailing blank are one referencia.
      const key = referenciaKey(referencia);
      const twin = this.keys.get(key);
      if (twin !== undefined)
        throw new UsageError(
          `la referencia "${printable(referencia, 40)}" ya está en la línea ${twin} (cada fila necesita la suya: así se la encuentra después de un corte)`,
        );
      this.keys.set(key, r.line);
      const body: Row['body'] = {
        concepto,
        monto: formatCents(cellAmount(cell('monto'))),
        referencia,
        ...csvMedios(cell('medios')),
      };
      if (body.tarjeta === false && body.qr === false && body.transferencia === false)
        throw new UsageError('medios: ninguno; dejá al menos uno');
      const vence = cell('vencimiento');
      if (vence) {
        try {
          body.vencimiento = parseVencimiento(vence, {
            timeZone: this.timeZone,
            now: this.now,
          }).iso;
        } catch (err) {
          if (err instanceof DateError) throw new UsageError(`vencimiento ${err.message}`);
          throw err;
        }
      }
      if (cell('success_url'))
        body.success_url = parseUrl(cell('success_url'), 'success_url', 'https');
      if (cell('error_url')) body.error_url = parseUrl(cell('error_url'), 'error_url', 'https');
      // Once a row is bad nothing is created: the good ones need not be kept, only checked.
      if (this.bad.length) return;
      this.lines.push(r.line);
      this.packed.push(pack(body));
    } catch (err) {
      if (!(err instanceof CliError)) throw err;
      this.bad.push(`línea ${r.line}: ${err.message}`);
      this.lines.length = 0;
      this.packed.length = 0;
    }
  }

  /** A UsageError naming each bad line, when any is bad. */
  refuseBad(ctx: Context, lote: string): void {
    const { bad } = this;
    if (!bad.length) return;
    for (const line of bad) ctx.io.err(ctx.io.c.yellow(line));
    throw new CliError(
      `${count(bad.length, 'fila no se puede crear', 'filas no se pueden crear')} (${bad.map((b) => b.split(':')[0]).join(', ')}): no se creó ningún cobro de ${printable(lote)}`,
      {
        exit: EXIT.usage,
        code: 'rows_invalid',
        hint: 'corregí esas filas y volvé a correr el mismo comando',
      },
    );
  }
}

/** `svc cobro crear --lote FILE.csv`: read as a stream and checked whole, locked, each row once. */
export async function createBatch(ctx: Context, o: LoteOptions): Promise<void> {
  const paralelo = o.paralelo === undefined ? 1 : parseId(o.paralelo, '--paralelo');
  if (paralelo > 4)
    throw new UsageError('--paralelo: hasta 4 a la vez (el servicio no es para ráfagas)');
  const resultado = o.resultado === undefined ? undefined : String(o.resultado);
  const what = `--lote ${printable(o.lote)}`;
  const separator = parseSeparator(o.separador);
  const timeZone = await ctx.zone();
  // Asked once, before the rows stream by: only a sandbox on this machine is asked.
  const now = await serviceNow(ctx);
  let rows: CheckedRows | undefined;
  const notices: string[] = [];
  const csv = await readCsvRows(o.lote, { what: '--lote', separator }, (head) => {
    notices.length = 0;
    const at = batchColumns(head, what, COLUMNS, ['concepto', 'monto', 'referencia'], (line) =>
      notices.push(line),
    );
    const checked = new CheckedRows(at, timeZone, now);
    rows = checked;
    return (r) => checked.check(r);
  });
  const read = encodingNote(csv, what);
  for (const line of read ? [read, ...notices] : notices) say(ctx, ctx.io.c.yellow(line));
  if (!rows || csv.rows === 0) throw new UsageError(`${what}: no tiene filas`);
  rows.refuseBad(ctx, o.lote);
  const client = await ctx.client();
  const lock = await lockFile(o.lote, {
    what: `el lote ${printable(o.lote)}`,
    kind: 'lote',
    digest: csv.digest,
    onWait: (h) =>
      say(
        ctx,
        ctx.io.c.dim(
          `otro proceso${h ? ` (pid ${h.pid})` : ''} está creando los cobros de ${shown(o.lote)}: esperando a que termine…`,
        ),
      ),
  });
  try {
    await createLocked(ctx, client, o.lote, rows, paralelo, resultado, csv);
  } finally {
    lock.release();
  }
}

async function createLocked(
  ctx: Context,
  client: Client,
  lote: string,
  rows: CheckedRows,
  paralelo: number,
  resultado: string | undefined,
  { digest, separator }: { digest: string; separator: Separator },
): Promise<void> {
  const { io, globals } = ctx;
  const ledger = new Ledger<Outcome>(
    `${lote}.registro.jsonl`,
    (e) => e.estado === 'creado' || e.estado === 'rechazado',
  );
  try {
    if (ledger.meta && ledger.meta.digest !== digest) {
      throw new CliError(
        `${printable(lote)} cambió desde que empezó su registro (${shown(ledger.path)}): las líneas ya no nombran las mismas filas; no se creó nada`,
        {
          exit: EXIT.usage,
          code: 'batch_changed',
          hint: `las filas que faltan, en un CSV nuevo; o, si no se creó ninguna, borrá ${shown(ledger.path)}`,
        },
      );
    }
    // Its rows were made with the profile and mode that began it: in another (a batch
    // tried in test mode, then run in live) none of them is there.
    const { mode: modo, profileName } = await ctx.resolved();
    const perfil = profileName.value;
    const began = ledger.meta;
    if (
      began &&
      ((began.modo !== undefined && began.modo !== modo) ||
        (began.perfil !== undefined && began.perfil !== perfil))
    ) {
      const of = (p: unknown, m: unknown) =>
        `del perfil "${printable(String(p))}" en modo ${printable(String(m))}`;
      throw new CliError(
        `el registro ${shown(ledger.path)} es ${of(began.perfil, began.modo)} y estás usando el perfil "${printable(perfil)}" en modo ${modo}: sus filas se crearon allí, no acá; no se creó nada`,
        {
          exit: EXIT.usage,
          code: 'batch_other_profile',
          hint: `para crear el lote ${of(perfil, modo)}, mové ${shown(ledger.path)} a otra carpeta (guarda lo que se hizo antes) y volvé a correr el mismo comando`,
        },
      );
    }
    // Rows left to do, by their place in `rows`: each is unpacked only when it is used.
    const todo: number[] = [];
    for (let i = 0; i < rows.length; i++) if (!ledger.outcomes.has(rows.lines[i]!)) todo.push(i);
    // The service's requests by referencia: a row's own (sent before a cut) or someone else's.
    const existing = await byReferencia(ctx, client, rows.keys, ledger, todo.length > 0);
    const taken: Row[] = [];
    for (const i of todo) {
      const r = rows.row(i);
      if (!ledger.intents.has(r.fila) && existing.has(referenciaKey(r.body.referencia)))
        taken.push(r);
    }
    if (taken.length) {
      for (const r of taken)
        io.err(
          io.c.yellow(
            `línea ${r.fila}: ya hay un cobro con la referencia "${printable(r.body.referencia, 40)}" (id ${existing
              .get(referenciaKey(r.body.referencia))!
              .map((c) => c.id)
              .join(', ')})`,
          ),
        );
      throw new CliError(
        `${count(taken.length, 'referencia ya existe', 'referencias ya existen')} en el servicio: no se creó ningún cobro de ${printable(lote)}`,
        {
          exit: EXIT.usage,
          code: 'referencia_taken',
          hint: 'cada cobro del lote necesita una referencia nueva (ej. 2026-12-familia-12)',
        },
      );
    }
    if (todo.length < rows.length)
      say(
        ctx,
        `${count(rows.length - todo.length, 'fila ya estaba creada', 'filas ya estaban creadas')} (registro ${shown(ledger.path)}): se saltean`,
      );
    const total = sumAmounts(todo.map((i) => rows.row(i).body.monto));
    if (todo.length && !globals.yes) {
      const live = modo === 'live';
      const sum = formatCents(total);
      if (!io.canPrompt) {
        if (live) await ctx.guardChange(`crear los cobros de ${shown(lote)}`);
      } else if (live) {
        await ctx.confirmTyped(
          `MODO LIVE: para crear ${count(todo.length, 'cobro', 'cobros')} por ${sum} escribí el total (${sum}):`,
          sum,
        );
      } else {
        await ctx.confirm(`¿Crear ${count(todo.length, 'cobro', 'cobros')} por ${sum}?`);
      }
    }
    ledger.begin({ digest, lote, modo, perfil });
    const results: RowResult[] = [];
    for (const r of rows) {
      const done = ledger.outcomes.get(r.fila);
      if (done) results.push(resultOf(r, done, true));
    }
    for (const res of results) emit(ctx, res);
    const earlier = new Set(results.map((x) => x.fila));
    const progress = makeProgress(ctx, todo.length, total);
    await eachInTurn(todo, paralelo, async (i) => {
      const r = rows.row(i);
      const res = await createRow(
        client,
        ledger,
        r,
        existing.get(referenciaKey(r.body.referencia)),
      );
      results.push(res);
      emit(ctx, res);
      progress({ monto: res.monto, counted: res.estado === 'creado' });
    });
    progress(undefined);
    results.sort((a, b) => a.fila - b.fila);
    if (resultado) replaceFile(resultado, resultCsv(results, separator));
    if (!globals.json) await printTable(io, RESULT_COLUMNS, results, 'no hay filas');
    const rechazados = results.filter((x) => x.estado === 'rechazado');
    const inciertos = results.filter((x) => x.estado === 'incierto');
    say(
      ctx,
      `${runSummary(results, earlier, inciertos.length)}${resultado ? `; resultado en ${shown(resultado)}` : ''}`,
    );
    if (inciertos.length) {
      throw new CliError(
        `${count(inciertos.length, 'fila quedó', 'filas quedaron')} sin saber si se creó (${inciertos.map((x) => `línea ${x.fila}`).join(', ')}): corré el mismo comando de nuevo, que primero las busca por su referencia`,
        {
          exit: EXIT.network,
          code: 'outcome_unknown',
        },
      );
    }
    if (rechazados.length)
      throw new CliError(
        `el servicio rechazó ${count(rechazados.length, 'fila', 'filas')}: ${rechazados.map((x) => `línea ${x.fila}`).join(', ')}`,
        { exit: EXIT.refused, code: 'rows_refused' },
      );
  } finally {
    ledger.close();
  }
}

/** What this run did: rows an earlier run had finished are said apart, not counted again. */
function runSummary(results: RowResult[], earlier: Set<number>, unsure: number): string {
  const now = results.filter((x) => !earlier.has(x.fila));
  const made = now.filter((x) => x.estado === 'creado').length;
  const refused = now.filter((x) => x.estado === 'rechazado').length;
  return (
    `${count(made, 'cobro creado', 'cobros creados')}, ${refused} rechazados` +
    (unsure ? `, ${unsure} sin saber` : '') +
    (earlier.size
      ? `; ${count(earlier.size, 'fila ya estaba hecha', 'filas ya estaban hechas')} de antes`
      : '')
  );
}

/** The service's requests whose referencia is one of the rows' left to do, by referenciaKey (one read of the list, only those kept). */
async function byReferencia(
  ctx: Context,
  client: Client,
  keys: Map<string, number>,
  ledger: Ledger<Outcome>,
  left: boolean,
): Promise<Map<string, Cobro[]>> {
  const wanted = (key: string) => {
    const fila = keys.get(key);
    return fila !== undefined && !ledger.outcomes.has(fila);
  };
  const found = new Map<string, Cobro[]>();
  if (!left) return found;
  // One read of the list, keeping only the requests whose referencia a row left to do has.
  const { data } = await ctx.spin('revisando las referencias…', () =>
    client.iterarCobros(
      {},
      {
        keep: (x) => {
          const r = (x as { referencia?: unknown }).referencia;
          return typeof r === 'string' && wanted(referenciaKey(r));
        },
      },
    ),
  );
  for (const c of data) {
    const key = c.referencia === null ? undefined : referenciaKey(c.referencia);
    if (key !== undefined && wanted(key)) found.set(key, [...(found.get(key) ?? []), c]);
  }
  return found;
}

/** A row's request on the service, looked up by its referencia (after a cut). */
async function findByReferencia(client: Client, referencia: string): Promise<Cobro | undefined> {
  const { data } = await client.listarCobros({ q: referencia });
  const key = referenciaKey(referencia);
  return data.data.find((c) => c.referencia !== null && referenciaKey(c.referencia) === key);
}

/** One row, exactly once (shared/ledger.ts): a row left in doubt is looked for by its referencia before it is sent again. */
async function createRow(
  client: Client,
  ledger: Ledger<Outcome>,
  r: Row,
  known: Cobro[] | undefined,
): Promise<RowResult> {
  const made = (c: Cobro): Outcome => ({
    fila: r.fila,
    estado: 'creado',
    cobro_id: c.id,
    codigo: c.codigo,
    url: c.url,
  });
  const t = await rowOnce(ledger, r.fila, {
    // Round 0: the whole list read before the run; after a lost reply, ask again.
    find: async (round) => {
      const c = round === 0 ? known?.[0] : await findByReferencia(client, r.body.referencia);
      return c && made(c);
    },
    send: async () => made((await client.crearCobro(r.body)).data.data),
    refused: (e): Outcome => ({ fila: r.fila, estado: 'rechazado', error: refusalText(e) }),
  });
  return 'outcome' in t
    ? resultOf(r, t.outcome, false)
    : { ...base(r), estado: 'incierto', error: t.unknown };
}

const base = (r: Row) => ({
  fila: r.fila,
  referencia: r.body.referencia,
  monto: r.body.monto,
  cobro_id: null,
  codigo: null,
  url: null,
  error: null,
});

function resultOf(r: Row, o: Outcome, before: boolean): RowResult {
  return o.estado === 'creado'
    ? {
        ...base(r),
        estado: before ? 'ya_creado' : 'creado',
        cobro_id: o.cobro_id,
        codigo: o.codigo,
        url: o.url,
      }
    : { ...base(r), estado: 'rechazado', error: o.error };
}

// The link is what the command is for and stays whole with the row's line and
// referencia; at 60 columns the code goes first (the link ends with it), then the
// amount and the state (a refused row's link cell says why).
const RESULT_COLUMNS: Column<RowResult>[] = [
  { header: 'LÍNEA', value: (r) => String(r.fila), align: 'right' },
  { header: 'REFERENCIA', value: (r) => r.referencia },
  { header: 'MONTO', value: (r) => r.monto, align: 'right', drop: 2 },
  { header: 'ESTADO', value: (r) => r.estado, drop: 3 },
  { header: 'CÓDIGO', value: (r) => r.codigo ?? '', drop: 1 },
  { header: 'LINK DE PAGO', value: (r) => r.url ?? r.error ?? '' },
];

/** --json: one NDJSON line per row as it is done. Otherwise the table at the end says it all. */
function emit(ctx: Context, res: RowResult): void {
  if (ctx.globals.json) ctx.io.outRaw(JSON.stringify(res));
}

/** The result file, with the batch's own separator: the spreadsheet that saved it opens it the same way. */
function resultCsv(results: RowResult[], separator: Separator): string {
  const lines = [
    ['fila', 'referencia', 'monto', 'estado', 'cobro_id', 'codigo', 'url', 'error'].join(separator),
  ];
  for (const r of results)
    lines.push(
      [
        r.fila,
        r.referencia,
        r.monto,
        r.estado,
        r.cobro_id ?? '',
        r.codigo ?? '',
        r.url ?? '',
        r.error ?? '',
      ]
        .map((v) => csvField(String(v), separator))
        .join(separator),
    );
  return `${lines.join('\r\n')}\r\n`;
}

function say(ctx: Context, line: string): void {
  if (!ctx.globals.json) ctx.io.err(line);
}
