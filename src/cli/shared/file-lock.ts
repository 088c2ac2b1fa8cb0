// An exclusive lock on a file that holds across processes: FILE.lock beside it,
// made visible whole and at once (written to a private temp name, then link(2),
// which fails when the name exists), holding who took it {pid, host, desde}.
// Used where two people (or a script run twice) could act on one plan at the same
// moment: whoever holds the lock checks and writes; the other waits, then sees
// what was written.
//
// A lock whose process is gone (kill -9, a power cut) must not block the plan
// forever: on the same machine a lock whose pid no longer runs is stale and is
// taken over. Taking over is itself serialised by FILE.lock.toma (O_EXCL), and
// the stale lock is removed only if it is still the one judged stale, so a live
// lock taken in between is never removed. A lock from another machine (a shared
// folder) cannot be judged: svc waits, then names it so a person can decide.
import {
  closeSync,
  constants,
  linkSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { CliError, EXIT } from '../../errors.js';
import { printable } from '../../text.js';

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

export interface LockHolder {
  pid: number;
  host: string;
  desde: string;
}

export interface FileLock {
  readonly path: string;
  /** Removes the lock if it is still ours; safe to call twice. */
  release(): void;
}

export interface LockOptions {
  /** Called once, when the lock is held by someone else and svc starts waiting. */
  onWait?: (holder: LockHolder | undefined) => void;
  /** How long to wait for another holder before giving up (ms). */
  maxWaitMs?: number;
  /** What the lock protects, for messages ("el plan x.json"). */
  what: string;
}

/** A lock held by someone else for longer than svc waits: exit 1, naming who holds it. */
export class LockBusy extends CliError {
  override name = 'LockBusy';
  constructor(message: string, suggestion?: string) {
    super(message, { exit: EXIT.refused, code: 'plan_locked', hint: suggestion });
  }
}

/** Whether a process with this pid runs on this machine (EPERM: it runs, as another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function parseHolder(text: string | undefined): LockHolder | undefined {
  if (!text) return undefined;
  try {
    const h = JSON.parse(text) as LockHolder;
    return Number.isSafeInteger(h?.pid) && h.pid > 0 && typeof h.host === 'string' ? h : undefined;
  } catch {
    return undefined;
  }
}

/** Creates `path` with `text` only if it does not exist; false when it does. Never through a link. */
function createWhole(path: string, text: string): boolean {
  const tmp = `${path}.${process.pid}.${process.getBuiltinModule('node:crypto').randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(
    tmp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW,
    0o600,
  );
  try {
    const bytes = Buffer.from(text);
    for (let off = 0; off < bytes.length;) off += writeSync(fd, bytes, off, bytes.length - off);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** A takeover that was itself interrupted (kill -9 within its few ms) is given up after this long. */
const TAKEOVER_STALE_MS = 10_000;

/** Removes the lock at `path` if it is still exactly `seen` (a stale lock); false when someone else is taking over. */
function takeOver(path: string, seen: string): boolean {
  const toma = `${path}.toma`;
  let fd: number;
  try {
    fd = openSync(
      toma,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW,
      0o600,
    );
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    try {
      if (Date.now() - statSync(toma).mtimeMs > TAKEOVER_STALE_MS) rmSync(toma, { force: true });
    } catch {
      // Gone meanwhile: the next round tries again.
    }
    return false;
  }
  closeSync(fd);
  try {
    if (readText(path) === seen) rmSync(path, { force: true });
    return true;
  } finally {
    rmSync(toma, { force: true });
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Takes the lock on `file` (FILE.lock), waiting while another live process holds
 * it. LockBusy after `maxWaitMs`; a folder where nothing can be written is an error
 * of its own (the plan could not be marked either).
 */
export async function lockFile(file: string, options: LockOptions): Promise<FileLock> {
  const path = `${file}.lock`;
  const host = hostname();
  const mine = JSON.stringify({
    pid: process.pid,
    host,
    desde: new Date().toISOString(),
  } satisfies LockHolder);
  const started = Date.now();
  const maxWait = options.maxWaitMs ?? 120_000;
  let waited = false;
  for (;;) {
    let made: boolean;
    try {
      made = createWhole(path, mine);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new CliError(
        `no se pudo bloquear ${options.what} para aplicarlo (${code === 'EACCES' || code === 'EROFS' ? 'su carpeta no admite escritura' : (err as Error).message}): no se aplicó nada`,
        { exit: EXIT.refused, code: 'plan_refused' },
      );
    }
    if (made) return ownLock(path, mine);
    const seen = readText(path);
    if (seen === undefined) continue; // released between the two calls
    const holder = parseHolder(seen);
    // A lock of this machine whose process is gone, or one that is not a lock svc writes, is stale.
    if (holder === undefined || (holder.host === host && !processAlive(holder.pid))) {
      if (takeOver(path, seen)) continue;
    } else if (!waited) {
      waited = true;
      options.onWait?.(holder);
    }
    if (Date.now() - started > maxWait) {
      const who = holder
        ? `el proceso ${holder.pid} en ${printable(holder.host)}, desde ${printable(String(holder.desde))}`
        : 'otro proceso';
      throw new LockBusy(
        `${options.what} lo está aplicando ${who}: no se aplicó nada`,
        `si ese proceso ya no existe, borrá ${path} y volvé a intentarlo`,
      );
    }
    // Jitter: several waiters do not wake in step.
    await sleep(20 + Math.floor(Math.random() * 30));
  }
}

function ownLock(path: string, mine: string): FileLock {
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    process.off('exit', release);
    // Only our own lock: never one taken over after ours was judged stale.
    if (readText(path) === mine) rmSync(path, { force: true });
  };
  // An exit through process.exit (Ctrl-C at the prompt) still frees the plan.
  process.on('exit', release);
  return { path, release };
}
