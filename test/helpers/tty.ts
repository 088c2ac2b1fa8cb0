// Runs the built CLI inside a pseudo-terminal (util-linux `script`) and answers its
// prompts: each step waits for a text on the screen, then types. The terminal gets a
// real size (stty), since a 0-column pty confuses spinners.
import { spawn, spawnSync } from 'node:child_process';
import { BIN, ROOT, ownFolders } from './cli.js';

export interface TtyResult {
  exitCode: number;
  /** Everything the terminal showed, ANSI codes removed, \r\n as \n. */
  screen: string;
}

export type Step = [waitFor: RegExp, type: string];

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/** What a terminal shows of `s`: ANSI codes removed, \r\n as \n. */
export const strip = (s: string) =>
  s.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r\n?/g, '\n');

/**
 * Whether util-linux `script` is here to give the CLI a terminal. Where it is not, the
 * terminal tests skip; with SVC_REQUIRE_TERMINAL_TEST=1 (CI) the file fails instead,
 * so a machine without it cannot turn them green by skipping.
 */
/** Why the terminal tests skip where hasScript() is false. */
export const NO_SCRIPT =
  'util-linux `script` is missing (apt-get install bsdutils; SVC_REQUIRE_TERMINAL_TEST=1 fails instead)';

export function hasScript(): boolean {
  const ok = spawnSync('script', ['--version']).status === 0;
  if (!ok && process.env.SVC_REQUIRE_TERMINAL_TEST === '1') {
    throw new Error(
      'SVC_REQUIRE_TERMINAL_TEST=1 but `script` (util-linux) is missing: install it with apt-get install -y bsdutils',
    );
  }
  return ok;
}

/**
 * `pipedIn`: the command's stdin is that text through a pipe (`echo … | svc …` typed at a
 * terminal); `pipedOut`: its stdout goes through a pipe to the terminal (`svc … | cat`), its
 * exit code kept. What is not piped stays the terminal.
 */
export async function svcTty(
  args: string[],
  env: Record<string, string>,
  steps: Step[],
  timeoutMs = 30_000,
  size = { cols: 120, rows: 40 },
  pipedIn?: string,
  pipedOut = false,
): Promise<TtyResult> {
  const svcCmd = `node ${quote(BIN)} ${args.map(quote).join(' ')}`;
  const fed = pipedIn === undefined ? svcCmd : `printf '%s' ${quote(pipedIn)} | ${svcCmd}`;
  // Through `| cat` in bash, for PIPESTATUS: the exit code is svc's, not cat's (sh here has no pipefail).
  const line = pipedOut
    ? `bash -c ${quote(`${fed} | cat; exit \${PIPESTATUS[${pipedIn === undefined ? 0 : 1}]}`)}`
    : fed;
  const cmd = `stty cols ${size.cols} rows ${size.rows}; ${pipedIn === undefined || pipedOut ? 'exec ' : ''}${line}`;
  const child = spawn('script', ['-qfec', cmd, '/dev/null'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TERM: 'xterm',
      NO_COLOR: '1',
      ...ownFolders(env),
      ...env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let raw = '';
  const answers = answerer(steps, (text) => child.stdin.write(text));
  child.stdout.on('data', (d) => {
    raw += String(d);
    answers.seen(strip(raw));
  });
  child.stderr.on('data', (d) => (raw += String(d)));
  const exitCode = await new Promise<number>((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(-1);
    }, timeoutMs);
    // 'close', not 'exit': the last of the screen may still be in the pipe when the process exits.
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve(code ?? (signal ? 128 : -1));
    });
  });
  child.stdin.end();
  const screen = strip(raw);
  answers.check(exitCode, screen);
  return { exitCode, screen };
}

/**
 * Types each step's answer once its text is on the screen, in order (the pty's and the
 * in-process terminal's, inproc.ts). `seen` takes the whole screen so far, ANSI removed;
 * `check` fails with the screen when a step's text never showed.
 */
export function answerer(
  steps: Step[],
  type: (text: string) => void,
): { seen(screen: string): void; check(exitCode: number, screen: string): void } {
  let consumed = 0;
  let step = 0;
  return {
    seen(screen) {
      while (step < steps.length) {
        const [wait, text] = steps[step]!;
        const m = wait.exec(screen.slice(consumed));
        if (!m) return;
        consumed += m.index + m[0].length;
        step++;
        type(text);
      }
    },
    check(exitCode, screen) {
      if (step < steps.length)
        throw new Error(`prompt never shown: ${steps[step]![0]} (exit ${exitCode})\n${screen}`);
    },
  };
}

/** The screen's lines without the spinner's frame ("⠋ buscando cobros…"), which shares the first line until the output overwrites it. */
export function screenLines(screen: string): string[] {
  // On a loaded machine the spinner draws several frames before the table, each after a
  // cursor move the strip removes: every frame at the start of the line goes.
  return screen.split('\n').map((l) => l.replace(/^(?:[\u2800-\u28ff] [^…]*…)+/, ''));
}
