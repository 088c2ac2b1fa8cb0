// Files and folders that hold secrets: the checks svc makes before trusting one
// (owner, mode, symlinks); svc writes one only through replaceFile (src/durable.ts),
// never through a link.
//
// The rules follow ssh's StrictModes: a folder that others can write lets them
// swap the file; a file others can read leaks the keys; a link lets whoever
// controls its target choose what svc reads and where it writes. svc refuses
// each with one line naming the path and the command that fixes it, and never
// repairs anything silently: a loosened mode may mean the keys were already
// exposed, and the person should know. POSIX only: Windows has no owner/mode
// bits to check (its ACLs on %APPDATA% are per user), so only links are refused there.
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
  type Stats,
} from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Each reason svc refuses a folder or file that holds secrets, by name: the `problem`
 * of the refusal under --json (docs/salida-y-codigos.md, "Problemas de configuración", lists them).
 */
export type UnsafeProblem =
  | 'folder_unreadable'
  | 'not_a_folder'
  | 'folder_not_yours'
  | 'folder_writable'
  | 'parent_writable'
  | 'not_a_file'
  | 'file_not_yours'
  | 'file_readable'
  | 'file_symlink'
  | 'file_hard_links';

/** Why a path must not hold secrets: its name and one line naming the path and the fix. */
export interface Unsafe {
  problem: UnsafeProblem;
  message: string;
}

const unsafe = (problem: UnsafeProblem, message: string): Unsafe => ({ problem, message });

/** A path svc will not use; the message is one line, naming the path and the fix. */
export class PrivatePathError extends Error {
  override name = 'PrivatePathError';
  constructor(
    readonly why: Unsafe,
    readonly path: string,
  ) {
    super(why.message);
  }
}

// Windows lacks O_NOFOLLOW; links are refused there by the lstat before opening.
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** The uid files must belong to, or undefined where there are no uids (Windows). */
function myUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

/** A path as it can be pasted into a POSIX shell. */
export function shellPath(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

function octal(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}

function linkTarget(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '?';
  }
}

export interface FolderLabels {
  /** How the folder is named in messages, e.g. "la carpeta de configuración". */
  what: string;
  /** What to do when the folder belongs to someone else and we are not root, e.g. "definí SVC_CONFIG_DIR con una carpeta tuya". */
  elsewhere: string;
}

/**
 * Why `dir` must not hold secrets, or undefined when it may (a missing folder may:
 * svc creates it 0700). A symlinked folder is judged by its target: dotfile
 * managers (stow, chezmoi, home-manager) link ~/.config/svc into a repository,
 * and what protects the files is who can change the target folder, as ssh
 * judges ~/.ssh by the folder it reaches. A target that is not the person's own,
 * or that others can write (a link to /tmp), is refused.
 */
export function folderProblem(dir: string, labels: FolderLabels): Unsafe | undefined {
  let st: Stats;
  try {
    st = lstatSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return parentProblem(dir, labels);
    return unsafe(
      'folder_unreadable',
      `no se pudo revisar ${labels.what} ${dir}: ${(err as Error).message}`,
    );
  }
  let shown = dir;
  let isLink = false;
  if (st.isSymbolicLink()) {
    isLink = true;
    const target = linkTarget(dir);
    shown = `${dir} (enlace a ${target})`;
    try {
      st = statSync(dir);
    } catch {
      return unsafe(
        'not_a_folder',
        `${labels.what} ${shown} es un enlace roto: borralo con \`rm ${shellPath(dir)}\` y svc la crea de nuevo`,
      );
    }
  }
  if (!st.isDirectory()) {
    return unsafe(
      'not_a_folder',
      `${labels.what} ${shown} no es una carpeta: movelo (\`mv ${shellPath(dir)} ${shellPath(`${dir}.viejo`)}\`) y svc la crea de nuevo`,
    );
  }
  const me = myUid();
  if (me === undefined) return undefined;
  if (st.uid !== me) {
    const fix = isLink
      ? `borrá el enlace con \`rm ${shellPath(dir)}\` y svc crea la carpeta de nuevo`
      : me === 0
        ? `corré \`chown -R 0 ${shellPath(dir)}\``
        : labels.elsewhere;
    return unsafe(
      'folder_not_yours',
      `${labels.what} ${shown} pertenece a otro usuario (uid ${st.uid}), no a vos (uid ${me}): ${fix}`,
    );
  }
  if (st.mode & 0o022) {
    const who = st.mode & 0o002 ? 'cualquier usuario' : 'su grupo';
    const unlink = `borrá el enlace con \`rm ${shellPath(dir)}\` y svc crea la carpeta de nuevo`;
    // A sticky shared folder (/tmp) is never the person's to tighten: only the link is.
    const fix =
      st.mode & 0o1000
        ? isLink
          ? unlink
          : labels.elsewhere
        : isLink
          ? `corré \`chmod 700 ${shellPath(realpathOr(dir))}\` o ${unlink}`
          : `corré \`chmod 700 ${shellPath(dir)}\``;
    return unsafe(
      'folder_writable',
      `${labels.what} ${shown} tiene permisos ${octal(st.mode)}: ${who} puede cambiar sus archivos; ${fix}`,
    );
  }
  return parentProblem(dir, labels);
}

/**
 * A folder above `dir` that anyone can write and that lacks the sticky bit lets anyone
 * rename `dir` away and put their own in its place, keys and all, however tight `dir`
 * itself is (ssh refuses such a path too). Both the path as given and the folder it
 * reaches through links are walked up to /; a sticky one (/tmp) only lets its owners
 * rename their own entries.
 */
function parentProblem(dir: string, labels: FolderLabels): Unsafe | undefined {
  const me = myUid();
  if (me === undefined) return undefined;
  const starts = [resolve(dir)];
  try {
    starts.push(realpathSync(dir));
  } catch {
    // Not there yet: svc would create it under the path as given.
  }
  const seen = new Set<string>();
  for (const start of starts) {
    for (let up = dirname(start); !seen.has(up); up = dirname(up)) {
      seen.add(up);
      let st: Stats;
      try {
        st = statSync(up);
      } catch {
        continue;
      }
      if (st.mode & 0o002 && !(st.mode & 0o1000)) {
        const fix = st.uid === me ? `corré \`chmod o-w ${shellPath(up)}\`` : labels.elsewhere;
        return unsafe(
          'parent_writable',
          `${labels.what} ${dir} está dentro de ${up}, que cualquier usuario puede cambiar (permisos ${octal(st.mode)}, sin sticky bit): otro puede reemplazar la carpeta y sus claves; ${fix}`,
        );
      }
    }
  }
  return undefined;
}

function realpathOr(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

/** Why an opened file must not be trusted with secrets, or undefined. */
function fileProblem(path: string, st: Stats, what: string): Unsafe | undefined {
  if (!st.isFile())
    return unsafe(
      'not_a_file',
      `${what} ${path} no es un archivo común: borralo con \`rm ${shellPath(path)}\` y volvé a correr \`svc login\``,
    );
  const me = myUid();
  if (me === undefined) return undefined;
  if (st.uid !== me) {
    const fix =
      me === 0
        ? `corré \`chown 0 ${shellPath(path)}\``
        : `borralo con \`rm ${shellPath(path)}\` y volvé a correr \`svc login\``;
    return unsafe(
      'file_not_yours',
      `${what} ${path} pertenece a otro usuario (uid ${st.uid}), no a vos (uid ${me}): ${fix}`,
    );
  }
  // As ssh with a private key: any access for group or others is refused, not
  // only writing, since the file holds keys.
  if (st.mode & 0o077) {
    const who = st.mode & 0o007 ? 'otros usuarios' : 'su grupo';
    const how = st.mode & 0o022 ? 'leerlo y cambiarlo' : 'leer las claves';
    return unsafe(
      'file_readable',
      `${what} ${path} tiene permisos ${octal(st.mode)}: ${who} puede${who === 'su grupo' ? '' : 'n'} ${how}; corré \`chmod 600 ${shellPath(path)}\``,
    );
  }
  // Another name for the same file (a hard link) reads the keys from wherever it sits,
  // and keeps the old ones after svc replaces the file (rename leaves it behind).
  if (st.nlink > 1) {
    return unsafe(
      'file_hard_links',
      `${what} ${path} tiene ${st.nlink} nombres (enlaces duros): otro nombre lee las mismas claves y las guarda después de \`svc logout\`; buscalo con \`find / -xdev -samefile ${shellPath(path)}\`, borralo y, si no sabés quién lo creó, cambiá las claves`,
    );
  }
  return undefined;
}

function symlinkProblem(path: string, what: string): Unsafe {
  return unsafe(
    'file_symlink',
    `${what} ${path} es un enlace simbólico (a ${linkTarget(path)}) y svc no lee ni escribe claves a través de enlaces: borralo con \`rm ${shellPath(path)}\` y volvé a correr \`svc login\``,
  );
}

/**
 * The text of a file that holds secrets, or undefined when it does not exist.
 * The checks are made on the opened descriptor (fstat), so the file judged is
 * the file read; O_NOFOLLOW refuses a link at the last component.
 */
export function readPrivateFile(path: string, what: string): string | undefined {
  if (NOFOLLOW === 0) {
    try {
      if (lstatSync(path).isSymbolicLink())
        throw new PrivatePathError(symlinkProblem(path, what), path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO planted at the name must not hang svc before fstat refuses it.
    fd = openSync(path, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP' || code === 'EMLINK')
      throw new PrivatePathError(symlinkProblem(path, what), path);
    throw err;
  }
  try {
    const problem = fileProblem(path, fstatSync(fd), what);
    if (problem) throw new PrivatePathError(problem, path);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** Creates a lock file exclusively, never through a link; false when it already exists. */
export function createLockFile(path: string): boolean {
  try {
    closeSync(
      openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600),
    );
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}
