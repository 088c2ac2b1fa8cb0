// One sandbox per data file: `<real path>.lock` holds the pid of the sandbox using it.
// Two sandboxes appending to one journal would each hand out the same ids and the
// file would replay as neither of them; the second is refused before it reads a byte.
// The lock belongs to the file, not to the name given: symlinks are resolved to the
// real path first, and a file with more than one name (a hard link: one device+inode,
// two paths) is refused, since its other names would lock elsewhere.
// A lock left by a sandbox that died without closing (kill -9) names a pid that no
// longer runs and is taken over. (Two sandboxes taking over the same stale lock in
// the same instant could both win; a laptop's sandbox does not meet that race.)
import { closeSync, lstatSync, openSync, readFileSync, realpathSync, statSync, unlinkSync, writeSync } from 'node:fs';
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
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new SandboxStartError(`no se pudo abrir ${file}: ${(err as Error).message}`);
  }
  let dangling = false;
  try {
    dangling = lstatSync(file).isSymbolicLink();
  } catch {
    // not there at all: a new file
  }
  if (dangling) throw new SandboxStartError(`${file} es un enlace a un archivo que no existe; usá la ruta del archivo de datos`);
  try {
    return join(realpathSync(dirname(resolve(file))), basename(file));
  } catch (err) {
    throw new SandboxStartError(`no se pudo usar ${file}: la carpeta no existe o no se puede leer (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/**
 * Takes the lock of the data file `file` (the name the user gave, used in messages).
 * `busyHint` tells the user what to do when another sandbox holds it.
 */
export function lockDataFile(file: string, busyHint = 'detenelo o usá otro --data'): DataLock {
  const real = realPathOf(file);
  const path = `${real}.lock`;
  const shown = resolve(file) === real ? file : `${file} (${real})`;
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o600);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') throw new SandboxStartError(`no se pudo crear ${path}: ${(err as Error).message}`);
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
    const lock: DataLock = {
      path,
      real,
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
    const links = linkCount(real);
    if (links > 1) {
      lock.release();
      throw new SandboxStartError(
        `${shown} tiene ${links} nombres (enlaces duros): otro svc sandbox podría usarlo por otro nombre sin verse bloqueado; usá una copia (cp) en vez de un enlace duro`,
      );
    }
    return lock;
  }
  throw new SandboxStartError(`no se pudo tomar ${path}: otro svc sandbox lo está tomando; probá de nuevo`);
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
