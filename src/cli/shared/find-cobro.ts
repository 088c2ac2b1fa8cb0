// A payment request named the way people name it: its id (what svc prints), its
// codigo (what the payer's receipt shows: 10 letters and digits, any case) or, with
// --referencia, the merchant's own reference, matched exactly. The service only
// looks up by id; a codigo or a reference is searched with `q` (which also matches
// inside concepts) and then matched exactly here. Used by every command that takes
// a request: cobro ver, sync, devolver, caso.
import { refuseInexact } from '../../api/exact.js';
import type { Client } from '../../api/client.js';
import type { Cobro } from '../../api/schemas.js';
import { CliError, EXIT, UsageError } from '../../errors.js';
import { count, folded, printable, shown } from '../../text.js';
import type { Context } from '../context.js';
import { isIdText, parseId } from '../parse.js';

/** `orReferencia`: the text as typed, tried as a reference when no request has it as its code (`svc caso pedido-1042`). */
export type CobroRef =
  | { kind: 'id'; id: number }
  | { kind: 'codigo'; codigo: string; orReferencia?: string }
  | { kind: 'referencia'; referencia: string };

/** How the request was named, checked before any request is made. */
export function parseCobroRef(
  arg: string | undefined,
  referencia: unknown,
  command = 'svc cobro ver',
): CobroRef {
  if (referencia !== undefined) {
    if (arg !== undefined)
      throw new UsageError(
        'nombrá el cobro de una sola forma: <id|código> o --referencia <texto>, no los dos',
      );
    const text = String(referencia);
    if (!text.trim()) throw new UsageError('--referencia vacía');
    return { kind: 'referencia', referencia: text };
  }
  const s = (arg ?? '').trim();
  if (!s)
    throw new UsageError(
      'falta el cobro: su id, su código o --referencia <texto>',
      `ej. ${command} 42, ${command} K7QM3XW9PA`,
    );
  if (isIdText(s)) return { kind: 'id', id: Number(s) };
  // Digits past the one id limit (no code is that long): the same words as parseId's.
  if (/^[1-9][0-9]{10,}$/.test(s)) parseId(s);
  // A code read out over the phone comes in groups: "T97F 5DUH MA", "t97f-5duh-ma".
  const code = s.replace(/[\s-]+/g, '');
  // `svc caso <referencia>`: what a support agent has at hand is often the merchant's own reference.
  const caso = command === 'svc caso';
  if (/^[A-Za-z0-9]{10}$/.test(code) && /^[A-Za-z0-9][A-Za-z0-9\s-]*$/.test(s))
    return { kind: 'codigo', codigo: code.toUpperCase(), ...(caso ? { orReferencia: s } : {}) };
  if (caso) return { kind: 'referencia', referencia: s };
  throw new UsageError(
    `"${printable(s)}" no es un id (entero positivo) ni un código de cobro (10 letras y números)`,
    'para buscar por la referencia del comercio: --referencia <texto>',
  );
}

/** How a reference is shown back in messages. */
export function describeRef(ref: CobroRef): string {
  if (ref.kind === 'id') return `el cobro ${ref.id}`;
  if (ref.kind === 'codigo') return `el cobro con código ${ref.codigo}`;
  return `el cobro con referencia "${printable(ref.referencia)}"`;
}

/** Several requests answer to a name: they are listed on stderr and the person picks one by id. */
export class AmbiguousCobroError extends CliError {
  override name = 'AmbiguousCobroError';
  constructor(
    message: string,
    readonly matches: Cobro[],
  ) {
    super(message, {
      exit: EXIT.usage,
      code: 'ambiguous',
      hint: `elegí uno por su id: ${matches.map((c) => c.id).join(', ')}`,
    });
  }
}

/** No request has exactly that reference, but some have one like it: listed, and the person picks. */
export class NearCobroError extends CliError {
  override name = 'NearCobroError';
  constructor(
    message: string,
    readonly near: Cobro[],
  ) {
    super(message, {
      exit: EXIT.usage,
      code: 'near_matches',
      hint: `¿era alguno de estos? elegí uno por su id: ${near.map((c) => c.id).join(', ')}`,
    });
  }
}

/** A reference as people retype it: case, accents, blanks, dashes, dots and underscores do not count. */
const loose = (text: string) => folded(text).replace(/[\s._-]+/g, '');

/** Its words and numbers, a number without its leading zeros: ped-2026-042 and PED 2026 42 are one. */
const words = (text: string) =>
  (folded(text).match(/\p{L}+|\p{N}+/gu) ?? [])
    .map((w) => (/^[0-9]+$/.test(w) ? w.replace(/^0+(?=.)/, '') : w))
    .join(' ');

/** Whether a and b are one edit apart at most (a letter missing, added or changed). */
function oneEdit(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const [x, y] = [a.slice(i), b.slice(i)];
  return x.slice(1) === y.slice(1) || x.slice(1) === y || x === y.slice(1);
}

/** A reference near the one typed: one inside the other, the same words and numbers, or one letter off. */
export function nearReference(typed: string, referencia: string | null): boolean {
  if (referencia === null) return false;
  const [t, r] = [loose(typed), loose(referencia)];
  if (t === '' || r === '') return false;
  return (
    r.includes(t) ||
    t.includes(r) ||
    words(typed) === words(referencia) ||
    (Math.min(t.length, r.length) >= 5 && oneEdit(t, r))
  );
}

/** The request named by `ref`: by id, one GET; by codigo or reference, one list call and an exact match. */
export async function findCobro(client: Client, ref: CobroRef): Promise<Cobro> {
  if (ref.kind === 'id') return (await client.verCobro(ref.id)).data.data;
  const q = ref.kind === 'codigo' ? ref.codigo : ref.referencia;
  const list = (await client.listarCobros({ q })).data.data;
  const matches: Cobro[] = [];
  for (const c of list) {
    if (
      ref.kind === 'codigo'
        ? c.codigo.toUpperCase() === ref.codigo
        : c.referencia === ref.referencia
    )
      matches.push(c);
  }
  // The one named, when svc cannot take it exactly, is named back: nothing rests on it.
  if (matches.length === 1) {
    refuseInexact(matches, 'nada sobre él');
    return matches[0]!;
  }
  if (matches.length === 0 && ref.kind === 'codigo' && ref.orReferencia !== undefined) {
    // No such code: the text as a reference; nothing there either, the code's own "not found".
    const asReference = await findCobro(client, {
      kind: 'referencia',
      referencia: ref.orReferencia,
    }).catch((err: unknown) => {
      if (err instanceof CliError && err.code === 'not_found') return undefined;
      throw err;
    });
    if (asReference) return asReference;
  }
  if (matches.length === 0 && ref.kind === 'referencia') {
    const typed = ref.referencia;
    const isNear = (c: Cobro) => nearReference(typed, c.referencia);
    let near = list.filter(isNear);
    // "pedido 1042" for "pedido-1042", "ped-2026-42" for "ped-2026-042": the service's
    // search is by substring, so look again by the longest runs of letters or digits.
    const runs = [
      ...new Set([
        ...(typed.match(/[\p{L}\p{N}]+/gu) ?? []),
        ...(typed.match(/\p{L}+|\p{N}+/gu) ?? []),
      ]),
    ]
      .filter((r) => r.length >= 3 && r !== typed)
      .sort((a, b) => b.length - a.length)
      .slice(0, 3);
    for (const run of runs) {
      if (near.length) break;
      near = (await client.listarCobros({ q: run })).data.data.filter(isNear);
    }
    if (near.length)
      throw new NearCobroError(
        `ningún cobro tiene exactamente la referencia "${printable(ref.referencia)}"; ${near.length === 1 ? 'uno tiene una parecida' : `${near.length} tienen una parecida`}`,
        near,
      );
  }
  if (matches.length === 0) {
    const what =
      ref.kind === 'codigo'
        ? `el código ${ref.codigo}`
        : `la referencia "${printable(ref.referencia)}"`;
    const found =
      list.length === 0
        ? 'sin resultados'
        : `${count(list.length, 'resultado', 'resultados')}, ninguno exacto`;
    throw new CliError(
      `no hay ningún cobro con ${what} (búsqueda: GET /v1/cobros?q=${encodeURIComponent(q)}, ${found})`,
      {
        exit: EXIT.notFound,
        code: 'not_found',
        hint: 'svc cobro listar --q <texto> busca dentro del código, el concepto y la referencia',
      },
    );
  }
  throw new AmbiguousCobroError(
    `${matches.length} cobros tienen ${ref.kind === 'codigo' ? `el código ${ref.codigo}` : `la referencia "${printable(ref.referencia)}"`}`,
    matches,
  );
}

/**
 * findCobro with a spinner; when several requests answer to the name, they are
 * listed on stderr (id, codigo, estado, monto, concepto) before the error, except
 * under --json, where stderr is the one error object.
 */
export async function cobroNamed(ctx: Context, client: Client, ref: CobroRef): Promise<Cobro> {
  try {
    return await ctx.spin(`buscando ${describeRef(ref)}…`, () => findCobro(client, ref));
  } catch (err) {
    throw sayMatches(ctx, err);
  }
}

/** Lists the matches of an ambiguous name on stderr (not under --json); returns the error to throw. */
export function sayMatches(ctx: Context, err: unknown): unknown {
  if (err instanceof AmbiguousCobroError && !ctx.globals.json) {
    for (const c of err.matches)
      ctx.io.err(
        `${c.id}\t${shown(c.codigo, 20)}\t${c.estado}\t${shown(c.monto, 20)}\t${shown(c.concepto, 60)}`,
      );
  }
  if (err instanceof NearCobroError && !ctx.globals.json) {
    for (const c of err.near)
      ctx.io.err(
        `${c.id}\t${shown(c.codigo, 20)}\t${shown(c.referencia ?? '-', 60)}\t${c.estado}\t${shown(c.monto, 20)}`,
      );
  }
  return err;
}
