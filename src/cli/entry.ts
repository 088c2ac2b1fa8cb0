// Process entry: answers --version without loading anything else, otherwise
// loads main, wires signals and sets the exit code.
import { VERSION } from '../version.js';

export async function run(argv: string[]): Promise<void> {
  // `svc … | head` closes the pipe early: that is the reader's choice, not an error.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw err;
    });
  }
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  const controller = new AbortController();
  // Short commands stop at once on Ctrl-C; long-running ones (sandbox, listen) ask
  // to hold signals and shut down gracefully on the first one, at once on the second.
  let held = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (!held || controller.signal.aborted) process.exit(signal === 'SIGINT' ? 130 : 143);
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
  });
  process.exitCode = code;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
}
