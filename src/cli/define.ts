// The shape of a command: metadata (cheap, loaded for --help and completions) apart
// from its implementation (loaded only when the command runs).
import type { Context } from './context.js';

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

export type RunFn = (ctx: Context, args: string[], opts: Record<string, unknown>) => Promise<number | void>;

export interface CommandDef {
  /** Space-separated path: 'cobro crear'. */
  name: string;
  /** Aliases of the last word: ['create']. */
  aliases?: string[];
  summary: string;
  args?: ArgDef[];
  options?: OptionDef[];
  examples: string[];
  /** Imports the implementation; only called when the command runs. */
  load: () => Promise<{ run: RunFn }>;
}

export interface GroupDef {
  name: string;
  aliases?: string[];
  summary: string;
  examples?: string[];
}

export function defineCommand(def: CommandDef): CommandDef {
  return def;
}
