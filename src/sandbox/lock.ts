// One sandbox per data file: `<file>.lock` holds the pid of the sandbox using it.
// Two sandboxes appending to one journal would each hand out the same ids and the
// file would replay as neither of them; the second is refused before it reads a byte.
// A lock left by a sandbox that died without closing (kill -9) names a pid that no
// longer runs and is taken over. (Two sandboxes taking over the same stale lock in
// the same instant could both win; a laptop's sandbox does not meet that race.)
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { SandboxStartError } from './errors.js';

export interface DataLock {
  path: string;
  release(): void;
}

export function lockDataFile(file: string): DataLock {
  const path = `${file}.lock`;
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
          `${file} ya lo usa otro svc sandbox${holder === 'empty' ? '' : ` (pid ${holder})`}; detenelo o usá otro --data (si no hay otro, borrá ${path})`,
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
  throw new SandboxStartError(`no se pudo tomar ${path}: otro svc sandbox lo está tomando; probá de nuevo`);
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
