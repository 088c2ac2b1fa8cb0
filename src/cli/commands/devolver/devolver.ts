// svc devolver <id> (--monto M | --total) [--transaccion T]: POST /v1/cobros/{id}/devoluciones,
// safely (docs/recorrido.md, "Refunds, safely"). Before the POST: read the request and its refunds, show what is
// left, refuse locally what cannot fit, confirm (typing the amount in live mode). The POST
// is sent exactly once; a failure after sending is reported as an unknown outcome.
import type { Client } from '../../../api/client.js';
import { refuseInexact } from '../../../api/exact.js';
import type { Cobro, Devolucion, EstadoCobro, Transaccion } from '../../../api/schemas.js';
import { formatCents, parseAmount, sumAmounts, type Cents } from '../../../domain/money.js';
import { colorState, printJson, printRecord } from '../../../output/format.js';
import { pairsOf } from '../../../output/resources.js';
import type { Context } from '../../context.js';
import { OutcomeUnknownError, UsageError } from '../../../errors.js';
import {
  outcomeUnknown,
  refundCheck,
  unknownOutcomeReason,
  type CarriedFlags,
} from '../../outcome.js';
import type { OptionsOf } from '../../define.js';
import { parseId, parseMonto, printable } from '../../parse.js';
import { existsSync } from 'node:fs';
import { createFile, replaceFile } from '../../../durable.js';
import {
  AlreadyApplied,
  makePlan,
  osUser,
  planText,
  PlanRefused,
  readPlan,
  type Plan,
} from './plan.js';
import { lockFile } from '../../../lock.js';
import { CONTROL_CHARS, REFUNDABLE as RULES_REFUNDABLE } from '../../../domain/rules.js';
import {
  describeRef,
  findCobro,
  parseCobroRef,
  sayMatches,
  type CobroRef,
} from '../../shared/find-cobro.js';
import { withNotFoundHint } from '../../shared/show-record.js';
import type { devolverOptions } from './index.js';
import { count, displayWidth, fitWidth, shown } from '../../../text.js';
import { serviceTime } from '../../../domain/dates.js';
import { ApiError } from '../../../api/service-errors.js';
import {
  DoubtBook,
  doubtDir,
  keepDoubt,
  type Found,
  type RefundDoubt,
} from '../../shared/in-doubt.js';
import { ESTADOS_COBRO, ESTADOS_TRANSACCION, OPEN_FIELDS, isKnown } from '../../../api/enums.js';

/** The transactions of the request named, where a --transaccion id is found. */
const TX_HINT = (ref: CobroRef) =>
  `revisá --transaccion; \`svc transacciones listar${ref.kind === 'id' ? ` --cobro ${ref.id}` : ref.kind === 'codigo' ? ` --cobro ${ref.codigo}` : ''}\` muestra las del cobro`;
const TX_LEFT_NOTE = (id: number) =>
  `lo que queda por devolver de la transacción ${id} lo controla el servicio: svc ve su monto, no cuánto se devolvió de ella`;

type Options = OptionsOf<typeof devolverOptions>;

export const REFUNDABLE: readonly EstadoCobro[] = RULES_REFUNDABLE;

export interface RefundRequest {
  /** The request, by id, code or reference (shared/find-cobro.ts). */
  ref: CobroRef;
  /** Cents asked with --monto, or undefined with --total. */
  amount?: Cents;
  total: boolean;
  transaccion?: number;
}

/**
 * Flags -> request, every problem a UsageError (exit 2) before any request. Neither
 * --monto nor --total is asked for on a terminal (`canAsk`), once what is left is shown.
 */
export function parseRefundFlags(args: string[], opts: Options, canAsk = false): RefundRequest {
  const ref = parseCobroRef(args[0], opts.referencia, 'svc devolver');
  const total = opts.total === true;
  const hasMonto = opts.monto !== undefined;
  if (total && hasMonto) throw new UsageError('usá --monto o --total, no los dos');
  if (!total && !hasMonto && !canAsk) {
    throw new UsageError(
      'falta cuánto devolver: --monto <monto> o --total',
      `ej. svc devolver ${args[0] ?? '42'} --monto 500.00`,
    );
  }
  const amount = hasMonto ? parseMonto(opts.monto, '--monto', '500 o 500.50') : undefined;
  const transaccion =
    opts.transaccion === undefined ? undefined : parseId(opts.transaccion, '--transaccion');
  return { ref, amount, total, transaccion };
}

export interface RefundPlan {
  cobrado: Cents;
  refunded: Cents;
  refunds: number;
  left: Cents;
  amount: Cents;
}

/** What is left to refund and whether the amount fits; UsageError (exit 2) when it does not. */
export function planRefund(
  req: RefundRequest,
  cobro: Cobro,
  devoluciones: Devolucion[],
  tx?: Transaccion,
): RefundPlan {
  const mine = devoluciones.filter((d) => d.cobro_id === cobro.id);
  const cobrado = parseAmount(cobro.monto_cobrado);
  const refunded = sumAmounts(mine.map((d) => d.monto));
  const left = cobrado - refunded;
  // A state svc does not know: whether it admits a refund is not svc's to guess.
  if (!isKnown(cobro.estado, ESTADOS_COBRO)) {
    throw new UsageError(
      `el cobro ${cobro.id} está "${shown(cobro.estado, 40)}", un estado que svc no conoce: no sabe si admite devoluciones y no envía nada sobre una suposición`,
      `mirá el cobro con svc caso ${cobro.id}; si el servicio lo admite, lo dice su respuesta a svc api POST /v1/cobros/${cobro.id}/devoluciones`,
    );
  }
  if (!REFUNDABLE.includes(cobro.estado)) {
    const why =
      cobro.estado === 'DEVUELTA'
        ? ' (ya se devolvió todo)'
        : cobro.estado === 'CANCELADO'
          ? ' (no se cobró)'
          : ' (todavía no se cobró)';
    throw new UsageError(
      `el cobro ${cobro.id} está ${cobro.estado}${why}: no admite devoluciones; solo ${REFUNDABLE.join(', ')}`,
      `mirá el cobro con svc cobro ver ${cobro.id}`,
    );
  }
  if (left <= 0n)
    throw new UsageError(
      `al cobro ${cobro.id} no le queda nada por devolver (cobrado ${formatCents(cobrado)}, devuelto ${formatCents(refunded)})`,
    );
  const amount = req.total ? left : req.amount!;
  if (amount > left) {
    throw new UsageError(
      `--monto ${formatCents(amount)} supera lo que queda por devolver del cobro ${cobro.id}: ${formatCents(left)}`,
      `para devolver todo lo que queda: svc devolver ${cobro.id} --total`,
    );
  }
  if (tx) {
    if (tx.cobro_id !== cobro.id)
      throw new UsageError(
        `la transacción ${tx.id} es del cobro ${tx.cobro_id}, no del ${cobro.id}`,
      );
    if (tx.estado !== 'ACREDITADO') {
      const unknown = isKnown(tx.estado, ESTADOS_TRANSACCION)
        ? ''
        : ', un estado que svc no conoce';
      throw new UsageError(
        `la transacción ${tx.id} está "${shown(tx.estado, 40)}"${unknown}: solo se devuelve sobre transacciones ACREDITADO`,
      );
    }
    if (amount > parseAmount(tx.monto)) {
      throw new UsageError(
        `${formatCents(amount)} supera el monto de la transacción ${tx.id} (${tx.monto})`,
      );
    }
  }
  return { cobrado, refunded, refunds: mine.length, left, amount };
}

export function checkCommands(id: number, flags: CarriedFlags = {}): string {
  return refundCheck(id, flags);
}

export async function run(ctx: Context, args: string[], opts: Options): Promise<void> {
  if (args[0] === 'planes') return (await import('./planes.js')).listPlans(ctx, args.slice(1));
  if (args.length > 1)
    throw new UsageError(`demasiados argumentos: svc devolver toma un cobro (id o código)`);
  if (opts.aplicar !== undefined) return applyPlan(ctx, args, opts);
  if (opts.lote !== undefined) {
    if (
      args.length ||
      opts.monto !== undefined ||
      opts.total ||
      opts.transaccion !== undefined ||
      opts.referencia !== undefined
    ) {
      throw new UsageError(
        '--lote toma los cobros y montos del CSV: sin id, --monto, --total, --transaccion ni --referencia',
      );
    }
    if (opts.plan === undefined)
      throw new UsageError(
        '--lote va con --plan ARCHIVO: un lote se prepara y después se aplica con --aplicar',
        'ej. svc devolver --lote devoluciones.csv --plan lote.json',
      );
    const planPath = newPlanPath(opts.plan);
    const { prepareBatch } = await import('./lote.js');
    return prepareBatch(
      ctx,
      {
        lote: String(opts.lote),
        plan: planPath,
        separador: opts.separador,
        motivo: parseMotivo(opts.motivo, true),
      },
      writeNewText,
    );
  }
  if (opts.separador !== undefined || opts.resultado !== undefined || opts.paralelo !== undefined) {
    throw new UsageError(
      '--separador va con --lote; --resultado y --paralelo, con --aplicar de un lote',
    );
  }
  const { io, globals } = ctx;
  const req = parseRefundFlags(args, opts, io.canPrompt);
  const planFile = opts.plan === undefined ? undefined : newPlanPath(opts.plan);
  const motivo = parseMotivo(opts.motivo, planFile !== undefined);
  const client = await ctx.client();
  const resolved = await ctx.resolved();
  const live = resolved.mode === 'live';
  const sends = opts.dryRun !== true && planFile === undefined;
  // Live without a terminal and without --yes: refused before reading anything (a dry run or a plan sends nothing).
  if (live && sends && !globals.yes && !io.canPrompt)
    await ctx.guardChange(`devolver dinero ${describeRef(req.ref).replace(/^el /, 'del ')}`);

  const { cobro, devoluciones, tx } = await ctx
    .spin(`leyendo ${describeRef(req.ref)}…`, async () => {
      // The refunds of this request only, kept as the list arrives: an id is known at
      // once (the reads go together); a code or reference is looked up first.
      const ref = req.ref;
      const known = ref.kind === 'id' ? ref.id : undefined;
      const [c, d, t] = await Promise.all([
        findCobro(client, ref),
        known === undefined ? undefined : refundsOf(client, known),
        req.transaccion === undefined
          ? undefined
          : withNotFoundHint(client.verTransaccion(req.transaccion), TX_HINT(ref)),
      ]);
      return { cobro: c, devoluciones: d ?? (await refundsOf(client, c.id)), tx: t?.data.data };
    })
    .catch((err: unknown) => {
      throw sayMatches(ctx, err);
    });

  showSummary(ctx, cobro, devoluciones);
  // A refund of this request left in doubt by a run before: what became of it is said
  // first, and one already made is not made again.
  const book = new DoubtBook(doubtDir(ctx.env, resolved.profileName.value, resolved.mode));
  const repeated =
    planFile === undefined
      ? await lookUpDoubts(ctx, book, client.address, req, cobro, devoluciones, sends)
      : undefined;
  if (repeated) {
    if (!sends) {
      say(
        ctx,
        io.c.dim(
          `prueba (--dry-run): la devolución ya está hecha (devolución ${repeated.id}): no se enviaría otra; no se envió nada`,
        ),
      );
      return;
    }
    if (globals.json) printJson(io, repeated);
    else printRecord(io, pairsOf(repeated, OPEN_FIELDS.devolucion));
    return;
  }
  if (!req.total && req.amount === undefined)
    req.amount = await askRefund(ctx, req, cobro, devoluciones, tx);
  const plan = planRefund(req, cobro, devoluciones, tx);
  const monto = formatCents(plan.amount);
  say(
    ctx,
    `${io.c.bold('a devolver:')}    ${monto}${req.transaccion !== undefined ? ` (sobre la transacción ${req.transaccion})` : ''}`,
  );
  // A refund does not say on which transaction it was made (the seed's refund has no
  // transaccion_id), so what is left of one transaction is the service's to judge:
  // svc checks only the transaction's own amount, and says so.
  if (req.transaccion !== undefined) say(ctx, io.c.dim(TX_LEFT_NOTE(req.transaccion)));

  if (planFile !== undefined) {
    const mine = devoluciones.filter((d) => d.cobro_id === cobro.id);
    const written = makePlan(
      cobro,
      mine,
      monto,
      req.transaccion,
      resolved.profileName.value,
      resolved.mode,
      { preparado_por: osUser(ctx.env), motivo },
    );
    writeNewPlan(planFile, written);
    if (globals.json) printJson(io, written);
    say(
      ctx,
      `plan escrito en ${shown(planFile)} (nada se envió): lo aplica quien corra svc devolver --aplicar ${shown(planFile)}`,
    );
    return;
  }
  if (!sends) {
    // Every local check passed: this is what would be sent, and nothing is.
    // What svc knows: what is left of the request. Of a transaction, unknown (null): the service decides.
    const would = {
      cobro_id: cobro.id,
      codigo: cobro.codigo,
      monto,
      transaccion_id: req.transaccion ?? null,
      queda_despues: formatCents(plan.left - plan.amount),
      ...(req.transaccion !== undefined ? { queda_en_transaccion: null } : {}),
    };
    if (globals.json) printJson(io, would);
    const tx =
      req.transaccion !== undefined
        ? `; si a la transacción ${req.transaccion} le queda ${monto} lo decide el servicio al recibirla`
        : '';
    say(
      ctx,
      io.c.dim(
        `prueba (--dry-run): la devolución de ${monto} del cobro ${cobro.id} pasa los controles de svc${tx}; no se envió nada`,
      ),
    );
    return;
  }
  await confirmAndSend(ctx, cobro, monto, req.transaccion, plan.left, live, {
    book,
    doubt: {
      tipo: 'devolucion',
      cobro_id: cobro.id,
      monto,
      antes: devoluciones.filter((d) => d.cobro_id === cobro.id).map((d) => d.id),
      desde: '',
      servicio: client.address,
    },
  });
}

/**
 * The refunds of `cobro` left in doubt (svc/en-duda, in-doubt.ts), each looked up in the
 * refunds just read and said: made (a refund of its amount the request did not have
 * before) or not. Returns the refund already made when this command would repeat it
 * (same amount, or --total); the doubts looked up are cleared (not with --dry-run).
 */
async function lookUpDoubts(
  ctx: Context,
  book: DoubtBook,
  servicio: string,
  req: RefundRequest,
  cobro: Cobro,
  devoluciones: Devolucion[],
  sends: boolean,
): Promise<Devolucion | undefined> {
  const mine = book
    .list(servicio)
    .filter(
      (f): f is Found<RefundDoubt> =>
        f.doubt.tipo === 'devolucion' && f.doubt.cobro_id === cobro.id,
    );
  if (mine.length === 0) return undefined;
  const zone = await ctx.zone();
  let repeated: Devolucion | undefined;
  for (const { file, doubt } of mine) {
    const made = devoluciones.find(
      (d) =>
        d.cobro_id === cobro.id && !doubt.antes.includes(d.id) && sameAmount(d.monto, doubt.monto),
    );
    const head = `una devolución de ${shown(doubt.monto)} a este cobro quedó en duda el ${serviceTime(doubt.desde, zone)}`;
    const same =
      req.total || req.amount === undefined || sameAmount(formatCents(req.amount), doubt.monto);
    if (made && same && !repeated) {
      repeated = made;
      ctx.io.err(`${head}: ya está hecha (devolución ${made.id}); no se envía otra`);
    } else if (made) {
      ctx.io.err(`${head}: ya está hecha (devolución ${made.id})`);
    } else {
      ctx.io.err(
        `${head}: no está hecha (el servicio no tiene una devolución de ${shown(doubt.monto)} desde entonces)${sends ? '; se sigue con esta' : ''}`,
      );
    }
    if (sends) book.clear(file);
  }
  return repeated;
}

function sameAmount(a: string, b: string): boolean {
  try {
    return parseAmount(a) === parseAmount(b);
  } catch {
    return false;
  }
}

/** What a refund's confirmation says when it is declined or interrupted. */
export const NOTHING_REFUNDED = 'no se devolvió nada';

/** Confirms as every refund does (the typed amount in live mode), sends the POST once, shows the refund. */
async function confirmAndSend(
  ctx: Context,
  cobro: Cobro,
  monto: string,
  transaccion: number | undefined,
  left: Cents,
  live: boolean,
  record?: { book: DoubtBook; doubt: RefundDoubt },
): Promise<Devolucion> {
  const { io, globals } = ctx;
  const client = await ctx.client();
  if (!globals.yes && io.canPrompt) {
    if (live) {
      await ctx.confirmTyped(
        `MODO LIVE: para devolver ${monto} del cobro ${cobro.id} escribí el monto (${monto}):`,
        monto,
        NOTHING_REFUNDED,
      );
    } else {
      await ctx.confirm(
        `¿Devolver ${monto} del cobro ${cobro.id} (${shown(cobro.codigo, 40)})?`,
        NOTHING_REFUNDED,
      );
    }
  }

  let refund: Devolucion;
  // Written before the POST: a rerun after an unknown outcome (or a kill) looks it up first.
  const doubtFile =
    record && keepDoubt(ctx, record.book, { ...record.doubt, desde: new Date().toISOString() });
  try {
    const body = transaccion === undefined ? { monto } : { monto, transaccion_id: transaccion };
    refund = (await ctx.spin('devolviendo…', () => client.devolver(cobro.id, body))).data.data;
    if (doubtFile) record.book.clear(doubtFile);
  } catch (err) {
    if (doubtFile && err instanceof ApiError) record.book.clear(doubtFile);
    // Past sending, only the service's own refusal is a known outcome.
    if (outcomeUnknown(err)) {
      const check = checkCommands(cobro.id, globals);
      throw new OutcomeUnknownError(
        `la devolución de ${monto} del cobro ${cobro.id} puede haberse hecho o no (${unknownOutcomeReason(err)}); no la repitas sin verificar` +
          (globals.json ? `. Para verificar: ${check}` : ''),
        check,
      );
    }
    throw err;
  }

  if (globals.json) {
    printJson(io, refund);
  } else {
    printRecord(io, pairsOf(refund, OPEN_FIELDS.devolucion));
  }
  const leftAfter = left - parseAmount(refund.monto);
  // The request's new state is the record's `estado` just above; this line fits 80 columns.
  say(
    ctx,
    io.c.dim(`devuelto ${shown(refund.monto)}; queda por devolver ${formatCents(leftAfter)}`),
  );
  return refund;
}

/** Longest --motivo kept in a plan: a sentence for the approver, not a document. */
const MAX_MOTIVO = 500;

/** --motivo: only with --plan (or a batch), one line of printable text. */
export function parseMotivo(value: unknown, allowed: boolean): string | null {
  if (value === undefined) return null;
  if (!allowed)
    throw new UsageError('--motivo va con --plan: queda escrito en el plan para quien lo aplique');
  const text = String(value).trim();
  if (!text) throw new UsageError('--motivo vacío: escribí por qué se devuelve, o no lo pases');
  if (CONTROL_CHARS.test(text))
    throw new UsageError('--motivo no puede tener caracteres de control ni saltos de línea');
  if (text.length > MAX_MOTIVO)
    throw new UsageError(`--motivo tiene ${text.length} caracteres: hasta ${MAX_MOTIVO}`);
  return text;
}

/** --plan FILE: a new file (an existing one, perhaps an applied plan, is never replaced). */
function newPlanPath(file: unknown): string {
  const path = String(file);
  if (!path.trim()) throw new UsageError('--plan vacío: el archivo donde escribir el plan');
  if (existsSync(path))
    throw new UsageError(
      `--plan "${printable(path)}" ya existe: elegí otro nombre (un plan nunca se sobrescribe)`,
    );
  return path;
}

function writeNewPlan(path: string, plan: Plan): void {
  writeNewText(path, planText(plan));
}

function writeNewText(path: string, text: string): void {
  try {
    // Exclusive: two agents writing the same name do not overwrite each other.
    createFile(path, text);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      `--plan "${printable(path)}": ${code === 'EEXIST' ? 'ya existe' : code === 'ENOENT' ? 'la carpeta no existe' : (err as Error).message}`,
    );
  }
}

/**
 * --aplicar FILE: the plan's checks (digest, mode, profile), then the request read
 * again: a refund of the plan's amount made since (here or on another machine)
 * means it was applied (exit 2, already_applied); any other change to what the plan
 * relied on refuses it (exit 1). Then the usual preview, confirmation and one POST,
 * and the plan file records that it was applied. From reading the plan to marking
 * it, the plan is locked by what it is (../../../lock.ts: its digest, its device and
 * inode, FILE.lock): two applies at the same moment, through copies or links, make one
 * refund, and the second one, once the first is done, finds the plan applied.
 */
async function applyPlan(ctx: Context, args: string[], opts: Options): Promise<void> {
  const { io } = ctx;
  if (
    args.length ||
    opts.monto !== undefined ||
    opts.total ||
    opts.transaccion !== undefined ||
    opts.referencia !== undefined ||
    opts.plan !== undefined ||
    opts.motivo !== undefined
  ) {
    throw new UsageError(
      '--aplicar toma todo del plan: sin id, --monto, --total, --transaccion, --referencia, --motivo ni --plan',
    );
  }
  const path = String(opts.aplicar);
  const lote = await import('./lote.js');
  const batch = lote.peekBatch(path);
  if (batch)
    return lote.applyBatch(ctx, path, batch, {
      resultado: opts.resultado,
      paralelo: opts.paralelo,
      dryRun: opts.dryRun,
    });
  if (opts.resultado !== undefined || opts.paralelo !== undefined)
    throw new UsageError('--resultado y --paralelo van con un plan en lote (--lote)');
  // Read once unlocked: a path that is no plan is a usage error before anything is locked.
  const { digest } = readPlan(path);
  if (opts.dryRun === true) return checkPlan(ctx, path, opts);
  // Locked by what it is: a copy, a hard link or another path of this plan waits too.
  const lock = await lockFile(path, {
    what: `el plan ${printable(path)}`,
    kind: 'plan',
    digest,
    onWait: (h) =>
      say(
        ctx,
        io.c.dim(
          `otro proceso${h ? ` (pid ${h.pid})` : ''} está aplicando el plan ${shown(path)}: esperando a que termine…`,
        ),
      ),
  });
  try {
    await checkPlan(ctx, path, opts);
  } finally {
    lock.release();
  }
}

/** Everything --aplicar does once the plan is locked (or, with --dry-run, without a lock: nothing is sent). */
async function checkPlan(ctx: Context, path: string, opts: Options): Promise<void> {
  const { io, globals } = ctx;
  // Read again under the lock: an apply that waited sees what the one before it wrote.
  const plan = readPlan(path);
  const id = plan.cobro.id;
  if (plan.aplicado) {
    const by = plan.aplicado.aplicado_por ? ` por ${shown(plan.aplicado.aplicado_por)}` : '';
    throw new AlreadyApplied(
      `el plan ya se aplicó el ${shown(serviceTime(plan.aplicado.at, await ctx.zone()))}${by} (devolución ${plan.aplicado.devolucion_id}): no se devuelve dos veces`,
      plan.aplicado.devolucion_id,
      checkCommands(id, globals),
    );
  }
  const resolved = await ctx.resolved();
  if (plan.modo !== resolved.mode)
    throw new PlanRefused(
      `el plan es para modo ${plan.modo} y este perfil está en modo ${resolved.mode}: no se aplica`,
    );
  if (plan.perfil !== resolved.profileName.value) {
    throw new PlanRefused(
      `el plan se hizo con el perfil "${printable(plan.perfil)}" y estás usando "${printable(resolved.profileName.value)}": no se aplica`,
      `svc --profile ${plan.perfil} devolver --aplicar ${path}`,
    );
  }
  const live = resolved.mode === 'live';
  if (live && opts.dryRun !== true && !globals.yes && !io.canPrompt)
    await ctx.guardChange(`aplicar el plan de devolución del cobro ${id}`);
  const client = await ctx.client();
  const { cobro, devoluciones, tx } = await ctx.spin(`leyendo el cobro ${id}…`, async () => {
    const [c, d, t] = await Promise.all([
      client.verCobro(id),
      refundsOf(client, id),
      plan.transaccion_id === null
        ? undefined
        : withNotFoundHint(client.verTransaccion(plan.transaccion_id), TX_HINT({ kind: 'id', id })),
    ]);
    return { cobro: c.data.data, devoluciones: d, tx: t?.data.data };
  });
  const mine = devoluciones.filter((d) => d.cobro_id === id);
  refuseInexact(mine, `el plan del cobro ${id}`);
  const since = mine.filter((d) => !plan.cobro.devoluciones.includes(d.id));
  const same = since.find((d) => parseAmount(d.monto) === parseAmount(plan.monto));
  if (same) {
    // Also what an apply killed between the POST and marking the plan leaves behind.
    throw new AlreadyApplied(
      `el cobro ${id} ya tiene una devolución de ${shown(same.monto)} hecha después del plan (devolución ${same.id}, ${shown(same.created_at)}): este plan ya se aplicó, acá o en otra máquina`,
      same.id,
      checkCommands(id, globals),
    );
  }
  const devuelto = formatCents(sumAmounts(mine.map((d) => d.monto)));
  const changes: string[] = [];
  if (cobro.codigo !== plan.cobro.codigo)
    changes.push(
      `el código es ${shown(cobro.codigo)}, no ${shown(plan.cobro.codigo)} (¿otro servicio?)`,
    );
  if (cobro.estado !== plan.cobro.estado)
    changes.push(`estado ${plan.cobro.estado} → ${cobro.estado}`);
  if (cobro.monto_cobrado !== plan.cobro.monto_cobrado)
    changes.push(`cobrado ${plan.cobro.monto_cobrado} → ${shown(cobro.monto_cobrado)}`);
  if (devuelto !== plan.cobro.devuelto)
    changes.push(`devuelto ${plan.cobro.devuelto} → ${devuelto}`);
  if (changes.length) {
    throw new PlanRefused(
      `el cobro ${id} cambió desde que se hizo el plan (${changes.join('; ')}): no se aplica`,
      `mirá el caso con svc caso ${id} y prepará un plan nuevo`,
    );
  }

  showSummary(ctx, cobro, devoluciones);
  const req: RefundRequest = {
    ref: { kind: 'id', id },
    amount: parseAmount(plan.monto),
    total: false,
    transaccion: plan.transaccion_id ?? undefined,
  };
  const checked = planRefund(req, cobro, devoluciones, tx);
  say(
    ctx,
    `${io.c.bold('a devolver:')}    ${plan.monto} (plan ${shown(path)}, hecho ${shown(serviceTime(plan.creado, await ctx.zone()))} con el perfil "${shown(plan.perfil)}")`,
  );
  if (plan.version === 2) {
    say(ctx, `${io.c.dim('preparado por'.padEnd(14))} ${shown(plan.preparado_por ?? '')}`);
    say(
      ctx,
      `${io.c.dim('motivo'.padEnd(14))} ${plan.motivo === null || plan.motivo === undefined ? io.c.dim('(sin motivo)') : shown(plan.motivo)}`,
    );
  }
  if (opts.dryRun === true) {
    // A rehearsal of the approval: every check passed, nothing is sent and the plan stays unapplied.
    say(
      ctx,
      io.c.dim(`prueba (--dry-run): el plan ${shown(path)} se puede aplicar; no se envió nada`),
    );
    return;
  }
  const refund = await confirmAndSend(ctx, cobro, plan.monto, req.transaccion, checked.left, live);
  try {
    const aplicado = {
      at: new Date().toISOString(),
      devolucion_id: refund.id,
      perfil: resolved.profileName.value,
      aplicado_por: osUser(ctx.env),
    };
    replaceFile(path, planText({ ...plan, aplicado }));
    say(ctx, io.c.dim(`el plan ${shown(path)} quedó marcado como aplicado`));
  } catch (err) {
    // The refund is made; applying the plan again is still refused (a refund of its amount since the plan).
    io.err(
      io.c.yellow(
        `aviso: la devolución se hizo, pero no se pudo marcar el plan ${shown(path)} como aplicado (${(err as Error).message})`,
      ),
    );
  }
}

/** The amount to refund, asked on a terminal under what is left (as `cobro crear` asks what is missing); asked again while it does not fit. */
async function askRefund(
  ctx: Context,
  req: RefundRequest,
  cobro: Cobro,
  devoluciones: Devolucion[],
  tx?: Transaccion,
): Promise<Cents> {
  // A request that admits no refund is refused before the question (the smallest amount meets every other check).
  const { left } = planRefund({ ...req, amount: 1n }, cobro, devoluciones, tx);
  const { askAmount } = await import('../../shared/ask-amount.js');
  return askAmount(ctx, `Monto a devolver (queda ${formatCents(left)}):`, (cents) => {
    try {
      planRefund({ ...req, amount: cents }, cobro, devoluciones, tx);
      return undefined;
    } catch (err) {
      if (err instanceof UsageError) return err.message.replace(/^--monto /, '');
      throw err;
    }
  });
}

/** A line for the person (the preview, what was done); --json keeps stderr for errors and warnings only. */
function say(ctx: Context, line: string): void {
  if (!ctx.globals.json) ctx.io.err(line);
}

/**
 * The refunds of one request, read in one pass over the list keeping only its own:
 * memory for them, not for the merchant's history.
 */
async function refundsOf(client: Client, cobroId: number): Promise<Devolucion[]> {
  const { data } = await client.iterarDevoluciones({
    keep: (x) => (x as { cobro_id?: unknown }).cobro_id === cobroId,
  });
  return [...data].filter((d) => d.cobro_id === cobroId);
}

function showSummary(ctx: Context, cobro: Cobro, devoluciones: Devolucion[]): void {
  const { io } = ctx;
  const mine = devoluciones.filter((d) => d.cobro_id === cobro.id);
  refuseInexact(mine, `"ya devuelto" ni "queda" del cobro ${cobro.id}`);
  const refunded = sumAmounts(mine.map((d) => d.monto));
  const left = parseAmount(cobro.monto_cobrado) - refunded;
  // On a terminal the concept is shortened to the line's room ("…"), so the preview
  // the person confirms from has one line per field; `svc cobro ver` has it whole.
  const head = `${cobro.id} (${shown(cobro.codigo, 40)}) `;
  const columns = io.stderrTTY ? ((io.stderr as { columns?: number }).columns ?? 0) : 0;
  const concept = shown(cobro.concepto);
  const rows: [string, string][] = [
    [
      'cobro',
      head +
        (columns > 0
          ? fitWidth(concept, Math.max(12, columns - 15 - displayWidth(head)))
          : concept),
    ],
    ['estado', colorState(cobro.estado, io.c)],
    ['monto', shown(cobro.monto)],
    ['monto_cobrado', shown(cobro.monto_cobrado)],
    [
      'ya devuelto',
      `${formatCents(refunded)}${mine.length ? ` (${count(mine.length, 'devolución', 'devoluciones')})` : ''}`,
    ],
    ['queda', formatCents(left < 0n ? 0n : left)],
  ];
  for (const [k, v] of rows) say(ctx, `${io.c.dim(k.padEnd(14))} ${v}`);
}
