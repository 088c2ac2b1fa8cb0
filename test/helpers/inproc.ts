// Runs svc's main() in this process (as wrangler's runWrangler does): the same
// argv -> stdout, stderr, exit code as the built binary, without a process per
// input, for matrices. Colours off, no keyring, a fresh config folder per run.
import * as readline from 'node:readline';
import { PassThrough, Writable } from 'node:stream';
import { main } from '../../src/main.js';
import { readFileSync } from 'node:fs';
import { ownFolders, type SvcOptions, type SvcResult } from './cli.js';
import { answerer, strip, type Step, type TtyResult } from './tty.js';

class Sink extends Writable {
  text = '';
  constructor(
    private readonly also?: Sink,
    private readonly onText?: (text: string) => void,
  ) {
    super();
  }
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    if (this.also) this.also.add(chunk.toString());
    done();
  }
  private add(text: string): void {
    this.text += text;
    this.onText?.(this.text);
  }
  // As process.stdout and stderr: a prompt piping to the stream ends it when it is done,
  // and the command still writes after that.
  override end(...args: unknown[]): this {
    const chunk = args.find((a) => typeof a === 'string' || Buffer.isBuffer(a)) as
      | string
      | Buffer
      | undefined;
    if (chunk !== undefined) this.write(chunk);
    (args.find((a) => typeof a === 'function') as (() => void) | undefined)?.();
    return this;
  }
}

/** A stream that hands each write to `add` as text (a long-running command's stdout or stderr, read as it comes). */
export function textSink(add: (text: string) => void): Writable {
  return new Writable({
    write(chunk: Buffer | string, _enc, done) {
      add(chunk.toString());
      done();
    },
  });
}

/** A terminal's size, and whether stdin and stdout are that terminal too (else pipes, as `echo … | svc … | cat` typed at one). */
interface Terminal {
  cols: number;
  rows: number;
  stdin: boolean;
  stdout: boolean;
}

/**
 * Says it is a terminal of that size, as process.stdout does on one, with a terminal's
 * cursor methods (tty.WriteStream's, which write readline's escape sequences): a
 * spinner moves the cursor on a terminal.
 */
function asTerminal<T extends object>(stream: T, size: { cols: number; rows: number }): T {
  const out = stream as T & NodeJS.WritableStream;
  return Object.assign(stream, {
    isTTY: true,
    columns: size.cols,
    rows: size.rows,
    cursorTo: (x: number, y?: number | (() => void), done?: () => void) =>
      readline.cursorTo(out, x, y as number, done),
    moveCursor: (dx: number, dy: number, done?: () => void) =>
      readline.moveCursor(out, dx, dy, done),
    clearLine: (dir: -1 | 0 | 1, done?: () => void) => readline.clearLine(out, dir, done),
    clearScreenDown: (done?: () => void) => readline.clearScreenDown(out, done),
    getWindowSize: () => [size.cols, size.rows],
  });
}

async function runMain(
  run: typeof main,
  args: string[],
  env: Record<string, string | undefined>,
  stdin: PassThrough,
  cwd: string | undefined,
  terminal?: Terminal & { onScreen(all: string): void },
): Promise<SvcResult & { all: string }> {
  const all = new Sink(undefined, terminal?.onScreen);
  let stdout = new Sink(all);
  let stderr = new Sink(all);
  if (terminal) {
    if (terminal.stdout) stdout = asTerminal(stdout, terminal);
    stderr = asTerminal(stderr, terminal);
    if (terminal.stdin) asTerminal(stdin, terminal);
  }
  // Relative paths (a --lote file, --resultado) are the caller's folder, as for the binary;
  // the test pool runs one file at a time per process (forks), so a chdir is this run's alone.
  const back = process.cwd();
  if (cwd) process.chdir(cwd);
  try {
    const exitCode = await run(args, {
      stdout,
      stderr,
      stdin,
      env: {
        ...ownFolders(env),
        NO_COLOR: '1',
        SVC_KEYRING: 'off',
        ...env,
      } as NodeJS.ProcessEnv,
    });
    return { exitCode, stdout: stdout.text, stderr: stderr.text, all: all.text };
  } finally {
    if (cwd) process.chdir(back);
  }
}

/**
 * Runs `svc ...args` through main(argv, deps) in this process: the twin of
 * `svcSpawned` in cli.ts (same options, same result), so a matrix switches between
 * the two by the name it calls. `all` is stdout and stderr in the order written, as a
 * terminal shows them.
 */
export function svc(
  args: string[],
  options: SvcOptions = {},
): Promise<SvcResult & { all: string }> {
  return svcOf(main)(args, options);
}

/**
 * `svc` through another main(): the built one (dist/main.js), for code that finds a file
 * beside its own compiled module, as the keyring finds its helper process.
 */
export function svcOf(run: typeof main) {
  return (args: string[], options: SvcOptions = {}): Promise<SvcResult & { all: string }> => {
    const input = options.input ?? (options.inputFile ? readFileSync(options.inputFile) : '');
    const stdin = new PassThrough();
    stdin.end(String(input));
    return runMain(run, args, options.env ?? {}, stdin, options.cwd);
  };
}

/**
 * The in-process twin of svcTty (tty.ts): main() on a terminal of `size` (stdout,
 * stderr and stdin say isTTY, with its columns and rows, as a pty's do) that types each
 * step's answer once its text shows. `pipedIn` makes stdin a pipe holding that text,
 * `pipedOut` stdout a pipe. For the matrices of a prompt (sizes, answers); the pty proves
 * the wiring once.
 */
export async function svcAtTerminal(
  args: string[],
  env: Record<string, string>,
  steps: Step[],
  timeoutMs = 30_000,
  size = { cols: 120, rows: 40 },
  pipedIn?: string,
  pipedOut = false,
): Promise<TtyResult> {
  const stdin = new PassThrough();
  // Typed after the write that showed the prompt returns, as a person types after seeing it.
  const answers = answerer(steps, (text) => setImmediate(() => stdin.write(text)));
  if (pipedIn !== undefined) stdin.end(pipedIn);
  // A step whose text never shows: Ctrl-C at the prompt the command waits at (exit 130),
  // as the pty's process is killed, then check() says which step.
  const timer = setTimeout(() => stdin.end('\u0003'), timeoutMs);
  try {
    const r = await runMain(main, args, { SVC_PAGER: '', ...env }, stdin, undefined, {
      cols: size.cols,
      rows: size.rows,
      stdin: pipedIn === undefined,
      stdout: !pipedOut,
      onScreen: (all) => answers.seen(strip(all)),
    });
    const screen = strip(r.all);
    answers.check(r.exitCode, screen);
    return { exitCode: r.exitCode, screen };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `svc ...args` through main() on a forced terminal of `cols` columns and 40 rows,
 * without a pager: what a terminal shows (stdout and stderr in order). The layout
 * matrices use it; a real terminal (a pty, tty.ts) is for what only a process has.
 */
export async function svcOnTerminal(
  args: string[],
  env: Record<string, string>,
  cols: number,
): Promise<{ exitCode: number; screen: string }> {
  const r = await svc(args, {
    env: { ...env, SVC_FORCE_TTY: '1', SVC_PAGER: '', COLUMNS: String(cols), LINES: '40' },
  });
  return { exitCode: r.exitCode, screen: r.all };
}
