// One sandbox per data file: `<real path>.lock` holds the pid of the sandbox using it.
// Two sandboxes appending to one journal would each hand out the same ids and the
// file would replay as neither of them; the second is refused before it reads a byte.
// The lock belongs to the file, not to the name given: symlinks are resolved to the
// real path first, and a file with more than one name (a hard link: one device+inode,
// two paths) is refused, since its other names would lock elsewhere. A file reached by
// a path that is neither (a bind mount, `docker -v file:file` on this machine) is the
// same device and inode: the file is locked under that key too, in a folder
// of the user's own (svc-sandbox-<uid> in the system's temp folder), so no second name
// of it can be opened by another sandbox of this machine.
// A lock left by a sandbox that died without closing (kill -9) names a pid that no
// longer runs and is taken over. (Two sandboxes taking over the same stale lock in
// the same instant could both win; a laptop's sandbox does not meet that race.)
import {
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { SandboxStartError } from './errors.js';

export interface DataLock {
  path: string;
  /** The data file's real path (symlinks resolved): where it is read, appended and replaced. */
  real: string;
  release(): void;
}

/**
 * The real path of `file`: its target when it is a symlink, its folder's real path
 * plus its name when it does not exist yet.
 */
export function realPathOf(file: string): string {
  try {
    return realpathSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new SandboxStartError(`no se pudo abrir ${file}: ${(err as Error).message}`);
  }
  let dangling = false;
  try {
    dangling = lstatSync(file).isSymbolicLink();
  } catch {
    // not there at all: a new file
  }
  if (dangling)
    throw new SandboxStartError(
      `${file} es un enlace a un archivo que no existe; usá la ruta del archivo de datos`,
    );
  try {
    return join(realpathSync(dirname(resolve(file))), basename(file));
  } catch (err) {
    throw new SandboxStartError(
      `no se pudo usar ${file}: la carpeta no existe o no se puede leer (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}

/**
 * Takes the lock of the data file `file` (the name the user gave, used in messages).
 * `busyHint` tells the user what to do when another sandbox holds it.
 */
export function lockDataFile(file: string, busyHint = 'detenelo o usá otro --data'): DataLock {
  const real = realPathOf(file);
  const shown = resolve(file) === real ? file : `${file} (${real})`;
  const byPath = takeLockFile(`${real}.lock`, shown, busyHint);
  const links = linkCount(real);
  if (links > 1) {
    byPath.release();
    throw new SandboxStartError(
      `${shown} tiene ${links} nombres (enlaces duros): otro svc sandbox podría usarlo por otro nombre sin verse bloqueado; usá una copia (cp) en vez de un enlace duro`,
    );
  }
  let byInode: { release(): void } | undefined;
  try {
    const key = inodeLockPath(real);
    byInode = takeLockFile(
      key,
      shown,
      `${busyHint} (lo abrió por otra ruta: un montaje o un volumen del mismo archivo)`,
    );
  } catch (err) {
    byPath.release();
    throw err;
  }
  return {
    path: byPath.path,
    real,
    release() {
      byInode?.release();
      byPath.release();
    },
  };
}

/**
 * The lock named after the file's device and inode, in a folder of this user's own.
 * A new file is created (empty, which the store reads as new) so that it has an inode
 * before any other path can reach it.
 */
function inodeLockPath(real: string): string {
  let st: { dev: number; ino: number };
  try {
    closeSync(openSync(real, 'a', 0o600));
    st = statSync(real);
  } catch (err) {
    throw new SandboxStartError(`no se pudo abrir ${real}: ${(err as Error).message}`);
  }
  const dir = join(tmpdir(), `svc-sandbox-${process.getuid?.() ?? 'user'}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // A folder someone else made in its place would let them hold or drop our locks.
    const own = lstatSync(dir);
    if (
      !own.isDirectory() ||
      (process.getuid && own.uid !== process.getuid()) ||
      (own.mode & 0o077) !== 0
    ) {
      throw new Error(`${dir} no es una carpeta privada de este usuario`);
    }
  } catch (err) {
    throw new SandboxStartError(
      `no se pudo preparar la carpeta de bloqueos ${dir}: ${(err as Error).message}`,
    );
  }
  return join(dir, `${st.dev}-${st.ino}.lock`);
}

/** Creates the lock file `path` holding this pid, taking over one whose sandbox no longer runs. */
function takeLockFile(
  path: string,
  shown: string,
  busyHint: string,
): { path: string; release(): void } {
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o600);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST')
        throw new SandboxStartError(`no se pudo crear ${path}: ${(err as Error).message}`);
      const holder = holderOf(path);
      if (holder === 'gone') continue; // released in the meantime
      // An empty lock is one being written right now: held.
      if (holder === 'empty' || running(holder)) {
        throw new SandboxStartError(
          `${shown} ya lo usa otro svc sandbox${holder === 'empty' ? '' : ` (pid ${holder})`}; ${busyHint} (si no hay otro, borrá ${path})`,
        );
      }
      try {
        unlinkSync(path); // left by a sandbox that no longer runs
      } catch {
        // another start removed it first: try again
      }
      continue;
    }
    try {
      writeSync(fd, `${process.pid}\n`);
    } finally {
      closeSync(fd);
    }
    return {
      path,
      release() {
        // Only our own lock: never one a later sandbox took over.
        if (holderOf(path) === process.pid) {
          try {
            unlinkSync(path);
          } catch {
            // already gone
          }
        }
      },
    };
  }
  throw new SandboxStartError(
    `no se pudo tomar ${path}: otro svc sandbox lo está tomando; probá de nuevo`,
  );
}

function linkCount(real: string): number {
  try {
    return statSync(real).nlink;
  } catch {
    return 1; // a new file: this sandbox creates its only name
  }
}

/** The pid in the lock; 'empty' while it is being written (or unreadable); 'gone' when there is none. */
function holderOf(path: string): number | 'empty' | 'gone' {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : 'empty';
  }
  const pid = Number(text.trim());
  return text.trim() !== '' && Number.isSafeInteger(pid) && pid > 0 ? pid : 'empty';
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
