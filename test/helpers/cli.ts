// Runs the built CLI (bin/svc.js) as a user would, with an isolated config folder.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type Options } from 'execa';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'bin', 'svc.js');

/** Made when a test runs without temp-root.ts (no run's folder set): this process's own, in the system's. */
let ownRoot: string | undefined;

/** The run's temporary folder (test/helpers/temp-root.ts), removed when the run ends. */
function runFolder(): string {
  return process.env.SVC_TEST_TMPDIR ?? (ownRoot ??= mkdtempSync(join(tmpdir(), 'svc-test-')));
}

/** A new folder under the run's temporary folder. */
export function tempDir(prefix = 'svc-test-'): string {
  return mkdtempSync(join(runFolder(), prefix));
}

let unmade = 0;

/**
 * A config and a data folder of its own for one run of svc, for each that `env` does not
 * name itself: a new path under the run's temporary folder that nothing has made yet.
 * svc makes its folders when it first writes, as on a fresh machine. Most runs write
 * nothing: made up front, they were 4,399 of the 4,924 entries a whole run left in its
 * folder (945 now), and removing them at its end took 0.82 s (0.14 s now).
 */
export function ownFolders(env: Record<string, string | undefined> = {}): {
  SVC_CONFIG_DIR?: string;
  SVC_DATA_DIR?: string;
} {
  const unmadeDir = (prefix: string) => join(runFolder(), `${prefix}${process.pid}-${++unmade}`);
  return {
    ...('SVC_CONFIG_DIR' in env ? {} : { SVC_CONFIG_DIR: unmadeDir('svc-config-') }),
    ...('SVC_DATA_DIR' in env ? {} : { SVC_DATA_DIR: unmadeDir('svc-data-') }),
  };
}

/** A config folder holding these profiles (the first is current), as svc login would leave it. */
export function configWith(profiles: Record<string, Record<string, string>>): string {
  const dir = tempDir('svc-config-');
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({ current: Object.keys(profiles)[0], profiles }),
    { mode: 0o600 },
  );
  return dir;
}

/** The profiles a config folder holds now. */
export const profilesIn = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles;

export interface SvcOptions {
  env?: Record<string, string | undefined>;
  input?: string | Buffer;
  inputFile?: string;
  timeout?: number;
  cwd?: string;
}

export interface SvcResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `svc ...args` as a process of the built bin/svc.js: for what only a process
 * has (its wiring, signals, stdin, exit code from the OS), once per behaviour; matrices
 * run `svc` of inproc.ts. The config folder is a fresh temp dir unless SVC_CONFIG_DIR is
 * given; colours off; no OS keyring; never a TTY. Never rejects: assert on exitCode.
 */
export async function svcSpawned(args: string[], options: SvcOptions = {}): Promise<SvcResult> {
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...ownFolders(options.env),
    NO_COLOR: '1',
    // The OS keyring is per user, not per test: only test/config/keyring.test.ts uses one (its own).
    SVC_KEYRING: 'off',
    ...options.env,
  };
  const opts: Options = {
    env: env as NodeJS.ProcessEnv,
    extendEnv: false,
    reject: false,
    timeout: options.timeout ?? 60_000,
    cwd: options.cwd ?? ROOT,
    stripFinalNewline: false,
    ...(options.input !== undefined
      ? { input: options.input }
      : options.inputFile
        ? { inputFile: options.inputFile }
        : { stdin: 'ignore' as const }),
  };
  // Read as the three fields used: a cast to execa's Result made the typecheck work out
  // how its generic result types relate, the costliest comparison in the whole check.
  const r: { exitCode?: number; stdout?: unknown; stderr?: unknown } = await execa(
    'node',
    [BIN, ...args],
    opts,
  );
  return {
    exitCode: r.exitCode ?? -1,
    stdout: String(r.stdout ?? ''),
    stderr: String(r.stderr ?? ''),
  };
}

/** Fails the test when a stack trace reached the user. */
export function expectNoStack(text: string): void {
  if (/\n\s+at .+\(.+:\d+:\d+\)/.test(text) || /\bat file:\/\//.test(text)) {
    throw new Error(`a stack trace reached the user:\n${text}`);
  }
}
