// Process entry (bin/svc.js asks dist/cli/quick.cjs first, for --version and help):
// answers --version without loading anything else, otherwise
// loads main, wires signals and sets the exit code. Last resort: an exception or a
// rejection nobody caught (in a callback, a stream, a timer) is one `error:` line and
// exit 1, or 6 once a POST was sent, never Node's stack trace (that only with --debug).
import { VERSION } from '../version.js';
import type { SentWrite } from './outcome.js';

type Outcome = typeof import('./outcome.js');

/** Writes one line for an error nobody caught and ends the process with its code. */
function lastResort(
  outcome: Outcome,
  err: unknown,
  argv: readonly string[],
  writes: readonly SentWrite[],
): never {
  const u = outcome.unexpected(err, writes);
  try {
    if (argv.includes('--json')) {
      process.stderr.write(`${JSON.stringify({ error: u.name, message: u.line })}\n`);
    } else {
      process.stderr.write(`error: ${u.line}\n`);
      if (u.suggestion) process.stderr.write(`→ ${u.suggestion}\n`);
    }
    if (argv.includes('--debug') && err instanceof Error && err.stack)
      process.stderr.write(`${outcome.redactAddresses(err.stack)}\n`);
  } catch {
    // stderr itself is gone: the exit code still tells.
  }
  process.exit(u.code);
}

/** Runs svc; `writes` collects the writes sent (a parameter so a test can stand in for a command that sent one). */
export async function run(argv: string[], writes: SentWrite[] = []): Promise<void> {
  // `svc … | head` closes the pipe early: that is the reader's choice, not an error.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw err;
    });
  }
  // --version loads nothing else, the handlers included (when quick.cjs had no pages to answer from).
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  const outcome = await import('./outcome.js');
  const onUncaught = (err: unknown) => lastResort(outcome, err, argv, writes);
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);
  try {
    await runMain(argv, writes);
  } catch (err) {
    lastResort(outcome, err, argv, writes);
  }
}

async function runMain(argv: string[], writes: SentWrite[]): Promise<void> {
  const { EXIT } = await import('../errors.js');
  const controller = new AbortController();
  // Short commands stop at once on Ctrl-C; long-running ones (sandbox, listen) ask
  // to hold signals and shut down gracefully on the first one, at once on the second.
  let held = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (!held || controller.signal.aborted)
      process.exit(signal === 'SIGINT' ? EXIT.cancelled : EXIT.terminated);
    controller.abort(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // The process title shows argv on some systems; keep it to the program name.
  process.title = 'svc';
  const { main } = await import('../main.js');
  const code = await main(argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    signal: controller.signal,
    holdSignals: () => {
      held = true;
    },
    writes,
  });
  process.exitCode = code;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
}
