// svc's one cross-process lock: what refund plans, batches, the profile store and the
// sandbox's data file take before they act, so that two processes never act on one
// thing at once.
//
// A lock is a set of lock files, each made visible whole and at once (written under a
// private temporary name, then link(2), which fails when the name exists), holding who
// took it: {pid, host, boot, pidns, desde, id}. A thing is locked by what it is, not by
// the name it was given: beside the file (FILE.lock, what another machine sharing the
// folder sees), and in a folder of the user's own that does not depend on TMPDIR
// (/tmp/svc-<uid>, 0700) by its content's digest (a copy) and by its device and inode
// (a hard link, a bind mount). All are taken, in one order, or none is.
//
// A lock whose process is gone (kill -9, a power cut) must not block forever: a holder
// on this machine, this boot and this PID namespace whose pid no longer runs is stale
// and its lock is taken over. Taking over is serialised by LOCK.toma (O_EXCL), and the
// stale lock is removed only if it still holds what was judged stale, so a live lock
// taken in between is never removed. A holder svc cannot see (another host, another
// boot, another PID namespace: a container sharing the folder) is never judged stale:
// svc waits, then names it so a person can decide. A lock file svc cannot read as a
// holder (empty: written by an older svc, or being written) is held for 10 s after
// its last change, then stale.
import {
  closeSync,
  constants,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError, EXIT } from './errors.js';
import { printable } from './text.js';

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

export interface LockHolder {
  pid: number;
  host: string;
  /** The kernel's boot id (Linux): another boot is another machine as far as pids go. */
  boot?: string;
  /** The holder's PID namespace (Linux, `pid:[…]`): its pid means nothing in another one. */
  pidns?: string;
  desde: string;
}

/** Where the holder runs as this process sees it: its pid can be checked, or it cannot. */
export function visible(holder: LockHolder): boolean {
  const here = self();
  return (
    holder.host === here.host &&
    (holder.boot === undefined || holder.boot === here.boot) &&
    (holder.pidns === undefined || holder.pidns === here.pidns)
  );
}

/** A lock file's problem other than being held: its folder cannot be written, or is not safe. */
export class LockSetupError extends Error {
  override name = 'LockSetupError';
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

export interface HeldLock {
  /** The lock files held. */
  readonly paths: string[];
  /** Removes the lock files that are still ours; safe to call twice. */
  release(): void;
}

export interface Busy {
  /** The lock file held by someone else. */
  busy: string;
  /** Who holds it; undefined when its content is not a holder svc writes. */
  holder: LockHolder | undefined;
}

let here: Omit<LockHolder, 'desde'> | undefined;

function readOr(read: () => string): string | undefined {
  try {
    return read().trim() || undefined;
  } catch {
    return undefined;
  }
}

function self(): Omit<LockHolder, 'desde'> {
  here ??= {
    pid: process.pid,
    host: hostname(),
    boot: readOr(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8')),
    pidns: readOr(() => readlinkSync('/proc/self/ns/pid')),
  };
  // The pid as of now (a forked test worker is another process).
  return { ...here, pid: process.pid };
}

/** Whether a process with this pid runs here (EPERM: it runs, as another user). */
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
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : '';
  }
}

/** The holder a lock file names; a bare pid (what older sandboxes wrote) is a holder of this machine. */
export function parseHolder(text: string | undefined): LockHolder | undefined {
  if (!text) return undefined;
  if (/^[1-9][0-9]{0,9}\n?$/.test(text))
    return { pid: Number(text.trim()), host: hostname(), desde: '' };
  try {
    const h = JSON.parse(text) as LockHolder;
    return Number.isSafeInteger(h?.pid) &&
      h.pid > 0 &&
      typeof h.host === 'string' &&
      (h.boot === undefined || typeof h.boot === 'string') &&
      (h.pidns === undefined || typeof h.pidns === 'string')
      ? h
      : undefined;
  } catch {
    return undefined;
  }
}

/** How long a lock file with no holder in it (an older svc's, or one being written) is respected. */
const UNREADABLE_STALE_MS = 10_000;
/** A takeover that was itself interrupted (kill -9 within its few ms) is given up after this long. */
const TAKEOVER_STALE_MS = 10_000;

function olderThan(path: string, ms: number): boolean {
  try {
    return Date.now() - lstatSync(path).mtimeMs > ms;
  } catch {
    return false;
  }
}

/** Whether the lock at `path`, holding `holder`, is left by a process that is gone. */
function stale(path: string, holder: LockHolder | undefined): boolean {
  if (holder === undefined) return olderThan(path, UNREADABLE_STALE_MS);
  return visible(holder) && !processAlive(holder.pid);
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

/** Removes the lock at `path` if it is still exactly `seen`; false when someone else is taking over. */
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
    if (olderThan(toma, TAKEOVER_STALE_MS)) rmSync(toma, { force: true });
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

/** Takes one lock file: true, or who holds it. */
function takeOne(path: string, mine: string): true | Busy {
  for (let round = 0; round < 3; round++) {
    let made: boolean;
    try {
      made = createWhole(path, mine);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new LockSetupError(
        code === 'EACCES' || code === 'EROFS' || code === 'EPERM'
          ? `la carpeta de ${path} no admite escritura`
          : (err as Error).message,
        code,
      );
    }
    if (made) return true;
    const seen = readText(path);
    if (seen === undefined) continue; // released between the two calls
    const holder = parseHolder(seen);
    if (!stale(path, holder)) return { busy: path, holder };
    try {
      takeOver(path, seen);
    } catch {
      // A stale lock svc cannot remove (its folder turned read-only): still someone's to clear.
      return { busy: path, holder };
    }
  }
  return { busy: path, holder: parseHolder(readText(path)) };
}

const held = new Set<() => void>();
let exitHook = false;

/** Takes every lock file of `paths` (in one order, so two takers never deadlock), or none: the lock, or who holds one. */
export function tryLock(paths: string[]): HeldLock | Busy {
  const sorted = [...new Set(paths)].sort();
  const mine = JSON.stringify({
    ...self(),
    desde: new Date().toISOString(),
    id: process.getBuiltinModule('node:crypto').randomBytes(6).toString('hex'),
  });
  const taken: string[] = [];
  const release = () => {
    held.delete(release);
    // Only our own: never a lock taken over after ours was judged stale.
    for (const p of taken.splice(0)) if (readText(p) === mine) rmSync(p, { force: true });
  };
  try {
    for (const p of sorted) {
      const got = takeOne(p, mine);
      if (got !== true) {
        release();
        return got;
      }
      taken.push(p);
    }
  } catch (err) {
    release();
    throw err;
  }
  held.add(release);
  if (!exitHook) {
    exitHook = true;
    // An exit through process.exit (Ctrl-C at a prompt) still frees what it held.
    process.on('exit', () => {
      for (const r of [...held]) r();
    });
  }
  return { paths: sorted, release };
}

export interface WaitOptions {
  /** How long to wait for a holder before giving up (ms). */
  maxWaitMs: number;
  /** Called once, when svc starts waiting. */
  onWait?: (busy: Busy) => void;
}

const isHeld = (r: HeldLock | Busy): r is HeldLock => 'release' in r;

/** tryLock, again every 20–50 ms while held by someone else, up to `maxWaitMs`: the lock, or who still holds it. */
export async function waitLock(paths: string[], o: WaitOptions): Promise<HeldLock | Busy> {
  const started = Date.now();
  let waited = false;
  for (;;) {
    const r = tryLock(paths);
    if (isHeld(r) || Date.now() - started > o.maxWaitMs) return r;
    if (!waited) {
      waited = true;
      o.onWait?.(r);
    }
    // Jitter: several waiters do not wake in step.
    await new Promise((res) => setTimeout(res, 20 + Math.floor(Math.random() * 30)));
  }
}

/** waitLock for synchronous callers (the profile store): the thread sleeps between tries. */
export function waitLockSync(paths: string[], maxWaitMs: number): HeldLock | Busy {
  const started = Date.now();
  const nap = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    const r = tryLock(paths);
    if (isHeld(r) || Date.now() - started > maxWaitMs) return r;
    Atomics.wait(nap, 0, 0, 20 + Math.floor(Math.random() * 10));
  }
}

/**
 * The user's own lock folder, /tmp/svc-<uid> (not TMPDIR: two processes with another
 * TMPDIR must meet there), made 0700; refused when it is not a folder of this user's
 * alone (someone else's could hold or drop our locks).
 */
export function lockFolder(): string {
  const uid = process.getuid?.();
  const dir =
    process.platform === 'win32' ? join(tmpdir(), 'svc-locks') : `/tmp/svc-${uid ?? 'user'}`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const own = lstatSync(dir);
    if (
      !own.isDirectory() ||
      (uid !== undefined && own.uid !== uid) ||
      (process.platform !== 'win32' && (own.mode & 0o077) !== 0)
    )
      throw new Error(`${dir} no es una carpeta privada de este usuario`);
  } catch (err) {
    throw new LockSetupError(
      `no se pudo preparar la carpeta de bloqueos ${dir}: ${(err as Error).message}`,
    );
  }
  return dir;
}

/**
 * The lock files of a file, by what it is: beside it (FILE.lock), and in the user's
 * lock folder by `digest` (the same content under any name) and by its device and
 * inode (a hard link or a mount of it). `kind` keeps digests of different things apart.
 */
export function lockPathsOf(file: string, kind: string, digest?: string): string[] {
  const dir = lockFolder();
  const paths = [`${file}.lock`];
  if (digest !== undefined) paths.push(join(dir, `${kind}-${digest.replace(/^sha256:/, '')}.lock`));
  try {
    const st = statSync(file);
    paths.push(join(dir, `${st.dev}-${st.ino}.lock`));
  } catch {
    // Not there: nothing else reaches it either.
  }
  return paths;
}

/** Who holds a lock, for a person: the process, where, since when, and whether svc can see it. */
export function holderText(h: LockHolder | undefined): string {
  if (h === undefined) return 'otro proceso';
  const since = h.desde ? `, desde ${printable(String(h.desde))}` : '';
  const unseen = visible(h)
    ? ''
    : h.host !== self().host
      ? ' (otra máquina: svc no puede ver si sigue vivo)'
      : ' (otro espacio de procesos, como un contenedor, u otro arranque: svc no puede ver si sigue vivo)';
  return `el proceso ${h.pid} en ${printable(h.host)}${unseen}${since}`;
}

/** A lock held by someone else for longer than svc waits: exit 1, naming who holds it. */
export class LockBusy extends CliError {
  override name = 'LockBusy';
  constructor(message: string, suggestion?: string) {
    super(message, { exit: EXIT.refused, code: 'plan_locked', hint: suggestion });
  }
}

export interface FileLockOptions {
  /** What the lock protects, for messages ("el plan x.json"). */
  what: string;
  /** What is done under it, for messages ("aplicando", "creando los cobros de"). */
  kind: 'plan' | 'lote';
  /** The content's digest: a copy under another name waits for the same lock. */
  digest: string;
  /** Called once, when the lock is held by someone else and svc starts waiting. */
  onWait?: (holder: LockHolder | undefined) => void;
  /** How long to wait for another holder before giving up (ms); 2 minutes. */
  maxWaitMs?: number;
}

/**
 * Locks a plan or a batch file by what it is (lockPathsOf), waiting while another
 * process holds it: LockBusy after `maxWaitMs`, naming the holder; a folder where
 * nothing can be written is an error of its own (exit 1, nothing done).
 */
export async function lockFile(file: string, o: FileLockOptions): Promise<HeldLock> {
  let r: HeldLock | Busy;
  try {
    r = await waitLock(lockPathsOf(file, o.kind, o.digest), {
      maxWaitMs: o.maxWaitMs ?? 120_000,
      onWait: (b) => o.onWait?.(b.holder),
    });
  } catch (err) {
    if (!(err instanceof LockSetupError)) throw err;
    throw new CliError(`no se pudo bloquear ${o.what} (${err.message}): no se hizo nada`, {
      exit: EXIT.refused,
      code: 'plan_refused',
    });
  }
  if (isHeld(r)) return r;
  throw new LockBusy(
    `${o.what} lo está usando ${holderText(r.holder)}: no se hizo nada`,
    `${r.holder && !visible(r.holder) ? 'preguntale a quien lo corrió; ' : ''}si ese proceso ya no existe, borrá ${r.busy} y volvé a intentarlo`,
  );
}
