// The exit-code table (README "Output and exit codes") and the base errors that carry
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
  cancelled: 130,
  /** Stopped by SIGTERM (128 + 15, as a shell reports it). */
  terminated: 143,
} as const;

/** An error of svc itself that knows its exit code (the service's errors, api/errors.ts, carry one too). */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: number,
    readonly suggestion?: string,
  ) {
    super(message);
  }
}

/** Bad flag, bad value, missing argument: exit 2, before any request. */
export class UsageError extends CliError {
  override name = 'UsageError';
  constructor(message: string, suggestion?: string) {
    super(message, EXIT.usage, suggestion);
  }
}

/** Config file unreadable or corrupt, or nothing configured where something must be. */
export class ConfigError extends CliError {
  override name = 'ConfigError';
  constructor(message: string, suggestion?: string, exitCode: number = EXIT.refused) {
    super(message, exitCode, suggestion);
  }
}

/** A notification whose signature does not verify: exit 7. */
export class SignatureError extends CliError {
  override name = 'SignatureError';
  constructor(
    message: string,
    readonly reason: string,
  ) {
    super(message, EXIT.signature);
  }
}

/** The person cancelled (Ctrl-C at a prompt, or answered no): exit 130. */
export class CancelledError extends CliError {
  override name = 'CancelledError';
  constructor(message = 'cancelado') {
    super(message, EXIT.cancelled);
  }
}

/** A POST may or may not have reached the service: say so, and how to check. Exit 6. */
export class OutcomeUnknownError extends CliError {
  override name = 'OutcomeUnknownError';
  constructor(message: string, checkCommand: string) {
    super(message, EXIT.network, `para verificar: ${checkCommand}`);
  }
}

/**
 * The command already told the person why (a body printed by `svc api`, a health
 * record that says ok: false): main prints nothing more and exits with `exitCode`.
 */
export class Reported extends CliError {
  override name = 'Reported';
  constructor(exitCode: number) {
    super('', exitCode);
  }
}
