// Refunds in a batch: `svc devolver --lote FILE.csv --plan lote.json` checks every row
// as --dry-run does and writes a plan of the rows that fit; `svc devolver --aplicar
// lote.json` makes each row's refund exactly once, under kill -9, Ctrl-C, a second
// apply at the same moment and replies whose outcome is unknown:
// - the plan is locked while it is applied, by what it is (../../../lock.ts): a copy,
//   a hard link or another path of it waits for the same lock;
// - a ledger beside it (lote.json.registro.jsonl) gets the row's intent, fsynced,
//   before its POST, and its outcome after;
// - the service is the source of truth, the ledger only makes it faster: before any
//   row is sent, the refunds of its request are read again, and a refund of its amount
//   made since the plan (not among `antes`) and not claimed by another row of this
//   ledger means the row is not sent, whatever the ledger says (a copy of the plan
//   applied before, a refund made by hand, a ledger lost or from elsewhere). A row
//   with an intent and no outcome (killed mid-POST) owns such a refund; any other row
//   is reported as found. Rows of one request and amount that outnumber the refunds
//   found cannot be told apart (which of them were made?): none of them is sent, and
//   they are named for a person to decide;
// - a reply lost on the way is looked for on the service before the row is sent again.
import { InexactRowError, markOf, refuseInexact, rowName } from '../../../api/exact.js';
import { closeSync, readFileSync } from 'node:fs';
import type { Client } from '../../../api/client.js';
import type { Cobro, Devolucion, Transaccion } from '../../../api/schemas.js';
import { CancelledError, CliError, EXIT, UsageError } from '../../../errors.js';
import {
  formatCents,
  isAmount,
  parseAmount,
  sumAmounts,
  type Cents,
} from '../../../domain/money.js';
import { csvField, fitColumns } from '../../../output/format.js';
import { count, displayWidth, fitWidth, printable, shown } from '../../../text.js';
import type { Context } from '../../context.js';
import { parseCobroRef, type CobroRef } from '../../shared/find-cobro.js';
import {
  batchColumns,
  cellAmount,
  encodingNote,
  parseSeparator,
  readCsvRows,
  type Separator,
} from '../../shared/csv.js';
import { lockFile } from '../../../lock.js';
import { eachInTurn, Ledger, makeProgress, refusalText, rowOnce } from '../../shared/ledger.js';
import { openRegularFile, replaceFile } from '../../../durable.js';
import { AlreadyApplied, osUser, PlanRefused } from './plan.js';
import { NOTHING_REFUNDED } from './devolver.js';
import { isIdText, parseId } from '../../parse.js';
import { referenciaKey } from '../../../domain/rules.js';

/** What a plan's `separador` may be. */
const SEPARATORS: readonly unknown[] = [',', ';', '\t'];

export interface BatchRow {
  /** The CSV line the row came from. */
  fila: number;
  cobro_id: number;
  codigo: string;
  monto: string;
  transaccion_id: number | null;
  motivo: string | null;
  /** The request's refunds when the plan was made: a refund not among them is new. */
  antes: number[];
}

export interface BatchPlan {
  version: 1;
  tipo: 'lote';
  origen: string;
  filas: BatchRow[];
  total: string;
  perfil: string;
  modo: 'test' | 'live';
  creado: string;
  preparado_por: string;
  motivo: string | null;
  /** The batch file's separator, which the result file of an apply uses too (plans before it: ","). */
  separador?: Separator;
  digest: string;
  aplicado: null | { at: string; aplicado_por: string; hechas: number; rechazadas: number };
}

/** The batch's columns: `cobro` is an id, a code or a referencia; `monto` an amount or "total". */
const COLUMNS = ['cobro', 'monto', 'transaccion', 'motivo'] as const;

export function digestOf(p: Omit<BatchPlan, 'digest' | 'aplicado'>): string {
  const canonical = JSON.stringify([
    p.version,
    p.tipo,
    p.origen,
    p.filas.map((r) => [
      r.fila,
      r.cobro_id,
      r.codigo,
      r.monto,
      r.transaccion_id,
      r.motivo,
      r.antes,
    ]),
    p.total,
    p.perfil,
    p.modo,
    p.creado,
    p.preparado_por,
    p.motivo,
    // Only where written: plans from before it keep their digest.
    ...(p.separador === undefined ? [] : [p.separador]),
  ]);
  return `sha256:${process.getBuiltinModule('node:crypto').createHash('sha256').update(canonical).digest('hex')}`;
}

/** The batch plan (`tipo: "lote"`) at `path`, or undefined for anything else (readPlan judges that). */
export function peekBatch(path: string): BatchPlan | undefined {
  try {
    // A regular file only: reading a named pipe would wait for a writer forever, and a
    // link is not followed (readPlan refuses both, saying which).
    const { fd } = openRegularFile(path);
    let text: string;
    try {
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
    const p: unknown = JSON.parse(text);
    return typeof p === 'object' && p !== null && (p as { tipo?: unknown }).tipo === 'lote'
      ? (p as BatchPlan)
      : undefined;
  } catch {
    return undefined;
  }
}

interface Left {
  fila: number;
  why: string;
}

interface PrepareOptions {
  lote: string;
  plan: string;
  separador?: unknown;
  motivo: string | null;
}

/**
 * A row of the batch as read, kept small: its cells checked as far as they can be
 * without the service (the request named, the amount, the transaction's id); what
 * each says is judged once the service's lists are read, in the order --dry-run
 * judges a refund (the request first).
 */
interface ReadRow {
  fila: number;
  /** The `cobro` cell as written, or why it names no request. */
  cobro: string;
  refProblem: string | undefined;
  /** The amount, or null for "total". */
  cents: Cents | null;
  transaccion: number | undefined;
  /** Why the amount or the transaction's id cannot be read: said once the request is found. */
  problem: string | undefined;
  motivo: string | null;
}

/** --lote FILE.csv --plan FILE: every row checked, the plan of those that fit written; exit 2 naming those left out. */
export async function prepareBatch(
  ctx: Context,
  o: PrepareOptions,
  writeNew: (path: string, text: string) => void,
): Promise<void> {
  const { io, globals } = ctx;
  const what = `--lote ${printable(o.lote)}`;
  let read: ReadRow[] = [];
  let needTx = false;
  const notices: string[] = [];
  const csv = await readCsvRows(
    o.lote,
    { what: '--lote', separator: parseSeparator(o.separador) },
    (head) => {
      notices.length = 0;
      read = [];
      needTx = false;
      const at = batchColumns(head, what, COLUMNS, ['cobro', 'monto'], (line) =>
        notices.push(line),
      );
      return (r) => {
        const cell = (c: (typeof COLUMNS)[number]) => {
          const i = at[c];
          return i === undefined ? '' : (r.values[i] ?? '');
        };
        const row = readRow(r.line, cell);
        needTx ||= cell('transaccion') !== '';
        read.push(row);
      };
    },
  );
  const encoding = encodingNote(csv, what);
  for (const line of encoding ? [encoding, ...notices] : notices) say(ctx, io.c.yellow(line));
  if (csv.rows === 0) throw new UsageError(`--lote ${printable(o.lote)}: no tiene filas`);

  const resolved = await ctx.resolved();
  const client = await ctx.client();
  const { cobros, devoluciones, txs } = await ctx.spin(
    `revisando ${count(csv.rows, 'fila', 'filas')}…`,
    async () => {
      // Each list read once, keeping only what the rows name: the requests a row's
      // `cobro` can name (by id, code or referencia), then their refunds, and the
      // transactions named. Memory for the batch, not for the merchant's history.
      const wanted = wantedBy(read);
      const field = (x: unknown, k: string) => (x as Record<string, unknown>)[k];
      const [c, t] = await Promise.all([
        client.iterarCobros({}, { keep: (x) => wanted.cobro(x) }),
        needTx
          ? client.iterarTransacciones({}, { keep: (x) => wanted.tx.has(field(x, 'id') as number) })
          : undefined,
      ]);
      const cobros = [...c.data];
      const ids = new Set(cobros.map((x) => x.id));
      const d = await client.iterarDevoluciones({
        keep: (x) => ids.has(field(x, 'cobro_id') as number),
      });
      return { cobros, devoluciones: [...d.data], txs: t ? [...t.data] : [] };
    },
  );
  const { planRefund } = await import('./devolver.js');
  const rows: BatchRow[] = [];
  const left: Left[] = [];
  // Rows of one request share what is left of it: the earlier rows count as refunded.
  const pending = new Map<number, Devolucion[]>();
  // Each list indexed once: a row's lookups cost the same at 10 requests as at a million.
  const index = indexCobros(cobros);
  const txById = new Map(txs.map((t) => [t.id, t]));
  const refundsOf = new Map<number, Devolucion[]>();
  for (const d of devoluciones) {
    const list = refundsOf.get(d.cobro_id);
    if (list) list.push(d);
    else refundsOf.set(d.cobro_id, [d]);
  }
  for (const r of read) {
    try {
      if (r.refProblem !== undefined) throw new UsageError(r.refProblem);
      const ref: CobroRef = cellRef(r.cobro);
      const cobro = pick(index, ref);
      if (r.problem !== undefined) throw new UsageError(r.problem);
      const { transaccion } = r;
      const tx = transaccion === undefined ? undefined : txById.get(transaccion);
      if (transaccion !== undefined && !tx)
        throw new UsageError(`no hay transacción ${transaccion}`);
      const mine = refundsOf.get(cobro.id) ?? [];
      // A row whose request has a row svc cannot take exactly stays out, named; the others go on.
      refuseInexact([cobro, ...mine], `un plan para el cobro ${cobro.id}`);
      const before = pending.get(cobro.id) ?? [];
      const plan = planRefund(
        { ref, amount: r.cents ?? undefined, total: r.cents === null, transaccion },
        cobro,
        [...mine, ...before],
        tx as Transaccion | undefined,
      );
      const monto = formatCents(plan.amount);
      before.push({
        id: 0,
        cobro_id: cobro.id,
        monto,
        tipo: 'parcial',
        estado: cobro.estado,
        created_at: '',
      } as Devolucion);
      pending.set(cobro.id, before);
      rows.push({
        fila: r.fila,
        cobro_id: cobro.id,
        codigo: cobro.codigo,
        monto,
        transaccion_id: transaccion ?? null,
        motivo: r.motivo,
        antes: mine.map((d) => d.id).sort((a, b) => a - b),
      });
    } catch (err) {
      if (!(err instanceof CliError) && !(err instanceof InexactRowError)) throw err;
      left.push({ fila: r.fila, why: err.message });
    }
  }
  read = [];
  const totalCents = sumAmounts(rows.map((r) => r.monto));
  for (const r of rows) say(ctx, `línea ${r.fila}\tcobro ${r.cobro_id}\t${r.monto}\tentra`);
  for (const l of left) say(ctx, io.c.yellow(`línea ${l.fila}\tqueda afuera: ${l.why}`));
  if (rows.length === 0)
    // Each row's reason goes with the error too: svc mcp answers with them.
    throw Object.assign(
      new UsageError(`ninguna fila de ${printable(o.lote)} entra: no se escribió el plan`),
      { afuera: left },
    );
  const body = {
    version: 1 as const,
    tipo: 'lote' as const,
    origen: o.lote,
    filas: rows,
    total: formatCents(totalCents),
    perfil: resolved.profileName.value,
    modo: resolved.mode,
    creado: new Date().toISOString(),
    preparado_por: osUser(ctx.env),
    motivo: o.motivo,
    separador: csv.separator,
  };
  const plan: BatchPlan = { ...body, digest: digestOf(body), aplicado: null };
  writeNew(o.plan, `${JSON.stringify(plan, null, 2)}\n`);
  if (globals.json)
    io.outRaw(
      JSON.stringify({ plan: o.plan, filas: rows.length, total: plan.total, afuera: left }),
    );
  say(
    ctx,
    `plan escrito en ${shown(o.plan)}: ${count(rows.length, 'fila', 'filas')}, ${plan.total} (nada se envió); lo aplica quien corra svc devolver --aplicar ${shown(o.plan)}`,
  );
  if (left.length) {
    throw new CliError(
      `${count(left.length, 'fila quedó', 'filas quedaron')} afuera del plan: ${left.map((l) => `línea ${l.fila}`).join(', ')}`,
      {
        exit: EXIT.usage,
        code: 'rows_left_out',
        hint: 'corregilas en otro CSV y prepará un plan aparte para ellas',
      },
    );
  }
}

/**
 * A `cobro` cell: an id, a code (also read out in groups, "T97F 5DUH MA", and then
 * tried as a referencia when no request has it as its code) or a referencia.
 */
function cellRef(name: string): CobroRef {
  if (isIdText(name)) return parseCobroRef(name, undefined, 'cobro');
  const code = name.replace(/[\s-]+/g, '');
  if (/^[A-Za-z0-9]{10}$/.test(code) && /^[A-Za-z0-9][A-Za-z0-9\s-]*$/.test(name))
    return { kind: 'codigo', codigo: code.toUpperCase(), orReferencia: name };
  return name ? { kind: 'referencia', referencia: name } : parseCobroRef('', undefined);
}

/** A row's cells read as far as they can be without the service (see ReadRow). */
function readRow(fila: number, cell: (c: (typeof COLUMNS)[number]) => string): ReadRow {
  const cobro = cell('cobro');
  const row: ReadRow = {
    fila,
    cobro,
    refProblem: undefined,
    cents: null,
    transaccion: undefined,
    problem: undefined,
    motivo: cell('motivo') || null,
  };
  try {
    cellRef(cobro);
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    row.refProblem = err.message;
    return row;
  }
  try {
    const montoText = cell('monto');
    if (montoText.toLowerCase() !== 'total')
      row.cents = cellAmount(montoText, ' (o "total": todo lo que queda)');
    if (cell('transaccion')) row.transaccion = parseId(cell('transaccion'), 'transaccion');
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    row.problem = err.message;
  }
  return row;
}

/**
 * What the rows can name, as `pick` looks it up: a request is wanted when its id,
 * code (upper case), referencia's key or exact referencia is one a row names; a
 * transaction when a row names its id. Checked on each item as it arrives (any shape).
 */
function wantedBy(rows: readonly ReadRow[]): { cobro: (x: unknown) => boolean; tx: Set<number> } {
  const ids = new Set<number>();
  const codigos = new Set<string>();
  const keys = new Set<string>();
  const exact = new Set<string>();
  const tx = new Set<number>();
  for (const r of rows) {
    if (r.transaccion !== undefined) tx.add(r.transaccion);
    if (r.refProblem !== undefined) continue;
    let ref: CobroRef;
    try {
      ref = cellRef(r.cobro);
    } catch {
      continue;
    }
    if (ref.kind === 'id') ids.add(ref.id);
    else if (ref.kind === 'codigo') {
      codigos.add(ref.codigo);
      if (ref.orReferencia !== undefined) exact.add(ref.orReferencia);
    } else keys.add(referenciaKey(ref.referencia));
  }
  return {
    tx,
    cobro: (x) => {
      if (typeof x !== 'object' || x === null) return true;
      const c = x as { id?: unknown; codigo?: unknown; referencia?: unknown };
      if (typeof c.id === 'number' && ids.has(c.id)) return true;
      if (typeof c.codigo === 'string' && codigos.has(c.codigo.toUpperCase())) return true;
      if (typeof c.referencia !== 'string') return false;
      return exact.has(c.referencia) || keys.has(referenciaKey(c.referencia));
    },
  };
}

/** The requests by id, by code (upper case), by referencia's key and by exact referencia. */
interface CobroIndex {
  id: Map<number, Cobro[]>;
  codigo: Map<string, Cobro[]>;
  referencia: Map<string, Cobro[]>;
  exact: Set<string>;
}

function indexCobros(cobros: Iterable<Cobro>): CobroIndex {
  const index: CobroIndex = {
    id: new Map(),
    codigo: new Map(),
    referencia: new Map(),
    exact: new Set(),
  };
  const add = <K>(map: Map<K, Cobro[]>, key: K, c: Cobro) => {
    const list = map.get(key);
    if (list) list.push(c);
    else map.set(key, [c]);
  };
  for (const c of cobros) {
    add(index.id, c.id, c);
    add(index.codigo, c.codigo.toUpperCase(), c);
    if (c.referencia !== null) {
      add(index.referencia, referenciaKey(c.referencia), c);
      index.exact.add(c.referencia);
    }
  }
  return index;
}

function pick(index: CobroIndex, ref: CobroRef): Cobro {
  const asReferencia = ref.kind === 'codigo' ? ref.orReferencia : undefined;
  if (
    asReferencia !== undefined &&
    !index.codigo.has((ref as { codigo: string }).codigo) &&
    index.exact.has(asReferencia)
  )
    return pick(index, { kind: 'referencia', referencia: asReferencia });
  const found =
    (ref.kind === 'id'
      ? index.id.get(ref.id)
      : ref.kind === 'codigo'
        ? index.codigo.get(ref.codigo)
        : index.referencia.get(referenciaKey(ref.referencia))) ?? [];
  if (found.length === 1) return found[0]!;
  const what =
    ref.kind === 'id'
      ? `id ${ref.id}`
      : ref.kind === 'codigo'
        ? `código ${ref.codigo}`
        : `referencia "${printable(ref.referencia)}"`;
  throw new UsageError(
    found.length === 0
      ? `no hay ningún cobro con ${what}`
      : `${found.length} cobros tienen ${what}: nombralo por su id`,
  );
}

/** Reads and checks a batch plan (digest). */
function checkBatch(path: string, p: BatchPlan): BatchPlan {
  const shaped =
    p.version === 1 &&
    Array.isArray(p.filas) &&
    p.filas.every(
      (r) =>
        Number.isSafeInteger(r?.cobro_id) &&
        typeof r.monto === 'string' &&
        isAmount(r.monto) &&
        Array.isArray(r.antes),
    ) &&
    (p.separador === undefined || SEPARATORS.includes(p.separador)) &&
    typeof p.perfil === 'string' &&
    (p.modo === 'test' || p.modo === 'live') &&
    typeof p.total === 'string';
  if (!shaped)
    throw new UsageError(
      `--aplicar "${printable(path)}": no es un plan de devoluciones en lote de svc`,
    );
  const { digest, aplicado: _a, ...body } = p;
  if (digestOf(body) !== digest)
    throw new PlanRefused(
      `el plan ${printable(path)} fue modificado después de escrito (su digest no coincide): no se aplica`,
    );
  return p;
}

type Outcome =
  | { fila: number; estado: 'hecha'; devolucion_id: number; encontrada?: true }
  | { fila: number; estado: 'rechazada'; error: string };
const isOutcome = (e: Record<string, unknown>) => e.estado === 'hecha' || e.estado === 'rechazada';

/** The refunds the ledger already gave to a row: a refund found on the service is another row's only if not among them. */
function claimed(ledger: Ledger<Outcome>): Set<number> {
  return new Set(
    [...ledger.outcomes.values()].flatMap((o) => (o.estado === 'hecha' ? [o.devolucion_id] : [])),
  );
}

interface RowResult {
  fila: number;
  cobro_id: number;
  monto: string;
  /** encontrada: a refund made since the plan, not by this ledger; dudosa: not sent, for a person to decide. */
  estado: 'hecha' | 'ya_hecha' | 'encontrada' | 'rechazada' | 'incierta' | 'dudosa';
  devolucion_id: number | null;
  error: string | null;
}

interface ApplyOptions {
  resultado?: unknown;
  paralelo?: unknown;
  dryRun?: boolean;
}

/** --aplicar on a batch plan: locked, each row once, the ledger beside it. */
export async function applyBatch(
  ctx: Context,
  path: string,
  raw: BatchPlan,
  o: ApplyOptions,
): Promise<void> {
  const paralelo = o.paralelo === undefined ? 1 : parseId(o.paralelo, '--paralelo');
  if (paralelo > 4)
    throw new UsageError('--paralelo: hasta 4 a la vez (el servicio no es para ráfagas)');
  const resultado = o.resultado === undefined ? undefined : String(o.resultado);
  checkBatch(path, raw);
  const lock = await lockFile(path, {
    what: `el plan ${printable(path)}`,
    kind: 'plan',
    digest: raw.digest,
    onWait: (h) =>
      say(
        ctx,
        ctx.io.c.dim(
          `otro proceso${h ? ` (pid ${h.pid})` : ''} está aplicando el plan ${shown(path)}: esperando a que termine…`,
        ),
      ),
  });
  try {
    // Read again under the lock: an apply that waited sees what the one before it wrote.
    const plan = checkBatch(path, JSON.parse(readFileSync(path, 'utf8')) as BatchPlan);
    await applyLocked(ctx, path, plan, paralelo, resultado, o.dryRun === true);
  } finally {
    lock.release();
  }
}

async function applyLocked(
  ctx: Context,
  path: string,
  plan: BatchPlan,
  paralelo: number,
  resultado: string | undefined,
  dryRun: boolean,
): Promise<void> {
  const { io, globals } = ctx;
  if (plan.aplicado) {
    throw new AlreadyApplied(
      `el plan ya se aplicó (${plan.aplicado.at}, por ${shown(plan.aplicado.aplicado_por)}): ${count(plan.aplicado.hechas, 'devolución hecha', 'devoluciones hechas')}, ${plan.aplicado.rechazadas} rechazadas; no se devuelve dos veces`,
      0,
      `el registro de cada fila: ${path}.registro.jsonl`,
    );
  }
  const resolved = await ctx.resolved();
  if (plan.modo !== resolved.mode)
    throw new PlanRefused(
      `el plan es para modo ${plan.modo} y este perfil está en modo ${resolved.mode}: no se aplica`,
    );
  if (plan.perfil !== resolved.profileName.value)
    throw new PlanRefused(
      `el plan se hizo con el perfil "${printable(plan.perfil)}" y estás usando "${printable(resolved.profileName.value)}": no se aplica`,
    );
  const ledger = new Ledger<Outcome>(`${path}.registro.jsonl`, isOutcome);
  try {
    const pending = plan.filas.filter((r) => !ledger.outcomes.has(r.fila));
    // The live banner comes first, before anything about the batch (the client prints it).
    const client = await ctx.client();
    say(
      ctx,
      `${io.c.bold('lote:')} ${count(plan.filas.length, 'fila', 'filas')}, ${plan.total}; preparado por ${shown(plan.preparado_por)}${plan.motivo ? ` (${shown(plan.motivo)})` : ''}`,
    );
    if (pending.length < plan.filas.length)
      say(
        ctx,
        `${count(plan.filas.length - pending.length, 'fila ya estaba hecha', 'filas ya estaban hechas')} (registro ${shown(ledger.path)}): se saltean`,
      );
    // The service first: what it holds since the plan is never sent again, whatever the ledger says.
    const verdicts = pending.length
      ? judgeRows(
          pending,
          (
            await ctx.spin('revisando las devoluciones en el servicio…', () =>
              client.listarDevoluciones(),
            )
          ).data.data,
          claimed(ledger),
        )
      : new Map<number, Verdict>();
    const todo = pending.filter((r) => !verdicts.has(r.fila));
    for (const r of pending) {
      const v = verdicts.get(r.fila);
      if (v && 'doubt' in v) io.err(io.c.yellow(`línea ${r.fila}: ${v.doubt}`));
      else if (v && !ledger.intents.has(r.fila))
        io.err(
          io.c.yellow(
            `línea ${r.fila}: el cobro ${r.cobro_id} ya tiene una devolución de ${shown(v.found.monto)} hecha después del plan (devolución ${v.found.id}, ${shown(v.found.created_at)}): no se envía otra`,
          ),
        );
    }
    const asks = todo.length > 0 && !globals.yes && io.canPrompt;
    if ((asks || dryRun) && todo.length && !globals.json)
      await showRows(ctx, client, todo, {
        all: dryRun,
        path,
      });
    if (dryRun) {
      say(
        ctx,
        io.c.dim(
          `prueba (--dry-run): quedan ${count(todo.length, 'fila', 'filas')} por aplicar; no se envió nada`,
        ),
      );
      return;
    }
    const live = resolved.mode === 'live';
    const totalLeft = formatCents(sumAmounts(todo.map((r) => r.monto)));
    if (todo.length && !globals.yes) {
      if (!io.canPrompt) {
        if (live) await ctx.guardChange(`aplicar el lote ${shown(path)}`);
      } else if (live) {
        await ctx.confirmTyped(
          `MODO LIVE: para devolver ${count(todo.length, 'fila', 'filas')} por ${totalLeft} escribí el total (${totalLeft}):`,
          totalLeft,
          NOTHING_REFUNDED,
        );
      } else {
        await ctx.confirm(
          `¿Devolver ${count(todo.length, 'fila', 'filas')} por ${totalLeft}?`,
          NOTHING_REFUNDED,
        );
      }
    }
    const results: RowResult[] = [];
    for (const r of plan.filas) {
      const done = ledger.outcomes.get(r.fila);
      if (done) results.push(resultOf(r, done, true));
    }
    for (const r of pending) {
      const v = verdicts.get(r.fila);
      if (!v) continue;
      if ('doubt' in v) {
        results.push({ ...base(r), estado: 'dudosa', error: v.doubt });
        continue;
      }
      // A row with an intent and no outcome (killed mid-POST) owns what it finds; any other found it made by someone else.
      const own = ledger.intents.has(r.fila);
      const o: Outcome = {
        fila: r.fila,
        estado: 'hecha',
        devolucion_id: v.found.id,
        ...(own ? {} : { encontrada: true as const }),
      };
      ledger.outcome(o);
      results.push(resultOf(r, o, false));
    }
    const progress = makeProgress(ctx, todo.length, sumAmounts(todo.map((r) => r.monto)));
    for (const res of results) emit(ctx, res);
    const earlier = new Set(
      plan.filas
        .filter((r) => ledger.outcomes.has(r.fila) && !verdicts.has(r.fila))
        .map((r) => r.fila),
    );
    // Ctrl-C from here on lets the row in flight finish, then says what was done (interrupted()).
    const stop = todo.length ? ctx.holdSignals() : undefined;
    await eachInTurn(todo, paralelo, async (r) => {
      if (stop?.aborted) return;
      const res = await applyRow(client, ledger, r);
      results.push(res);
      emit(ctx, res);
      progress({ monto: res.monto, counted: res.estado === 'hecha' });
    });
    progress(undefined);
    results.sort((a, b) => a.fila - b.fila);
    showDone(ctx, results);
    if (stop?.aborted) interrupted(ctx, path, plan, results);
    const hechas = results.filter((x) =>
      ['hecha', 'ya_hecha', 'encontrada'].includes(x.estado),
    ).length;
    const encontradas = results.filter((x) => x.estado === 'encontrada').length;
    const rechazadas = results.filter((x) => x.estado === 'rechazada').length;
    const inciertas = results.filter((x) => x.estado === 'incierta');
    const dudosas = results.filter((x) => x.estado === 'dudosa');
    if (resultado) replaceFile(resultado, resultCsv(results, plan.separador ?? ','));
    if (inciertas.length === 0 && dudosas.length === 0) {
      replaceFile(
        path,
        `${JSON.stringify({ ...plan, aplicado: { at: new Date().toISOString(), aplicado_por: osUser(ctx.env), hechas, rechazadas } }, null, 2)}\n`,
      );
    }
    // The figures of this run: rows an earlier run finished are said apart.
    const now = results.filter((x) => !earlier.has(x.fila));
    const madeNow = now.filter((x) => x.estado === 'hecha' || x.estado === 'encontrada').length;
    const refusedNow = now.filter((x) => x.estado === 'rechazada').length;
    say(
      ctx,
      `${count(madeNow, 'devolución hecha', 'devoluciones hechas')}${encontradas ? ` (${encontradas > 1 ? `${encontradas} ya estaban en el servicio: no se enviaron` : '1 ya estaba en el servicio: no se envió'})` : ''}, ${refusedNow} rechazadas${inciertas.length ? `, ${inciertas.length} sin saber` : ''}${dudosas.length ? `, ${dudosas.length} sin enviar por dudas` : ''}${earlier.size ? `; ${count(earlier.size, 'fila ya estaba hecha', 'filas ya estaban hechas')} de antes` : ''}${resultado ? `; resultado en ${shown(resultado)}` : ''}`,
    );
    if (dudosas.length) {
      throw new CliError(
        `${count(dudosas.length, 'fila no se envió', 'filas no se enviaron')} porque el servicio no deja saber si ya se hicieron (${dudosas.map((x) => `línea ${x.fila}`).join(', ')}): decidilo mirando el cobro`,
        {
          exit: EXIT.refused,
          code: 'rows_in_doubt',
          hint: `${[...new Set(dudosas.map((x) => `svc caso ${x.cobro_id}`))].join('; ')}; lo que falte, en un plan nuevo`,
        },
      );
    }
    if (inciertas.length) {
      throw new CliError(
        `${count(inciertas.length, 'fila quedó', 'filas quedaron')} sin saber si se devolvió (${inciertas.map((x) => `línea ${x.fila}`).join(', ')}): corré de nuevo svc devolver --aplicar ${path}, que primero las busca en el servicio`,
        {
          exit: EXIT.network,
          code: 'outcome_unknown',
        },
      );
    }
    if (rechazadas)
      throw new CliError(
        `el servicio rechazó ${count(rechazadas, 'fila', 'filas')}: ${results
          .filter((x) => x.estado === 'rechazada')
          .map((x) => `línea ${x.fila}`)
          .join(', ')}`,
        { exit: EXIT.refused, code: 'rows_refused' },
      );
  } finally {
    ledger.close();
  }
}

/** What the service says of a row before it is sent: a refund that is its own or may be, or a doubt. */
type Verdict = { found: Devolucion } | { doubt: string };

/**
 * The rows of `rows` the service already answers for: per request and amount, the
 * refunds made since the plan (not in `antes`) and not claimed by this ledger. As many
 * as the rows or more: each row gets one, in order. Fewer (but some): which rows they
 * were cannot be told, and every row of that request and amount is a doubt.
 */
export function judgeRows(
  rows: BatchRow[],
  all: Devolucion[],
  taken: Set<number>,
): Map<number, Verdict> {
  const groups = new Map<string, BatchRow[]>();
  for (const r of rows) {
    const key = `${r.cobro_id}:${parseAmount(r.monto)}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const verdicts = new Map<number, Verdict>();
  for (const group of groups.values()) {
    const first = group[0]!;
    // A refund of the request svc cannot take exactly may be this row's: none is sent.
    const odd = all.find((d) => d.cobro_id === first.cobro_id && markOf(d));
    if (odd) {
      const doubt = `${rowName(odd)} (del cobro ${first.cobro_id}) tiene ${markOf(odd)!.why}: svc no puede saber si es la de ${group.length > 1 ? 'estas filas' : 'esta fila'} y no envía ${group.length > 1 ? 'ninguna' : 'otra'}`;
      for (const r of group) verdicts.set(r.fila, { doubt });
      continue;
    }
    const since = all
      .filter(
        (d) =>
          d.cobro_id === first.cobro_id &&
          !group.some((r) => r.antes.includes(d.id)) &&
          !taken.has(d.id) &&
          parseAmount(d.monto) === parseAmount(first.monto),
      )
      .sort((a, b) => a.id - b.id);
    if (since.length === 0) continue;
    if (since.length >= group.length) {
      group.forEach((r, i) => verdicts.set(r.fila, { found: since[i]! }));
      continue;
    }
    const doubt = `el cobro ${first.cobro_id} tiene ${count(since.length, 'devolución', 'devoluciones')} de ${first.monto} hecha${since.length > 1 ? 's' : ''} después del plan (${since.map((d) => `devolución ${d.id}`).join(', ')}) para ${group.length} filas de ese monto (${group.map((r) => `línea ${r.fila}`).join(', ')}): no se sabe cuáles se hicieron y no se envía ninguna`;
    for (const r of group) verdicts.set(r.fila, { doubt });
  }
  return verdicts;
}

/** The refund of row `r` made since the plan and not claimed by another row, if the service has one. */
async function findMade(
  client: Client,
  ledger: Ledger<Outcome>,
  r: BatchRow,
): Promise<Devolucion | undefined> {
  const all = (await client.listarDevoluciones()).data.data;
  refuseInexact(
    all.filter((d) => d.cobro_id === r.cobro_id),
    `si la devolución de la línea ${r.fila} se hizo`,
  );
  const taken = claimed(ledger);
  return all.find(
    (d) =>
      d.cobro_id === r.cobro_id &&
      !r.antes.includes(d.id) &&
      !taken.has(d.id) &&
      parseAmount(d.monto) === parseAmount(r.monto),
  );
}

/** One row: looked for first when it has an intent, then sent once; a reply lost on the way is looked for again. */
async function applyRow(client: Client, ledger: Ledger<Outcome>, r: BatchRow): Promise<RowResult> {
  const made = (d: { id: number }): Outcome => ({
    fila: r.fila,
    estado: 'hecha',
    devolucion_id: d.id,
  });
  const t = await rowOnce(ledger, r.fila, {
    find: async () => {
      const d = await findMade(client, ledger, r);
      return d && made(d);
    },
    send: async () =>
      made(
        (
          await client.devolver(
            r.cobro_id,
            r.transaccion_id === null
              ? { monto: r.monto }
              : { monto: r.monto, transaccion_id: r.transaccion_id },
          )
        ).data.data,
      ),
    refused: (e): Outcome => ({ fila: r.fila, estado: 'rechazada', error: refusalText(e) }),
  });
  return 'outcome' in t
    ? resultOf(r, t.outcome, false)
    : { ...base(r), estado: 'incierta', error: t.unknown };
}

const base = (r: BatchRow) => ({
  fila: r.fila,
  cobro_id: r.cobro_id,
  monto: r.monto,
  devolucion_id: null,
  error: null,
});

function resultOf(r: BatchRow, o: Outcome, before: boolean): RowResult {
  return o.estado === 'hecha'
    ? {
        ...base(r),
        estado: o.encontrada ? 'encontrada' : before ? 'ya_hecha' : 'hecha',
        devolucion_id: o.devolucion_id,
      }
    : { ...base(r), estado: 'rechazada', error: o.error };
}

function emit(ctx: Context, res: RowResult): void {
  if (ctx.globals.json) ctx.io.outRaw(JSON.stringify(res));
  else if (!ctx.io.stderrTTY)
    ctx.io.err(
      `línea ${res.fila}\tcobro ${res.cobro_id}\t${res.monto}\t${res.estado}${res.devolucion_id ? `\tdevolución ${res.devolucion_id}` : ''}${res.error ? `\t${printable(res.error, 200)}` : ''}`,
    );
}

/** The result file, with the batch file's separator: the spreadsheet that saved it opens it the same way. */
function resultCsv(results: RowResult[], separator: Separator): string {
  const lines = [['fila', 'cobro', 'monto', 'estado', 'devolucion_id', 'error'].join(separator)];
  for (const r of results)
    lines.push(
      [r.fila, r.cobro_id, r.monto, r.estado, r.devolucion_id ?? '', r.error ?? '']
        .map((v) => csvField(v, separator))
        .join(separator),
    );
  return `${lines.join('\r\n')}\r\n`;
}

function say(ctx: Context, line: string): void {
  if (!ctx.globals.json) ctx.io.err(line);
}

/** Rows shown before asking; --dry-run shows them all. */
const SHOWN_ROWS = 40;

/**
 * The rows about to be refunded, before the question: request, the concept the customer
 * saw, amount and what is left of the request after the row (earlier rows of the same
 * request counted). What is left is read from the service now.
 */
async function showRows(
  ctx: Context,
  client: Client,
  todo: BatchRow[],
  o: { all: boolean; path: string },
): Promise<void> {
  const rows = o.all ? todo : todo.slice(0, SHOWN_ROWS);
  const ids = [...new Set(rows.map((r) => r.cobro_id))];
  const [cobros, refunded] = await ctx.spin('leyendo los cobros del lote…', async () => {
    const found = new Map<number, Cobro>();
    await eachInTurn(ids, 4, async (id) => {
      found.set(id, (await client.verCobro(id)).data.data as Cobro);
    });
    const sums = new Map<number, bigint>();
    for (const d of (await client.listarDevoluciones()).data.data) {
      if (!found.has(d.cobro_id)) continue;
      refuseInexact([d], `lo que queda del cobro ${d.cobro_id}`);
      sums.set(d.cobro_id, (sums.get(d.cobro_id) ?? 0n) + parseAmount(d.monto));
    }
    return [found, sums] as const;
  });
  const left = new Map<number, bigint>();
  const cells = rows.map((r) => {
    const c = cobros.get(r.cobro_id);
    const before =
      left.get(r.cobro_id) ??
      (c ? parseAmount(c.monto_cobrado) - (refunded.get(r.cobro_id) ?? 0n) : 0n);
    const after = before - parseAmount(r.monto);
    left.set(r.cobro_id, after);
    return [
      String(r.fila),
      String(r.cobro_id),
      shown(c?.concepto ?? '?'),
      r.monto,
      formatCents(after < 0n ? 0n : after),
    ];
  });
  for (const line of rowsTable(ctx, ['LÍNEA', 'COBRO', 'CONCEPTO', 'MONTO', 'QUEDA'], cells, 2))
    say(ctx, line);
  if (rows.length < todo.length)
    say(
      ctx,
      ctx.io.c.dim(
        `y ${count(todo.length - rows.length, 'fila más', 'filas más')}: svc devolver --aplicar ${shown(o.path)} --dry-run las muestra todas`,
      ),
    );
}

/** After applying, on a terminal (rows were a progress line): what became of each row. */
function showDone(ctx: Context, results: RowResult[]): void {
  if (ctx.globals.json || !ctx.io.stderrTTY || results.length === 0) return;
  const words: Record<RowResult['estado'], string> = {
    hecha: 'hecha',
    ya_hecha: 'ya estaba hecha',
    encontrada: 'ya hecha por otro',
    rechazada: 'rechazada',
    incierta: 'sin saber',
    dudosa: 'sin enviar: revisala',
  };
  const cells = results.map((r) => [
    String(r.fila),
    String(r.cobro_id),
    r.monto,
    words[r.estado],
    r.devolucion_id === null ? (r.error ? shown(r.error) : '-') : `devolución ${r.devolucion_id}`,
  ]);
  for (const line of rowsTable(ctx, ['LÍNEA', 'COBRO', 'MONTO', 'ESTADO', 'DETALLE'], cells, 4))
    say(ctx, line);
}

/**
 * Lines of a small table on stderr, fitted to the terminal: column `free` is shortened
 * with "…"; amounts (right-aligned, the last columns) and ids are never cut.
 */
function rowsTable(ctx: Context, head: string[], cells: string[][], free: number): string[] {
  const columns = ctx.io.stderrTTY ? ((ctx.io.stderr as { columns?: number }).columns ?? 0) : 0;
  const sizes = head.map((h, i) => ({
    header: displayWidth(h),
    natural: cells.reduce((w, r) => Math.max(w, displayWidth(r[i]!)), displayWidth(h)),
    shrink: i === free,
  }));
  const widths = columns > 0 ? fitColumns(sizes, columns) : sizes.map((s) => s.natural);
  const amount = (h: string) => h === 'MONTO' || h === 'QUEDA';
  const line = (r: string[]) =>
    r
      .map((v, i) => {
        const w = widths[i]!;
        const text = fitWidth(v, w);
        const pad = ' '.repeat(Math.max(0, w - displayWidth(text)));
        return amount(head[i]!) ? pad + text : text + pad;
      })
      .join('  ')
      .trimEnd();
  return [ctx.io.c.bold(line(head)), ...cells.map(line)];
}

/** Ctrl-C during the batch: the rows in flight finished; what was done, what was not, and how to go on. Exit 130. */
function interrupted(ctx: Context, path: string, plan: BatchPlan, results: RowResult[]): never {
  const done = results.filter((x) => x.estado === 'hecha').length;
  const before = results.filter((x) => x.estado === 'ya_hecha').length;
  const seen = new Set(results.map((x) => x.fila));
  const notYet = plan.filas.filter((r) => !seen.has(r.fila)).length;
  const unsure = results.filter((x) => x.estado === 'incierta').length;
  throw new CancelledError(
    `interrumpido: ${count(done, 'devolución hecha', 'devoluciones hechas')} ahora` +
      (before ? `, ${before} de antes` : '') +
      `, ${count(notYet, 'fila', 'filas')} sin devolver` +
      (unsure ? `, ${unsure} sin saber` : '') +
      `; el mismo comando sigue donde quedó: svc devolver --aplicar ${path}`,
  );
}
