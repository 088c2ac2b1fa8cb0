// What a failed command prints: one readable line on stderr (JSON with --json) and the
// exit code of docs/salida-y-codigos.md. Loaded only when something failed, so a command that
// succeeds (and --help) does not load the error classes, hints and redaction.
import { ApiError, NetworkError } from '../api/service-errors.js';
import { redactAddresses } from '../api/address.js';
import { EXIT, SvcError } from '../errors.js';
import type { IO } from '../output/io.js';
import { oneLine, printable } from '../text.js';
import { hintFor, networkLine, runnable } from './hints.js';
import { unexpected, type CarriedFlags, type SentWrite } from './outcome.js';

/** Longest error line shown on a terminal; a service message of a few KiB would bury everything else. */
export const MAX_ERROR_LINE = 2000;

/** One readable line on stderr (JSON with --json), and the exit code of docs/salida-y-codigos.md. */
export function report(
  err: unknown,
  io: IO,
  json: boolean,
  debug: boolean,
  writes: readonly SentWrite[] = [],
  flags: CarriedFlags = {},
): number {
  const { code, line, body, name, suggestion } = describe(err, writes, flags);
  if (json) {
    // The service's error body as sent; svc's own message whole, its addresses' passwords hidden.
    const problem = (err as { problem?: unknown }).problem;
    const own = {
      error: name ?? 'unexpected',
      ...(typeof problem === 'string' ? { problem } : {}),
      message: line,
    };
    io.err(body !== undefined ? JSON.stringify(body) : redactAddresses(JSON.stringify(own)));
  } else {
    io.err(`${io.c.red('error:')} ${shorten(redactAddresses(line), MAX_ERROR_LINE)}`);
    const hint = suggestion ?? hintFor(err);
    if (hint)
      io.err(
        `${io.c.dim('→')} ${shorten(redactAddresses(runnable(oneLine(hint), flags)), MAX_ERROR_LINE)}`,
      );
  }
  // A stack only when asked for with --debug, and only for what svc did not expect.
  if (debug && err instanceof Error && err.stack && !(err instanceof SvcError)) {
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
  flags: CarriedFlags,
): { code: number; line: string; body?: unknown; name?: string; suggestion?: string } {
  if (err instanceof ApiError) {
    // The service's own words quoted after its code, never mixed into a sentence of svc's.
    const line = `${oneLine(err.error)} (HTTP ${err.http}): ${serviceWords(err.message)}`;
    return { code: err.exitCode, line, body: err.body };
  }
  if (err instanceof NetworkError) {
    return {
      code: err.exitCode,
      line: oneLine(networkLine(err)),
      name: err.code,
      suggestion: err.suggestion,
    };
  }
  if (err instanceof SvcError) {
    return {
      code: err.exitCode,
      line: oneLine(err.message),
      name: err.code,
      suggestion: err.suggestion,
    };
  }
  if (err instanceof Error && (err.name === 'ExitPromptError' || err.name === 'AbortPromptError')) {
    return { code: EXIT.cancelled, line: 'cancelado' };
  }
  const u = unexpected(err, writes, flags);
  return { code: u.code, line: oneLine(u.line), name: u.name, suggestion: u.suggestion };
}

/** A message of the service on one line, between quotes, escaped as inside a JSON string. */
export function serviceWords(message: string): string {
  return `"${printable(message.replace(/\s*[\r\n]+\s*/g, ' ').trim(), 1_000_000)}"`;
}
