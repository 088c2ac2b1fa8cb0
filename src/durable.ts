// Writing files that must survive a crash or a power cut, in one place. A write
// reaches the page cache, which a killed process cannot tell from the disk; only an
// fsync (or fdatasync) puts it on the disk, and a new name in a folder (a created
// file, a rename) is on the disk only once the folder is fsynced too. Every file
// svc promises to keep goes through here:
// - replaceFile: a whole file replaced atomically (config.json, a plan marked
//   applied, a batch's result, the sandbox's compacted data file): a new temporary
//   file beside it (exclusive, never through a link, 0600), written, fsynced,
//   renamed over the name, the folder fsynced.
// - createFile: a new file that must not replace anything (a plan, a damaged tail
//   set aside): exclusive, written, fsynced, the folder fsynced.
// - AppendLog / appendSynced: lines appended and fdatasynced before the call
//   returns (a batch's ledger, the sandbox's data file); a log the call creates has
//   its folder fsynced as well.
// - openAppendAsync / appendAsync: the same off the main thread (the listener's
//   journal), with O_DSYNC where the platform has it.
// And the other way, openRegularFile: a file svc reads back (a plan, a ledger, a
// batch's CSV) opened only when it is a regular file, never blocking on a FIFO.
// The synchronous calls go through a file layer (node:fs) that a test can replace
// to see each write, fsync and rename in order.
import * as nodeFs from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

/** The file calls durable writes make: node:fs, or a test's stand-in that records or fails them. */
export interface FileLayer {
  openSync(path: string, flags: string | number, mode?: number): number;
  writeSync(fd: number, buffer: Uint8Array, offset: number, length: number): number;
  readSync(
    fd: number,
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number | null,
  ): number;
  fsyncSync(fd: number): void;
  fdatasyncSync(fd: number): void;
  ftruncateSync(fd: number, len: number): void;
  fstatSync(fd: number): { size: number };
  fchmodSync(fd: number, mode: number): void;
  closeSync(fd: number): void;
  renameSync(from: string, to: string): void;
  unlinkSync(path: string): void;
}

export const nodeFiles: FileLayer = nodeFs;

let layer: FileLayer = nodeFiles;

/** The layer durable writes use when none is passed (node:fs unless a test swapped it). */
export function files(): FileLayer {
  return layer;
}

/**
 * Makes every durable write that is not given a layer go through `fs` (a test's spy),
 * until the returned function puts the previous layer back.
 */
export function useFileLayer(fs: FileLayer): () => void {
  const before = layer;
  layer = fs;
  return () => {
    layer = before;
  };
}

const { O_WRONLY, O_CREAT, O_EXCL, O_APPEND, O_RDONLY } = nodeFs.constants;
/** Never through a link planted at the name (0 where the platform has no such flag). */
const NOFOLLOW = nodeFs.constants.O_NOFOLLOW ?? 0;
/** Opening a FIFO returns at once instead of waiting for a writer (0 where there is no such flag). */
const NONBLOCK = nodeFs.constants.O_NONBLOCK ?? 0;
const WINDOWS = process.platform === 'win32';
const CHUNK = 1024 * 1024;

/** A regular file opened for reading by openRegularFile: its descriptor (the caller closes it) and size. */
export interface RegularFile {
  fd: number;
  size: number;
}

/**
 * Opens `path` read-only when it is a regular file, and only then. Never blocking
 * (O_NONBLOCK: a FIFO planted at the name is refused, not waited on forever) and, unless
 * `follow`, never through a link at its last name (ELOOP). Throws the open's own error
 * (ENOENT, ELOOP, EACCES …), or one with code ENOTREG for a FIFO, a device (a link to
 * /dev/zero, whose read would never end) or a folder.
 */
export function openRegularFile(path: string, follow = false): RegularFile {
  const fd = nodeFs.openSync(path, O_RDONLY | (follow ? 0 : NOFOLLOW) | NONBLOCK);
  let file: RegularFile | undefined;
  try {
    const st = nodeFs.fstatSync(fd);
    if (st.isFile()) file = { fd, size: st.size };
  } finally {
    if (!file) nodeFs.closeSync(fd);
  }
  if (file) return file;
  throw Object.assign(new Error(`${path}: not a regular file`), { code: 'ENOTREG' });
}

/** Writes all of `bytes` at the descriptor's position (a short write is continued). */
export function writeAll(fd: number, bytes: Uint8Array, fs: FileLayer = layer): void {
  for (let off = 0; off < bytes.length;) off += fs.writeSync(fd, bytes, off, bytes.length - off);
}

/** Appends `bytes` and fdatasyncs: on the disk when this returns. */
export function appendSynced(fd: number, bytes: Uint8Array, fs: FileLayer = layer): void {
  writeAll(fd, bytes, fs);
  fs.fdatasyncSync(fd);
}

/**
 * Makes a new name or a rename in `dir` durable. Windows and a few filesystems refuse
 * fsync on a folder; there the file's own fsync is all there is.
 */
export function syncFolder(dir: string, fs: FileLayer = layer): void {
  if (WINDOWS) return;
  let fd: number;
  try {
    fd = fs.openSync(dir, O_RDONLY);
  } catch {
    return;
  }
  try {
    fs.fsyncSync(fd);
  } catch {
    // refused on this filesystem: the rename itself stands
  } finally {
    fs.closeSync(fd);
  }
}

/** What a file is made of: its text or bytes, or a function that hands them out piece by piece. */
export type Content = string | Uint8Array | ((out: (text: string) => void) => void);

/** Writes `content` to `fd` in chunks of at most CHUNK bytes; returns the bytes written. */
function writeContent(fd: number, content: Content, fs: FileLayer): number {
  if (typeof content !== 'function') {
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    writeAll(fd, bytes, fs);
    return bytes.length;
  }
  let size = 0;
  let parts: Buffer[] = [];
  let pending = 0;
  const flush = () => {
    writeAll(fd, Buffer.concat(parts, pending), fs);
    size += pending;
    parts = [];
    pending = 0;
  };
  content((text) => {
    const buf = Buffer.from(text, 'utf8');
    parts.push(buf);
    pending += buf.length;
    if (pending >= CHUNK) flush();
  });
  flush();
  return size;
}

/**
 * Replaces `path` with `content`, mode 0600, atomically and never through a link: a
 * new temporary file in the same folder (O_EXCL|O_NOFOLLOW: nothing planted under
 * its name is followed), written, fsynced, renamed over the name (a rename replaces a
 * link, it does not write to its target), then the folder fsynced so the rename
 * survives a crash. A failure removes the temporary file and leaves `path` as it was.
 * Returns the size written.
 */
export function replaceFile(path: string, content: Content, fs: FileLayer = layer): number {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = fs.openSync(temp, O_WRONLY | O_CREAT | O_EXCL | NOFOLLOW, 0o600);
  let size: number;
  try {
    try {
      // The umask can only remove bits from 0600; fchmod makes the mode exact anyway.
      if (!WINDOWS) fs.fchmodSync(fd, 0o600);
      size = writeContent(fd, content, fs);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, path);
  } catch (err) {
    try {
      fs.unlinkSync(temp);
    } catch {
      // nothing left to remove
    }
    throw err;
  }
  syncFolder(dir, fs);
  return size;
}

/**
 * Creates `path` (mode 0600) with `content`, refusing a name that exists (EEXIST) or
 * a link planted there: written, fsynced, then the folder fsynced for the new name.
 */
export function createFile(path: string, content: Content, fs: FileLayer = layer): void {
  const fd = fs.openSync(path, O_WRONLY | O_CREAT | O_EXCL | NOFOLLOW, 0o600);
  try {
    writeContent(fd, content, fs);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  syncFolder(dirname(path), fs);
}

/**
 * Opens `path` for appending (never through a link), creating it 0600 when missing;
 * a created file has its folder fsynced, so its name survives a crash with its lines.
 */
export function openAppend(path: string, fs: FileLayer = layer): number {
  try {
    return fs.openSync(path, O_WRONLY | O_APPEND | NOFOLLOW);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  let fd: number;
  try {
    fd = fs.openSync(path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | NOFOLLOW, 0o600);
  } catch (err) {
    // Another process created it in between: its folder entry is that one's to sync.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return fs.openSync(path, O_WRONLY | O_APPEND | NOFOLLOW);
  }
  syncFolder(dirname(path), fs);
  return fd;
}

/** A file of lines, each on the disk before append() returns. */
export class AppendLog {
  private constructor(
    readonly path: string,
    private readonly fd: number,
    private readonly fs: FileLayer,
  ) {}

  static open(path: string, fs: FileLayer = layer): AppendLog {
    return new AppendLog(path, openAppend(path, fs), fs);
  }

  /** Lines write() appended that no fdatasync has covered yet. */
  private unsynced = false;

  /** Appends `text` (its own newlines included) and fdatasyncs: it, and all written before, on the disk. */
  append(text: string): void {
    appendSynced(this.fd, Buffer.from(text, 'utf8'), this.fs);
    this.unsynced = false;
  }

  /**
   * Appends `text` without waiting for the disk: it is there with the next append(),
   * or at close(). For a line a power cut may lose without harm, because whoever reads
   * the log can tell it is missing and find out again (a batch row's outcome).
   */
  write(text: string): void {
    writeAll(this.fd, Buffer.from(text, 'utf8'), this.fs);
    this.unsynced = true;
  }

  /** Closes the log, fdatasyncing first what write() left. */
  close(): void {
    try {
      if (this.unsynced) this.fs.fdatasyncSync(this.fd);
    } catch {
      // What write() appends may be lost by a crash anyway (its callers say why that is safe).
    } finally {
      this.fs.closeSync(this.fd);
    }
  }
}

/**
 * Opens `path` for appending off the main thread, created 0600 (its folder fsynced)
 * when missing; with O_DSYNC where the platform has it, so each write is on the disk
 * when it returns (`dsync`), one trip to the thread pool instead of two. Read access
 * too: a reader may look at the last byte for a torn line.
 */
export async function openAppendAsync(path: string): Promise<{ fh: FileHandle; dsync: boolean }> {
  const { O_RDWR, O_DSYNC } = nodeFs.constants;
  // Read at each call, not once: a test opens a journal as Windows would.
  const dsync = O_DSYNC !== undefined && process.platform !== 'win32';
  const flags = O_RDWR | O_APPEND | (dsync ? O_DSYNC : 0);
  try {
    return { fh: await open(path, flags), dsync };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const fh = await open(path, flags | O_CREAT, 0o600);
  await syncFolderAsync(dirname(path));
  return { fh, dsync };
}

/** Appends `data` through a handle from openAppendAsync; on the disk when the promise resolves. */
export async function appendAsync(fh: FileHandle, data: Uint8Array, dsync: boolean): Promise<void> {
  for (let at = 0; at < data.length;)
    at += (await fh.write(data, at, data.length - at)).bytesWritten;
  if (!dsync) await fh.datasync();
}

/** syncFolder off the main thread. */
export async function syncFolderAsync(dir: string): Promise<void> {
  if (WINDOWS) return;
  let fh: FileHandle;
  try {
    fh = await open(dir, O_RDONLY);
  } catch {
    return;
  }
  try {
    await fh.sync();
  } catch {
    // refused on this filesystem
  } finally {
    await fh.close();
  }
}
