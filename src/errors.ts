// The exit-code table (docs/salida-y-codigos.md) and the base errors that carry
// one. Below the CLI and import-free: src/config and src/api raise these too, and
// main.ts (with cli/report.ts) is the only place that turns an error into its line and exit code. A
// command never returns a code: it throws (see Reported for "already said why").

export const EXIT = {
  ok: 0,
  refused: 1,
  usage: 2,
  unauthorized: 3,
  notReady: 4,
  notFound: 5,
  network: 6,
  signature: 7,
  /** The person answered no to a confirmation: nothing was done (not Ctrl-C's 130, so a script can tell them apart). */
  declined: 8,
  cancelled: 130,
  /** Stopped by SIGTERM (128 + 15, as a shell reports it). */
  terminated: 143,
} as const;

/**
 * The one root of every error svc reports: it carries its exit code, the name a script
 * reads under --json (`{"error": <code>}`) and, where there is one, what to do next.
 * cli/report.ts reads these three and never works them out backwards. The service's
 * refusals (api/service-errors.ts ApiError) and failures on the way (NetworkError) are of it too.
 */
export abstract class SvcError extends Error {
  abstract readonly exitCode: number;
  /** The JSON error name (docs/salida-y-codigos.md). */
  abstract readonly code: string;
  readonly suggestion?: string;
  constructor(message: string, suggestion?: string) {
    super(message);
    if (suggestion !== undefined) this.suggestion = suggestion;
  }
}

/** What every error of svc's own states: its exit code, its JSON name and, optionally, what to do next. */
export interface Kind {
  exit: number;
  /** The name under --json; listed in docs/salida-y-codigos.md. */
  code: string;
  hint?: string | undefined;
}

/** An error of svc itself: the thrower names its exit code and JSON name, report.ts only reads them. */
export class CliError extends SvcError {
  override name = 'CliError';
  readonly exitCode: number;
  readonly code: string;
  constructor(message: string, kind: Kind) {
    super(message, kind.hint);
    this.exitCode = kind.exit;
    this.code = kind.code;
  }
}

/** Bad flag, bad value, missing argument: exit 2, before any request. */
export class UsageError extends CliError {
  override name = 'UsageError';
  constructor(message: string, suggestion?: string, code = 'usage') {
    super(message, { exit: EXIT.usage, code, hint: suggestion });
  }
}

/** Config file unreadable or corrupt, or nothing configured where something must be. */
export class ConfigError extends CliError {
  override name = 'ConfigError';
  constructor(message: string, suggestion?: string, exitCode: number = EXIT.refused) {
    super(message, { exit: exitCode, code: 'config', hint: suggestion });
  }
}

/** A notification whose signature does not verify: exit 7. */
export class SignatureError extends CliError {
  override name = 'SignatureError';
  constructor(
    message: string,
    readonly reason: string,
  ) {
    super(message, { exit: EXIT.signature, code: 'invalid_signature' });
  }
}

/** The person answered no (or typed another amount) at a confirmation: nothing was done, exit 8. */
export class DeclinedError extends CliError {
  override name = 'DeclinedError';
  constructor(message = 'no se hizo nada: respondiste que no') {
    super(message, { exit: EXIT.declined, code: 'declined' });
  }
}

/** The person interrupted a prompt (Ctrl-C): exit 130. */
export class CancelledError extends CliError {
  override name = 'CancelledError';
  constructor(message = 'cancelado') {
    super(message, { exit: EXIT.cancelled, code: 'cancelled' });
  }
}

/** A POST may or may not have reached the service: say so, and how to check. Exit 6. */
export class OutcomeUnknownError extends CliError {
  override name = 'OutcomeUnknownError';
  constructor(message: string, checkCommand: string) {
    super(message, {
      exit: EXIT.network,
      code: 'outcome_unknown',
      hint: `para verificar: ${checkCommand}`,
    });
  }
}

/**
 * The command already told the person why (a body printed by `svc api`, a health
 * record that says ok: false): main prints nothing more and exits with `exitCode`.
 */
export class Reported extends CliError {
  override name = 'Reported';
  constructor(exitCode: number) {
    super('', { exit: exitCode, code: 'reported' });
  }
}
