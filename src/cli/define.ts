// The shape of a command: metadata (cheap, loaded for --help and completions) apart
// from its implementation (loaded only when the command runs). The options a verb's
// `run` receives are typed from the option list of its metadata, so a flag renamed in
// the metadata is a type error in the verb, not an `undefined` at run time.
import type { Context } from './context.js';
import { DAY_WORDS } from '../domain/rules.js';

export interface OptionDef {
  /** Commander flags, e.g. '--monto <monto>' or '--no-qr'. */
  flags: string;
  description: string;
  /** Allowed values, shown in help and completions; checked by the command. */
  choices?: readonly string[];
  /** Repeatable option collecting its values into an array. */
  repeatable?: boolean;
  default?: string | boolean;
}

export interface ArgDef {
  name: string;
  description: string;
  required?: boolean;
  variadic?: boolean;
  choices?: readonly string[];
}

// '--forward-to <url>' -> 'forward-to'; '-H, --header <h>' -> 'header'.
type LongName<F extends string> = F extends `${string}--${infer Rest}`
  ? Rest extends `${infer Name} ${string}`
    ? Name
    : Rest
  : never;
type Camel<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<Camel<Tail>>}`
  : S;
// commander names '--no-qr' as `qr` (true unless the flag is given).
type KeyOf<F extends string> =
  LongName<F> extends `no-${infer Name}` ? Camel<Name> : Camel<LongName<F>>;
type ValueOf<O extends OptionDef> = O extends { repeatable: true }
  ? string[]
  : O['flags'] extends `${string}<${string}` | `${string}[${string}`
    ? string
    : boolean;

/** The options object commander hands a command, as its option list declares it. */
export type OptionsOf<Opts extends readonly OptionDef[]> = {
  [O in Opts[number] as KeyOf<O['flags']>]?: ValueOf<O>;
};

/** A verb's implementation. Non-zero exits are thrown (src/errors.ts), never returned. */
export interface CommandModule<Opts = Record<string, unknown>> {
  // Method syntax on purpose: a verb typed for its own options still fits the generic list.
  run(ctx: Context, args: string[], opts: Opts): Promise<void>;
}

export interface CommandDef<Opts extends readonly OptionDef[] = readonly OptionDef[]> {
  /** Space-separated path: 'cobro crear'. */
  name: string;
  /** Aliases of the last word: ['create']. */
  aliases?: string[];
  summary: string;
  args?: ArgDef[];
  /** The usage line when the arguments' own would mislead (`svc api [MÉTODO] <ruta>`). */
  usage?: string;
  options?: Opts;
  examples: string[];
  /** A list: takes the global --csv (printTable writes its items as CSV). */
  csv?: true;
  /** Imports the implementation; only called when the command runs. */
  load: () => Promise<CommandModule<OptionsOf<Opts>>>;
}

export interface GroupDef {
  name: string;
  aliases?: string[];
  summary: string;
  examples?: string[];
}

/** What a noun's index.ts exports: its group (when it has verbs) and its commands. */
export interface Noun {
  group?: GroupDef;
  commands: CommandDef[];
}

/** Ties a command's option list to the options its `run` receives. */
export function defineCommand<const Opts extends readonly OptionDef[] = readonly []>(
  def: CommandDef<Opts>,
): CommandDef {
  return def as unknown as CommandDef;
}

/** An option list kept as written, so the verb that uses it gets typed options. */
export function defineOptions<const Opts extends readonly OptionDef[]>(options: Opts): Opts {
  return options;
}

// Options every list command shares, written once. The service's lists take neither:
// svc applies them to what it read (src/cli/shared/lists.ts), and help says so.

export const limitOption = {
  flags: '--limit <n>',
  description: 'muestra como máximo n, los más nuevos (lo aplica svc)',
} as const;

const DAY_FORMS = `${DAY_WORDS}; en la zona del servicio`;
/** --desde / --hasta: whole days, both included; svc filters what it read (the service has no date filter). */
export const desdeOption = {
  flags: '--desde <fecha>',
  description: `solo desde ese día, incluido (${DAY_FORMS}; lo filtra svc)`,
} as const;
export const hastaOption = {
  flags: '--hasta <fecha>',
  description: `solo hasta ese día, incluido (${DAY_FORMS}; lo filtra svc)`,
} as const;

// One payment request, named as every command that takes one names it: by id, by the
// code on the payer's receipt, or by the merchant's reference (src/cli/shared/find-cobro.ts).

/** The argument `id|código` (devolver extends its description with its `planes` form). */
export const cobroArg = {
  name: 'id|código',
  description: 'id del cobro (entero) o su código de 10 caracteres (el del comprobante)',
  required: false,
} as const satisfies ArgDef;
/** --referencia: the request by the merchant's own reference instead of its id or code. */
export const referenciaOption = {
  flags: '--referencia <texto>',
  description: 'el cobro con exactamente esa referencia del comercio (en lugar del id o el código)',
} as const;

/** --separador: the CSV's separator for a batch (`--lote`), in every command that takes one. */
export const separadorOption = {
  flags: '--separador <sep>',
  description: 'con --lote: el separador del CSV (, ; o tab); sin él, se detecta del encabezado',
} as const;

export const cobroOption = {
  flags: '--cobro <id|código>',
  description:
    'solo los de ese cobro, por id o código (lo filtra svc: el servicio no tiene ese filtro)',
} as const;
