// main(argv, deps) -> exit code. The only place that turns errors into exit codes
// and error lines; commands throw, main speaks. An error line never shows an
// address's password, and a long one is shortened (--json keeps it whole).
import { CommanderError } from 'commander';
import { commands, groups } from './cli/registry.js';
import { buildProgram } from './cli/program.js';
import { createContext, type GlobalOptions } from './cli/context.js';
import { CliError, EXIT, Reported, UsageError } from './errors.js';
import { createIO, type IO, type Streams } from './output/io.js';
import { VERSION } from './version.js';
// A message from the service can carry escape sequences: oneLine shows it safely.
import { oneLine, printable } from './text.js';
import { ApiError, NetworkError } from './api/errors.js';
import { redactAddresses } from './api/address.js';
import { unexpected, type SentWrite } from './cli/outcome.js';
import { hintFor, networkLine } from './cli/hints.js';

export interface MainDeps extends Streams {
  env: NodeJS.ProcessEnv;
  /** Aborted when the process is asked to stop (SIGINT/SIGTERM). */
  signal?: AbortSignal;
  /** Long-running commands call this to stop gracefully on the first signal. */
  holdSignals?: () => void;
  /** Receives every write (non-GET request) the command sends; the process's last-resort handlers read it too. */
  writes?: SentWrite[];
}

export async function main(argv: string[], deps: MainDeps): Promise<number> {
  const raw = { json: argv.includes('--json'), noColor: argv.includes('--no-color'), debug: argv.includes('--debug') };
  let io: IO = createIO(deps, deps.env, { color: raw.noColor ? false : undefined });
  let globals: GlobalOptions | undefined;
  const writes = deps.writes ?? [];

  const program = buildProgram(
    VERSION,
    groups,
    commands,
    async ({ def, args, opts, globals: g }) => {
      globals = {
        json: g.json === true,
        csv: g.csv === true,
        profile: g.profile as string | undefined,
        live: g.live === true,
        baseUrl: g.baseUrl as string | undefined,
        yes: g.yes === true,
        input: g.input !== false,
        color: g.color !== false,
        debug: g.debug === true,
      };
      if (globals.csv && globals.json) throw new UsageError('--csv o --json, no los dos');
      if (globals.csv && !def.csv) throw new UsageError(`--csv es para las listas (cobro listar, transacciones listar, devoluciones listar, liquidaciones, webhook eventos…), no para svc ${def.name}`);
      io = createIO(deps, deps.env, { color: globals.color ? undefined : false, input: globals.input, csv: globals.csv, pager: g.pager !== false });
      const ctx = createContext({
        io,
        env: deps.env,
        globals,
        signal: deps.signal ?? new AbortController().signal,
        holdSignals: deps.holdSignals ?? (() => {}),
        writes,
      });
      const mod = await def.load();
      // commander's values are, by construction, what the command's metadata declares.
      await mod.run(ctx, args, opts as Parameters<typeof mod.run>[2]);
    },
    { writeOut: (s) => void deps.stdout.write(s), writeErr: (s) => void deps.stderr.write(s), json: raw.json },
  );

  if (argv.length === 0) {
    program.outputHelp();
    return EXIT.ok;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    return report(err, io, globals?.json ?? raw.json, globals?.debug ?? raw.debug, writes);
  }
}

/** Longest error line shown on a terminal; a service message of a few KiB would bury everything else. */
export const MAX_ERROR_LINE = 2000;

/** One readable line on stderr (JSON with --json), and the exit code of PRODUCT.md §2. */
export function report(err: unknown, io: IO, json: boolean, debug: boolean, writes: readonly SentWrite[] = []): number {
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return EXIT.ok;
    // commander already printed its (translated) message.
    return err.code === 'commander.executeSubCommandAsync' ? EXIT.refused : EXIT.usage;
  }
  // The command already said why: only the exit code is left to give.
  if (err instanceof Reported) return err.exitCode;
  const { code, line, body, name, suggestion } = describe(err, writes);
  if (json) {
    // The service's error body as sent; svc's own message whole, its addresses' passwords hidden.
    const problem = (err as { problem?: unknown }).problem;
    const own = { error: name ?? errorName(err), ...(typeof problem === 'string' ? { problem } : {}), message: line };
    io.err(body !== undefined ? JSON.stringify(body) : redactAddresses(JSON.stringify(own)));
  } else {
    io.err(`${io.c.red('error:')} ${shorten(redactAddresses(line), MAX_ERROR_LINE)}`);
    const hint = suggestion ?? hintFor(err);
    if (hint) io.err(`${io.c.dim('→')} ${shorten(redactAddresses(oneLine(hint)), MAX_ERROR_LINE)}`);
  }
  // A stack only when asked for with --debug, and only for what svc did not expect.
  if (debug && err instanceof Error && err.stack && !(err instanceof CliError) && !(err instanceof ApiError) && !(err instanceof NetworkError)) {
    io.err(io.c.dim(redactAddresses(err.stack)));
  }
  return code;
}

/** At most `max` characters (whole code points), then how many were cut. */
export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return `${chars.slice(0, max).join('')}… (${chars.length - max} caracteres más; --json lo muestra entero)`;
}

function describe(
  err: unknown,
  writes: readonly SentWrite[],
): { code: number; line: string; body?: unknown; name?: string; suggestion?: string } {
  if (err instanceof ApiError) {
    // The service's own words (often English) quoted after its code, never mixed into a Spanish sentence.
    const line = `${oneLine(err.error)} (HTTP ${err.http}): ${serviceWords(err.message)}`;
    return { code: err.exitCode, line, body: err.body };
  }
  if (err instanceof NetworkError) {
    return { code: err.exitCode, line: oneLine(networkLine(err)) };
  }
  if (err instanceof CliError) {
    return { code: err.exitCode, line: oneLine(err.message) };
  }
  if (err instanceof Error && (err.name === 'ExitPromptError' || err.name === 'AbortPromptError')) {
    return { code: EXIT.cancelled, line: 'cancelado' };
  }
  const u = unexpected(err, writes);
  return { code: u.code, line: oneLine(u.line), name: u.name, suggestion: u.suggestion };
}

function errorName(err: unknown): string {
  if (err instanceof NetworkError) return err.failure;
  if (err instanceof CliError) {
    // A configuration problem is "config" whatever its exit code (config/credentials.ts CONFIG_PROBLEMS).
    if (err.name === 'ConfigError') return 'config';
    if (err.exitCode === EXIT.usage) return 'usage';
    if (err.exitCode === EXIT.cancelled) return 'cancelled';
    if (err.exitCode === EXIT.signature) return 'invalid_signature';
    if (err.name === 'OutcomeUnknownError') return 'outcome_unknown';
    return 'error';
  }
  return 'unexpected';
}


/** A message of the service on one line, between quotes, escaped as inside a JSON string. */
export function serviceWords(message: string): string {
  return `"${printable(message.replace(/\s*[\r\n]+\s*/g, ' ').trim(), 1_000_000)}"`;
}
