// One sandbox per data file, whatever the path: the file is locked (with svc's one
// lock module, ../lock.ts) beside its real path (`<real path>.lock`: symlinks are
// resolved first) and by its device and inode in the user's own lock folder
// (/tmp/svc-<uid>, whatever TMPDIR says), so a second name of it — a bind mount,
// `docker -v file:file` on this machine — cannot be opened by another sandbox. A file
// with more than one name (a hard link) is refused: its other names would be other
// paths to one inode, and the user meant a copy. A sandbox in another PID namespace
// (a container) holding the file is never taken for dead: the second one is refused,
// naming it. What this cannot see: a sandbox on another machine opening the file on a
// shared disk, whose lock folder is its own (the lock beside the file still meets it
// when the disk is the same folder).
import { closeSync, lstatSync, openSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { holderText, lockFolder, LockSetupError, tryLock, visible } from '../lock.js';
import { SandboxStartError } from './sandbox-error.js';

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
 * Takes the lock of the data file `file` (the name the user gave, used in messages),
 * without waiting. `busyHint` tells the user what to do when another sandbox holds it.
 */
export function lockDataFile(file: string, busyHint = 'detenelo o usá otro --data'): DataLock {
  const real = realPathOf(file);
  const shown = resolve(file) === real ? file : `${file} (${real})`;
  // A new file is created (empty, which the store reads as new) so that it has an
  // inode before any other path can reach it.
  let st: { dev: number; ino: number; nlink: number };
  try {
    closeSync(openSync(real, 'a', 0o600));
    st = statSync(real);
  } catch (err) {
    throw new SandboxStartError(`no se pudo abrir ${real}: ${(err as Error).message}`);
  }
  const beside = `${real}.lock`;
  const take = (path: string, other = '') => {
    let got;
    try {
      got = tryLock([path]);
    } catch (err) {
      if (err instanceof LockSetupError) throw new SandboxStartError(err.message);
      throw err;
    }
    if ('release' in got) return got;
    const h = got.holder;
    const who = h ? ` (pid ${h.pid}${visible(h) ? '' : `: ${holderText(h)}`})` : '';
    throw new SandboxStartError(
      `${shown} ya lo usa otro svc sandbox${who}; ${busyHint}${other} (si no hay otro, borrá ${path})`,
    );
  };
  const byPath = take(beside);
  if (st.nlink > 1) {
    byPath.release();
    throw new SandboxStartError(
      `${shown} tiene ${st.nlink} nombres (enlaces duros): otro svc sandbox podría usarlo por otro nombre sin verse bloqueado; usá una copia (cp) en vez de un enlace duro`,
    );
  }
  let byInode;
  try {
    byInode = take(
      join(lockFolder(), `${st.dev}-${st.ino}.lock`),
      ' (lo abrió por otra ruta: un montaje o un volumen del mismo archivo)',
    );
  } catch (err) {
    byPath.release();
    if (err instanceof LockSetupError) throw new SandboxStartError(err.message);
    throw err;
  }
  const release = () => {
    byInode.release();
    byPath.release();
  };
  return { path: beside, real, release };
}
