// The bytes of the sandbox's data file: appends that leave the file as it was when
// they fail, a reader that hands out one line at a time (a file of any size opens),
// the damaged tail kept aside before it is trimmed, and the atomic rewrite behind
// compaction. What the lines mean is store.ts's business; this module only moves bytes.
import { isUtf8 } from 'node:buffer';
import {
  appendSynced,
  createFile,
  replaceFile,
  writeAll,
  type Content,
  type FileLayer,
} from '../durable.js';

/** A journal line longer than this is damage, not a change (one change is a few KB). */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;
const CHUNK = 1024 * 1024;

/** An append that failed; the file is as it was unless `stuck` (then nothing is written until repair works). */
export class JournalWriteError extends Error {
  override name = 'JournalWriteError';
  constructor(
    readonly reason: NodeJS.ErrnoException,
    readonly stuck: boolean,
  ) {
    super(reason.code ? `${reason.code}: ${describe(reason)}` : reason.message);
  }
}

function describe(err: NodeJS.ErrnoException): string {
  // Node's message repeats the syscall and path; the reason is what helps.
  const m = /^[A-Z]+: ([^,]+)/.exec(err.message);
  return m ? m[1]! : err.message;
}

/**
 * Appends lines to an open journal. `size` is where the last whole line ends: a
 * write or sync that fails is undone by truncating back to it, so a failed change
 * never leaves half a line for the next one to be glued to. When even the truncation
 * fails the writer is stuck: every append first retries it and refuses until it works
 * (the disk got space back), so the journal never grows past a torn line.
 */
export class JournalWriter {
  private stuckOn: NodeJS.ErrnoException | null = null;

  constructor(
    private readonly fs: FileLayer,
    private fd: number,
    private size: number,
  ) {}

  get bytes(): number {
    return this.size;
  }

  /** Writes `text` (whole lines); with `sync`, fdatasync before returning. Throws JournalWriteError. */
  append(text: string, sync: boolean): void {
    if (this.stuckOn) this.repair();
    const buf = Buffer.from(text, 'utf8');
    try {
      if (sync) appendSynced(this.fd, buf, this.fs);
      else writeAll(this.fd, buf, this.fs);
    } catch (err) {
      this.undo(err as NodeJS.ErrnoException);
    }
    this.size += buf.length;
  }

  close(): void {
    try {
      if (!this.stuckOn) this.fs.fdatasyncSync(this.fd);
    } finally {
      this.fs.closeSync(this.fd);
    }
  }

  private undo(cause: NodeJS.ErrnoException): never {
    try {
      this.fs.ftruncateSync(this.fd, this.size);
      this.fs.fdatasyncSync(this.fd);
    } catch {
      this.stuckOn = cause;
      throw new JournalWriteError(cause, true);
    }
    throw new JournalWriteError(cause, false);
  }

  private repair(): void {
    try {
      this.fs.ftruncateSync(this.fd, this.size);
      this.fs.fdatasyncSync(this.fd);
      this.stuckOn = null;
    } catch {
      throw new JournalWriteError(this.stuckOn!, true);
    }
  }
}

export interface Line {
  /** 1-based. */
  no: number;
  /** Byte offset where the line starts. */
  start: number;
  /** Byte offset just past the line and its newline. */
  end: number;
  /** false for the text after the last newline. */
  terminated: boolean;
  bytes: Buffer;
}

/**
 * The lines of an open file, read a chunk at a time: memory follows the longest line,
 * not the file. A line within one chunk is a view of it (each chunk is a fresh buffer,
 * so a line handed out stays as it was): no copy per line.
 */
export function* readLines(fs: FileLayer, fd: number): Generator<Line> {
  let carry: Buffer[] = [];
  let carried = 0;
  let pos = 0;
  let no = 0;
  let start = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(CHUNK);
    const n = fs.readSync(fd, chunk, 0, CHUNK, pos);
    if (n === 0) break;
    pos += n;
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf(10, from);
      if (nl < 0 || nl >= n) break;
      const part = chunk.subarray(from, nl);
      const bytes = carried ? Buffer.concat([...carry, part]) : part;
      carry = [];
      carried = 0;
      const end = start + bytes.length + 1;
      yield { no: ++no, start, end, terminated: true, bytes };
      start = end;
      from = nl + 1;
    }
    if (from < n) {
      carry.push(chunk.subarray(from, n));
      carried += n - from;
      if (carried > MAX_LINE_BYTES) throw new LineTooLong(no + 1);
    }
  }
  if (carried)
    yield {
      no: no + 1,
      start,
      end: start + carried,
      terminated: false,
      bytes: Buffer.concat(carry),
    };
}

export class LineTooLong extends Error {
  constructor(readonly no: number) {
    super(`más de ${MAX_LINE_BYTES / 1024 / 1024} MiB sin salto de línea`);
  }
}

/** The line as text; null when its bytes are not UTF-8 (damage: the sandbox only writes UTF-8). */
export function lineText(bytes: Buffer): string | null {
  return isUtf8(bytes) ? bytes.toString('utf8') : null;
}

/**
 * Copies the bytes from `offset` to the end of `file` into `FILE.dañado-<fecha>`
 * (fsynced), then trims the file there. Returns the copy's path.
 */
export function setAsideTail(fs: FileLayer, file: string, offset: number, now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-');
  const fd = fs.openSync(file, 'r+');
  try {
    const size = fs.fstatSync(fd).size;
    const tail = Buffer.alloc(size - offset);
    let got = 0;
    while (got < tail.length) {
      const n = fs.readSync(fd, tail, got, tail.length - got, offset + got);
      if (n === 0) break;
      got += n;
    }
    let copy = '';
    for (let i = 0; ; i++) {
      copy = `${file}.dañado-${stamp}${i ? `-${i}` : ''}`;
      try {
        createFile(copy, tail.subarray(0, got), fs);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST' && i < 100) continue;
        throw err;
      }
      break;
    }
    fs.ftruncateSync(fd, offset);
    fs.fdatasyncSync(fd);
    return copy;
  } finally {
    fs.closeSync(fd);
  }
}

/** Appends the newline a complete last line was written without, so the next change starts a line of its own. */
export function terminateLastLine(fs: FileLayer, file: string): void {
  const fd = fs.openSync(file, 'a');
  try {
    appendSynced(fd, Buffer.from('\n'), fs);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Replaces `file` with the lines `write` produces, atomically (replaceFile: a
 * temporary file in the same folder, fsynced, renamed over it, the folder fsynced).
 * A failure leaves `file` as it was. Returns the new size.
 */
export function rewriteAtomically(
  fs: FileLayer,
  file: string,
  write: Extract<Content, (out: (text: string) => void) => void>,
): number {
  return replaceFile(file, write, fs);
}
