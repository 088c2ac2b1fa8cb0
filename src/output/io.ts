// The terminal decisions, made once: tables and colour follow stdout being a TTY,
// prompts need stdin and stdout to be TTYs, the spinner needs stderr to be one.
// NO_COLOR and FORCE_COLOR are honoured; CI alone does not turn colour on.
// Every line goes through terminalGuard: no escape sequence but svc's own colours
// reaches a terminal, whatever a command interpolated; --json is written by outRaw:
// byte-exact when piped, its C1, bidi and line-separator characters as \u escapes
// (the same JSON value) on a terminal.
import { createColors } from 'picocolors';
import { displayWidth, jsonGuard, terminalGuard } from '../text.js';

export type Colors = ReturnType<typeof createColors>;

export interface Streams {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
}

export interface IO extends Streams {
  stdoutTTY: boolean;
  stderrTTY: boolean;
  /** stdin and stdout are terminals and --no-input was not given. */
  canPrompt: boolean;
  /**
   * Why nothing is asked when canPrompt is false, in the words of svc's errors:
   * --no-input, output to a pipe or file with a person at the keyboard (`svc … | jq`),
   * or no terminal at all.
   */
  noPromptWhy: string;
  color: boolean;
  /** --csv: lists as CSV (printTable), for accounting. */
  csv: boolean;
  /** Width of the terminal stdout is (COLUMNS when it does not say); undefined when piped. */
  columns: number | undefined;
  /** Width of the terminal stderr is; undefined when it is not one. */
  errColumns: number | undefined;
  /** Height of that terminal (LINES when it does not say). */
  rows: number | undefined;
  /** The pager for long lists on a terminal (SVC_PAGER, else PAGER, else `less -FRX`); undefined when off or piped. */
  pager: string | undefined;
  /** The environment svc was started with, for the programs it starts (the pager): never process.env. */
  env: NodeJS.ProcessEnv;
  c: Colors;
  /** A line on stdout; unsafe characters other than svc's colours shown as `\uXXXX`. */
  out(line?: string): void;
  /** The same on stderr; on a terminal, a line wider than it is broken at spaces (never mid-word), its hanging lines indented under the text. */
  err(line?: string): void;
  /** A line of --json on stdout: exactly as given when piped, through jsonGuard on a terminal. */
  outRaw(line: string): void;
}

export function createIO(
  streams: Streams,
  env: NodeJS.ProcessEnv,
  flags: { color?: boolean; input?: boolean; csv?: boolean; pager?: boolean } = {},
): IO {
  const stdoutTTY = Boolean(streams.stdout.isTTY) || env.SVC_FORCE_TTY === '1';
  const stderrTTY = Boolean(streams.stderr.isTTY) || env.SVC_FORCE_TTY === '1';
  const stdinTTY = Boolean(streams.stdin.isTTY) || env.SVC_FORCE_TTY === '1';
  const color = decideColor(stdoutTTY, env, flags.color);
  const errColumns = stderrTTY
    ? terminalSize(
        (streams.stderr as { columns?: number }).columns ?? streams.stdout.columns,
        env.COLUMNS,
        80,
      )
    : undefined;
  return {
    ...streams,
    stdoutTTY,
    stderrTTY,
    canPrompt: stdinTTY && stdoutTTY && flags.input !== false,
    noPromptWhy:
      flags.input === false
        ? 'con --no-input'
        : stdinTTY && !stdoutTTY
          ? 'con la salida a un pipe o archivo'
          : 'sin terminal',
    color,
    csv: flags.csv === true,
    columns: stdoutTTY ? terminalSize(streams.stdout.columns, env.COLUMNS, 80) : undefined,
    errColumns,
    rows: stdoutTTY
      ? terminalSize((streams.stdout as { rows?: number }).rows, env.LINES, 24)
      : undefined,
    pager: stdoutTTY && flags.pager !== false ? pagerOf(env) : undefined,
    env,
    c: createColors(color),
    out: (line = '') => void streams.stdout.write(`${terminalGuard(line)}\n`),
    // A JSON line (--json's errors) stays one line for the program that reads it.
    err: (line = '') =>
      void streams.stderr.write(
        `${/^[{[]/.test(line) ? terminalGuard(line) : breakAtSpaces(terminalGuard(line), errColumns)}\n`,
      ),
    outRaw: (line) => void streams.stdout.write(`${stdoutTTY ? jsonGuard(line) : line}\n`),
  };
}

const SGR = /\u001b\[[0-9;]*m/g;
const visible = (text: string) => displayWidth(text.replace(SGR, ''));

/**
 * A line (each of its lines) on lines of at most `width` columns, broken where it has
 * blanks: a terminal breaks a long error or notice wherever the edge falls
 * ("c|onfirmar"). Hanging lines are indented by `hang` columns, by default under the
 * text (past the line's indent and an `error: ` or `→ ` label); a run of blanks where
 * a line breaks goes; a word wider than the room stands on its own line. Colours count
 * as nothing.
 */
export function breakAtSpaces(line: string, width: number | undefined, hang?: number): string {
  if (width === undefined) return line;
  return line
    .split('\n')
    .map((one) => {
      if (visible(one) <= width) return one;
      const plain = one.replace(SGR, '');
      const indent = ' '.repeat(
        Math.min(
          hang ??
            plain.length -
              plain.trimStart().length +
              (/^\s*(error: |→ )/.exec(plain)?.[1]?.length ?? 0),
          Math.floor(width / 2),
        ),
      );
      const lines: string[] = [];
      // Words with the blanks before each: ["19:08:04", "  payment.created", …].
      const lead = /^ */.exec(one)![0];
      const words = one.slice(lead.length).match(/ *[^ ]+/g) ?? [];
      let current = lead;
      for (const word of words) {
        const bare = word.trimStart();
        if (current.trim() !== '' && visible(current + word) > width) {
          lines.push(current);
          current = indent + bare;
        } else current += word;
      }
      lines.push(current);
      return lines.join('\n');
    })
    .join('\n');
}

/** Whether stdout is a terminal narrower than `width` columns: lines that would take two rows there are written short. */
export function narrowerThan(io: IO, width: number): boolean {
  return io.columns !== undefined && io.columns < width;
}

export function decideColor(tty: boolean, env: NodeJS.ProcessEnv, flag?: boolean): boolean {
  if (flag === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  if (env.TERM === 'dumb') return false;
  return tty;
}

/** A terminal's width or height: what it reports, else the variable ($COLUMNS, $LINES), else the usual default. */
function terminalSize(
  reported: number | undefined,
  variable: string | undefined,
  fallback: number,
): number {
  if (reported && reported > 0) return reported;
  const n = Number(variable);
  return Number.isInteger(n) && n >= 2 && n <= 10_000 ? n : fallback;
}

/** SVC_PAGER, else PAGER, else `less -FRX` (as gh); set to empty, no pager. */
function pagerOf(env: NodeJS.ProcessEnv): string | undefined {
  const chosen = env.SVC_PAGER ?? env.PAGER ?? 'less -FRX';
  return chosen.trim() === '' || chosen.trim() === 'cat' ? undefined : chosen;
}
