// A file layer for src/durable.ts that records every call it passes on to node:fs, in
// order, with the path behind each descriptor: a test reads from the log whether a
// write was fsynced before something else happened (a POST, an answer, a rename).
// A page cache survives kill -9, so only the calls themselves can show an fsync missing.
import * as nodeFs from 'node:fs';
import type { FileLayer } from '../../src/durable.js';

export type FileOp =
  | { op: 'open'; fd: number; path: string; flags: string | number }
  | { op: 'write'; fd: number; path: string; text: string }
  | { op: 'sync'; fd: number; path: string; how: 'fdatasync' | 'fsync' }
  | { op: 'close'; fd: number; path: string }
  | { op: 'rename'; from: string; to: string }
  | { op: 'unlink'; path: string }
  /** Something the test marks in the log (a request that arrived, an answer). */
  | { op: 'mark'; text: string };

export function spyFiles(): { fs: FileLayer; log: FileOp[] } {
  const log: FileOp[] = [];
  const paths = new Map<number, string>();
  const at = (fd: number) => paths.get(fd) ?? `fd ${fd}`;
  const fs: FileLayer = {
    ...nodeFs,
    openSync(path: string, flags: string | number, mode?: number) {
      const fd = nodeFs.openSync(path, flags, mode);
      paths.set(fd, path);
      log.push({ op: 'open', fd, path, flags });
      return fd;
    },
    writeSync(fd: number, buf: Uint8Array, off: number, len: number) {
      const n = nodeFs.writeSync(fd, buf, off, len);
      log.push({
        op: 'write',
        fd,
        path: at(fd),
        text: Buffer.from(buf.subarray(off, off + n)).toString('utf8'),
      });
      return n;
    },
    fdatasyncSync(fd: number) {
      nodeFs.fdatasyncSync(fd);
      log.push({ op: 'sync', fd, path: at(fd), how: 'fdatasync' });
    },
    fsyncSync(fd: number) {
      nodeFs.fsyncSync(fd);
      log.push({ op: 'sync', fd, path: at(fd), how: 'fsync' });
    },
    closeSync(fd: number) {
      nodeFs.closeSync(fd);
      log.push({ op: 'close', fd, path: at(fd) });
      paths.delete(fd);
    },
    renameSync(from: string, to: string) {
      nodeFs.renameSync(from, to);
      log.push({ op: 'rename', from, to });
    },
    unlinkSync(path: string) {
      nodeFs.unlinkSync(path);
      log.push({ op: 'unlink', path });
    },
  };
  return { fs, log };
}

/** The index of the first write to `path` that holds `marker`, or -1. */
export function writeOf(log: FileOp[], path: string, marker: string): number {
  return log.findIndex((o) => o.op === 'write' && o.path === path && o.text.includes(marker));
}

/** The index of the sync that made the write at `w` durable (on its descriptor, before it was closed), or -1. */
export function syncAfter(log: FileOp[], w: number): number {
  const write = log[w];
  if (write?.op !== 'write') return -1;
  for (let i = w + 1; i < log.length; i++) {
    const o = log[i]!;
    if (o.op === 'sync' && o.fd === write.fd) return i;
    if (o.op === 'close' && o.fd === write.fd) return -1;
  }
  return -1;
}

/** The index of the fsync of folder `dir` after index `from`, or -1. */
export function folderSyncAfter(log: FileOp[], dir: string, from: number): number {
  return log.findIndex((o, i) => i > from && o.op === 'sync' && o.path === dir);
}
