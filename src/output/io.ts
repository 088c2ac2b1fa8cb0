// The terminal decisions, made once: tables and colour follow stdout being a TTY,
// prompts need stdin and stdout to be TTYs, the spinner needs stderr to be one.
// NO_COLOR and FORCE_COLOR are honoured; CI alone does not turn colour on.
// Every line goes through terminalGuard: no escape sequence but svc's own colours
// reaches a terminal, whatever a command interpolated; --json is written by outRaw.
import { createColors } from 'picocolors';
import { terminalGuard } from '../text.js';

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
  color: boolean;
  /** --csv: lists as CSV (printTable), for accounting. */
  csv: boolean;
  c: Colors;
  /** A line on stdout; unsafe characters other than svc's colours shown as `\uXXXX`. */
  out(line?: string): void;
  /** The same on stderr. */
  err(line?: string): void;
  /** A line on stdout exactly as given: only for --json, which stays byte-exact. */
  outRaw(line: string): void;
}

export function createIO(
  streams: Streams,
  env: NodeJS.ProcessEnv,
  flags: { color?: boolean; input?: boolean; csv?: boolean } = {},
): IO {
  const stdoutTTY = Boolean(streams.stdout.isTTY) || env.SVC_FORCE_TTY === '1';
  const stderrTTY = Boolean(streams.stderr.isTTY) || env.SVC_FORCE_TTY === '1';
  const stdinTTY = Boolean(streams.stdin.isTTY) || env.SVC_FORCE_TTY === '1';
  const color = decideColor(stdoutTTY, env, flags.color);
  return {
    ...streams,
    stdoutTTY,
    stderrTTY,
    canPrompt: stdinTTY && stdoutTTY && flags.input !== false,
    color,
    csv: flags.csv === true,
    c: createColors(color),
    out: (line = '') => void streams.stdout.write(`${terminalGuard(line)}\n`),
    err: (line = '') => void streams.stderr.write(`${terminalGuard(line)}\n`),
    outRaw: (line) => void streams.stdout.write(`${line}\n`),
  };
}

export function decideColor(tty: boolean, env: NodeJS.ProcessEnv, flag?: boolean): boolean {
  if (flag === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  if (env.TERM === 'dumb') return false;
  return tty;
}
