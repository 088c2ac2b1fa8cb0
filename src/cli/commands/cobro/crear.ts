// svc cobro crear: POST /v1/cobros. Every value the seed rules out is refused here,
// before any request (exit 2); missing required values are asked only on a terminal.
import type { CrearCobroInput } from '../../../api/contract.js';
import {
  DateError,
  inZone,
  localDate,
  parseVencimiento,
  serviceTime,
} from '../../../domain/dates.js';
import { formatCents, parseAmount, TYPED_AMOUNT_HINT } from '../../../domain/money.js';
import { printJson } from '../../../output/format.js';
import { printCobro } from '../../../output/cobro.js';
import { prompt, promptStreams, type Context } from '../../context.js';
import { CliError, EXIT, OutcomeUnknownError, UsageError } from '../../../errors.js';
import { carried, outcomeUnknown, shellWord, unknownOutcomeReason } from '../../outcome.js';
import { CONTROL_CHARS, MAX_CONCEPTO, MAX_REFERENCIA } from '../../../domain/rules.js';
import type { OptionsOf } from '../../define.js';
import { montoText, parseUrl, printable } from '../../parse.js';
import { showQr } from '../../shared/show-qr.js';
import type { crearOptions } from './index.js';
import type { Client } from '../../../api/client.js';
import { ApiError } from '../../../api/service-errors.js';
import type { Cobro } from '../../../api/schemas.js';
import { dependsOnToday, serviceNow } from '../../shared/service-clock.js';
import {
  DoubtBook,
  doubtDir,
  keepDoubt,
  type Found,
  type RequestDoubt,
} from '../../shared/in-doubt.js';

type Options = OptionsOf<typeof crearOptions>;

export { MAX_CONCEPTO, MAX_REFERENCIA };

/** Text the payer (or the merchant) reads: not blank, not too long, no control characters. Returns a reason or undefined. */
export function textProblem(value: string, max: number): string | undefined {
  if (value.trim() === '') return 'está vacío';
  const length = [...value].length;
  if (length > max) return `tiene ${length} caracteres (máximo ${max})`;
  // The sandbox refuses the same characters (src/domain/rules.ts): refused here, nothing is sent.
  if (CONTROL_CHARS.test(value))
    return 'tiene caracteres de control (saltos de línea, tabulaciones, escapes, controles bidireccionales)';
  return undefined;
}

export function checkText(value: unknown, flag: string, max: number): string {
  const s = typeof value === 'string' ? value : '';
  const problem = textProblem(s, max);
  if (problem) throw new UsageError(`${flag} ${problem}`);
  return s;
}

export function checkMonto(value: unknown): string {
  return montoText(value, '--monto', '1500 o 1500.50');
}

export function checkVencimiento(value: unknown, now?: number, timeZone?: string): string {
  try {
    return parseVencimiento(typeof value === 'string' ? value : '', { now, timeZone }).iso;
  } catch (err) {
    if (err instanceof DateError) throw new UsageError(`--vencimiento ${err.message}`);
    throw err;
  }
}

/** The body from the flags alone; concepto and monto may still be missing. */
export function bodyFromFlags(
  opts: Options,
  now?: number,
  timeZone?: string,
): Partial<CrearCobroInput> {
  const body: Partial<CrearCobroInput> = {};
  if (opts.concepto !== undefined)
    body.concepto = checkText(opts.concepto, '--concepto', MAX_CONCEPTO);
  if (opts.monto !== undefined) body.monto = checkMonto(opts.monto);
  if (opts.vencimiento !== undefined)
    body.vencimiento = checkVencimiento(opts.vencimiento, now, timeZone);
  if (opts.referencia !== undefined)
    body.referencia = checkText(opts.referencia, '--referencia', MAX_REFERENCIA);
  if (opts.successUrl !== undefined)
    body.success_url = parseUrl(opts.successUrl, '--success-url', 'https');
  if (opts.errorUrl !== undefined) body.error_url = parseUrl(opts.errorUrl, '--error-url', 'https');
  // Only what is turned off travels: each medio defaults to true on the service.
  if (opts.tarjeta === false) body.tarjeta = false;
  if (opts.qr === false) body.qr = false;
  if (opts.transferencia === false) body.transferencia = false;
  if (body.tarjeta === false && body.qr === false && body.transferencia === false) {
    throw new UsageError(
      '--no-tarjeta, --no-qr y --no-transferencia juntos dejan el cobro sin ningún medio de pago; dejá al menos uno',
    );
  }
  return body;
}

export async function run(ctx: Context, _args: string[], opts: Options): Promise<void> {
  const { io } = ctx;
  if (opts.lote !== undefined) {
    const single = (
      [
        'concepto',
        'monto',
        'vencimiento',
        'referencia',
        'successUrl',
        'errorUrl',
        'mostrarQr',
      ] as const
    ).filter((k) => opts[k] !== undefined);
    if (
      single.length ||
      opts.tarjeta === false ||
      opts.qr === false ||
      opts.transferencia === false
    ) {
      throw new UsageError(
        '--lote toma cada cobro de su fila: sin --concepto, --monto ni las demás opciones de un cobro',
        'ej. svc cobro crear --lote cobros.csv --resultado links.csv',
      );
    }
    const { createBatch } = await import('./lote.js');
    return createBatch(ctx, {
      lote: opts.lote,
      separador: opts.separador,
      resultado: opts.resultado,
      paralelo: opts.paralelo,
    });
  }
  for (const [flag, v] of [
    ['--resultado', opts.resultado],
    ['--paralelo', opts.paralelo],
    ['--separador', opts.separador],
  ] as const) {
    if (v !== undefined) throw new UsageError(`${flag} va con --lote`);
  }
  const body = bodyFromFlags(
    opts,
    // "mañana" is the service's tomorrow: a sandbox's clock may be moved on.
    opts.vencimiento !== undefined && dependsOnToday(String(opts.vencimiento))
      ? await serviceNow(ctx)
      : undefined,
    opts.vencimiento === undefined ? undefined : await ctx.zone(),
  );
  const missing = [
    body.concepto === undefined && '--concepto',
    body.monto === undefined && '--monto',
  ].filter(Boolean) as string[];
  if (missing.length && !io.canPrompt) {
    throw new UsageError(
      `falta ${missing.join(' y ')} (${io.noPromptWhy} no se pregunta nada)`,
      'ej. svc cobro crear --concepto "Pedido 1042" --monto 1500.00',
    );
  }
  // Address and key are checked (and the live banner shown) before asking anything.
  const client = await ctx.client();
  if (missing.length) {
    // Before anything is typed: a merchant that cannot collect is told now, not after the questions.
    const cuenta = (await ctx.spin('revisando la cuenta…', () => client.cuenta())).data.data;
    if (!cuenta.puede_cobrar) {
      throw new CliError(
        'esta cuenta todavía no puede crear cobros (puede_cobrar: no); no se preguntó ni se envió nada',
        {
          exit: EXIT.notReady,
          code: 'comercio_no_listo',
          hint: 'completá los datos del comercio en el panel; `svc cuenta` muestra el estado',
        },
      );
    }
    await ask(ctx, body);
  }
  const input = body as CrearCobroInput;

  // The same request left in doubt by a run before: looked up first, and not made twice.
  const resolved = await ctx.resolved();
  const book = new DoubtBook(doubtDir(ctx.env, resolved.profileName.value, resolved.mode));
  const made = await lookUpDoubts(ctx, client, book, input);
  if (made) {
    if (ctx.globals.json) printJson(io, made);
    else printCobro(io, inZone(made, await ctx.zone()), { short: true });
    return;
  }
  await ctx.guardChange(`crear un cobro de ${input.monto} ("${printable(input.concepto, 40)}")`);
  let cobro;
  // Written before the POST: a rerun after an unknown outcome (or a kill) looks it up first.
  const doubtFile = keepDoubt(ctx, book, {
    tipo: 'cobro',
    monto: input.monto,
    concepto: input.concepto,
    referencia: input.referencia ?? null,
    desde: new Date().toISOString(),
    servicio: client.address,
  });
  try {
    cobro = (await ctx.spin('creando el cobro…', () => client.crearCobro(input))).data.data;
    if (doubtFile) book.clear(doubtFile);
  } catch (err) {
    if (doubtFile && err instanceof ApiError) book.clear(doubtFile);
    // A POST is never repeated on its own: after a failure past sending, a second
    // `crear` could leave two payment links for one sale.
    if (outcomeUnknown(err)) {
      const check = `svc cobro listar --q ${shellWord(input.referencia ?? input.concepto)}${carried(ctx.globals)}`;
      throw new OutcomeUnknownError(
        `el cobro de ${input.monto} puede haberse creado o no (${unknownOutcomeReason(err)}); no lo repitas sin verificar` +
          (ctx.globals.json ? `. Para verificar: ${check}` : ''),
        check,
      );
    }
    throw err;
  }
  if (ctx.globals.json) printJson(io, cobro);
  else printCobro(io, inZone(cobro, await ctx.zone()), { short: true });
  if (opts.mostrarQr === true) await showQr(ctx, client, cobro);
}

/**
 * The requests like this one left in doubt (in-doubt.ts): the same referencia, or with
 * none the same concepto and monto. Each is looked up on the service and said: made (a
 * request with that referencia; with none, one of that concepto and monto created since)
 * or not, and cleared. Returns the request already made.
 */
async function lookUpDoubts(
  ctx: Context,
  client: Client,
  book: DoubtBook,
  input: CrearCobroInput,
): Promise<Cobro | undefined> {
  const ref = input.referencia ?? null;
  const mine = book
    .list(client.address)
    .filter(
      (f): f is Found<RequestDoubt> =>
        f.doubt.tipo === 'cobro' &&
        f.doubt.referencia === ref &&
        (ref !== null ||
          (f.doubt.concepto === input.concepto && sameAmount(f.doubt.monto, input.monto))),
    );
  if (mine.length === 0) return undefined;
  const zone = await ctx.zone();
  const list = (
    await ctx.spin('buscando el cobro que quedó en duda…', () =>
      client.listarCobros({ q: ref ?? input.concepto }),
    )
  ).data.data;
  let made: Cobro | undefined;
  for (const { file, doubt } of mine) {
    // Without a referencia: one created since the doubt (five minutes of slack for the clocks).
    const since = serviceTime(Date.parse(doubt.desde) - 5 * 60_000, zone);
    const found = list.find((c) =>
      ref !== null
        ? c.referencia === ref
        : c.referencia === null &&
          c.concepto === doubt.concepto &&
          sameAmount(c.monto, doubt.monto) &&
          localDate(c.created_at, zone) >= since,
    );
    const what =
      ref !== null
        ? `un cobro de ${doubt.monto} con la referencia ${printable(ref, 60)}`
        : `un cobro de ${doubt.monto} ("${printable(doubt.concepto, 40)}")`;
    const head = `${what} quedó en duda el ${serviceTime(doubt.desde, zone)}`;
    if (found) {
      made ??= found;
      ctx.io.err(`${head}: ya está hecho (cobro ${found.id}); no se crea otro`);
    } else {
      ctx.io.err(`${head}: no está hecho (el servicio no tiene ninguno así); se sigue con este`);
    }
    book.clear(file);
  }
  return made;
}

function sameAmount(a: string, b: string): boolean {
  try {
    return parseAmount(a) === parseAmount(b);
  } catch {
    return false;
  }
}

async function ask(ctx: Context, body: Partial<CrearCobroInput>): Promise<void> {
  const { input } = await import('@inquirer/prompts');
  const streams = promptStreams(ctx.io);
  if (body.concepto === undefined) {
    body.concepto = await prompt(() =>
      input(
        {
          message: 'Concepto (lo que ve quien paga):',
          validate: (v) => {
            const p = textProblem(v, MAX_CONCEPTO);
            return p ? `el concepto ${p}` : true;
          },
        },
        streams,
      ),
    );
  }
  if (body.monto === undefined) {
    const { askAmount } = await import('../../shared/ask-amount.js');
    body.monto = formatCents(await askAmount(ctx, `Monto (${TYPED_AMOUNT_HINT}):`));
  }
}

/** Single-quoted for a POSIX shell, so the suggested command can be pasted as is. */
export const shellQuote = shellWord;
