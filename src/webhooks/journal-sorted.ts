// The look-up files of the journal's rotated generations. A generation never changes once
// it is rotated (it is only renamed, `.1` to `.2` and on, its index with it), so beside
// it svc keeps `<file>.ids`: its index's records numbers, sorted by the 48 bits of their
// entry's id and, apart, by their request. A look-up in a generation is then a binary
// search of a few positioned reads, not a reading of its whole index (32 bytes an entry,
// 32 MB for a million): `webhook ver <id>` and `caso` cost the same whatever the journal
// holds. Only the file being written has none: its index stays small (one generation).
//
// The listener writes the look-up file when it rotates; a reader that finds a generation
// without one it can trust builds it from the index it had to read whole anyway (into a
// file of its own, renamed into place; a folder it cannot write to only means the index
// is read whole again next time). A look-up file is trusted only when its header names
// its generation as it is (the journal file's size, the index's record count, its first
// and last records), and each record it points at is read from the index and must hold
// the key looked for; the caller then checks the line each one names, as it does for
// the index. Whatever does not hold up is undefined, and the caller reads the index.
import {
  closeSync,
  fstatSync,
  fsyncSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';

/** Where a rotated generation's look-up file is: `<file>.ids`. */
export function sortedPath(file: string): string {
  return `${file}.ids`;
}

// The index as event-journal.ts writes it: a header, then four little-endian doubles a
// record (offset, length with the newline, request or -1, the id's 48 bits or -1).
const INDEX_MAGIC = 'svcidx1\n';
const INDEX_HEADER = INDEX_MAGIC.length;
const RECORD_BYTES = 32;

// The look-up file: a header (MAGIC, then HEAD_NUMBERS doubles: the journal file's size,
// the index's record count, where its last record ends, how many stretches no record
// covers, its first record and its last), those stretches (from, to), then one pair
// (key, record number) per record sorted by the id's number, and as many sorted by
// request; pairs of equal keys in record order, which is the file's order.
const MAGIC = 'svcids1\n';
const HEAD_NUMBERS = 12;
const HEAD_BYTES = MAGIC.length + HEAD_NUMBERS * 8;
const PAIR_BYTES = 16;
/** Pairs read at a time once the first one of a key is found. */
const PAIRS_READ = 256;

/** A record of the index: where the line is, its request and its id's number (-1: none). */
export interface SortedRecord {
  offset: number;
  length: number;
  cobro: number;
  idn: number;
}

/** What a look-up file answers for one key. */
export interface SortedAnswer {
  /** The records whose key is the one looked for, in file order (four numbers a record, as the index). */
  f: Float64Array;
  records: number;
  /** Where the index's last record ends: past it, lines have no record. */
  end: number;
  /** Stretches between records (lines without one), in file order. */
  gaps: { from: number; to: number }[];
  /** The index's first and last records (undefined when it has none), for the caller to check at their lines. */
  first: SortedRecord | undefined;
  last: SortedRecord | undefined;
  /** Some record is of an id of another shape (its number -1). */
  odd: boolean;
}

/** `length` bytes of `fd` at `at`; undefined when the file is shorter. */
function bytesAt(fd: number, length: number, at: number): Buffer | undefined {
  const buf = Buffer.allocUnsafe(length);
  for (let got = 0; got < length;) {
    const n = readSync(fd, buf, got, length - got, at + got);
    if (n === 0) return undefined;
    got += n;
  }
  return buf;
}

function numbersOf(buf: Buffer): number[] {
  const out: number[] = [];
  for (let at = 0; at + 8 <= buf.length; at += 8) out.push(buf.readDoubleLE(at));
  return out;
}

const sameNumbers = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length && a.every((x, i) => Object.is(x, b[i]));

const recordOf = (n: readonly number[]): SortedRecord => ({
  offset: n[0]!,
  length: n[1]!,
  cobro: n[2]!,
  idn: n[3]!,
});

/**
 * The look-up file's answer for the records whose `field` (2: request, 3: id's number)
 * is `value`, in the generation `file` open as `fd`; undefined when there is no look-up
 * file, when it is not this generation's, or when a record it points at does not hold
 * that key.
 */
export function lookUpSorted(
  file: string,
  fd: number,
  field: 2 | 3,
  value: number,
): SortedAnswer | undefined {
  let ids: number | undefined;
  let idx: number | undefined;
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return undefined;
    const size = st.size;
    ids = openSync(sortedPath(file), 'r');
    const head = bytesAt(ids, HEAD_BYTES, 0);
    if (!head || head.toString('latin1', 0, MAGIC.length) !== MAGIC) return undefined;
    const h = numbersOf(head.subarray(MAGIC.length));
    const [fileSize, records, end, gapCount] = h as [number, number, number, number];
    if (fileSize !== size || !Number.isSafeInteger(records) || records < 0) return undefined;
    if (!Number.isSafeInteger(gapCount) || gapCount < 0 || !(end <= size)) return undefined;
    const pairsAt = HEAD_BYTES + gapCount * PAIR_BYTES;
    if (fstatSync(ids).size !== pairsAt + 2 * records * PAIR_BYTES) return undefined;
    // The index must be the one the look-up file was made from: same count, same ends.
    idx = openSync(`${file}.idx`, 'r');
    if (Math.floor((fstatSync(idx).size - INDEX_HEADER) / RECORD_BYTES) !== records)
      return undefined;
    const start = bytesAt(idx, INDEX_HEADER, 0);
    if (!start || start.toString('latin1') !== INDEX_MAGIC) return undefined;
    const recordAt = (i: number): number[] | undefined => {
      const b = bytesAt(idx!, RECORD_BYTES, INDEX_HEADER + i * RECORD_BYTES);
      return b && numbersOf(b);
    };
    let first: SortedRecord | undefined;
    let last: SortedRecord | undefined;
    if (records > 0) {
      const a = recordAt(0);
      const z = recordAt(records - 1);
      if (!a || !z || !sameNumbers(a, h.slice(4, 8)) || !sameNumbers(z, h.slice(8, 12)))
        return undefined;
      first = recordOf(a);
      last = recordOf(z);
    }
    const gaps: { from: number; to: number }[] = [];
    if (gapCount > 0) {
      const g = numbersOf(bytesAt(ids, gapCount * PAIR_BYTES, HEAD_BYTES)!);
      for (let i = 0; i < g.length; i += 2) gaps.push({ from: g[i]!, to: g[i + 1]! });
    }
    // The first pair with the key (binary search), then the pairs from there that have it.
    const base = pairsAt + (field === 3 ? 0 : records * PAIR_BYTES);
    const keyAt = (i: number) => bytesAt(ids!, 8, base + i * PAIR_BYTES)!.readDoubleLE(0);
    let lo = 0;
    let hi = records;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keyAt(mid) < value) lo = mid + 1;
      else hi = mid;
    }
    const found: number[] = [];
    for (let i = lo, done = false; i < records && !done; i += PAIRS_READ) {
      const n = Math.min(PAIRS_READ, records - i);
      const pairs = numbersOf(bytesAt(ids, n * PAIR_BYTES, base + i * PAIR_BYTES)!);
      for (let k = 0; k < pairs.length; k += 2) {
        if (pairs[k] !== value) {
          done = true;
          break;
        }
        found.push(pairs[k + 1]!);
      }
    }
    const f = new Float64Array(found.length * 4);
    let previous = -1;
    for (const [k, r] of found.entries()) {
      if (!(Number.isSafeInteger(r) && r > previous && r < records)) return undefined;
      previous = r;
      const rec = recordAt(r);
      if (!rec || rec[field] !== value) return undefined;
      f.set(rec, 4 * k);
    }
    // Pairs sorted by the id's number start with the smallest: -1 when an id has another shape.
    const odd = records > 0 && bytesAt(ids, 8, pairsAt)!.readDoubleLE(0) < 0;
    return { f, records: found.length, end, gaps, first, last, odd };
  } catch {
    return undefined;
  } finally {
    if (ids !== undefined) closeSync(ids);
    if (idx !== undefined) closeSync(idx);
  }
}

/**
 * Writes the look-up file of the generation `file` (`size` bytes) from its index's
 * numbers `f` (four a record), which the caller found in order and inside the file.
 * False when it could not be written (a folder svc cannot write to): nothing is left.
 */
export function writeSorted(file: string, f: Float64Array, size: number): boolean {
  const records = f.length / 4;
  const target = sortedPath(file);
  const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
  let fd: number;
  try {
    // Opened first: a folder that cannot be written to costs no sorting.
    fd = openSync(temp, 'wx', 0o600);
  } catch {
    return false;
  }
  try {
    const gaps: number[] = [];
    let end = 0;
    for (let i = 0; i < f.length; i += 4) {
      if (f[i]! > end) gaps.push(end, f[i]!);
      end = f[i]! + f[i + 1]!;
    }
    const pairsAt = HEAD_BYTES + gaps.length * 8;
    const buf = Buffer.alloc(pairsAt + 2 * records * PAIR_BYTES);
    buf.write(MAGIC, 0, 'latin1');
    const head = [size, records, end, gaps.length / 2];
    head.push(...(records > 0 ? f.subarray(0, 4) : [0, 0, 0, 0]));
    head.push(...(records > 0 ? f.subarray(f.length - 4) : [0, 0, 0, 0]));
    head.forEach((n, i) => buf.writeDoubleLE(n, MAGIC.length + 8 * i));
    gaps.forEach((n, i) => buf.writeDoubleLE(n, HEAD_BYTES + 8 * i));
    const order = new Uint32Array(records);
    for (const [s, field] of [3, 2].entries()) {
      for (let i = 0; i < records; i++) order[i] = i;
      order.sort((a, b) => f[4 * a + field]! - f[4 * b + field]! || a - b);
      const at = pairsAt + s * records * PAIR_BYTES;
      for (let i = 0; i < records; i++) {
        buf.writeDoubleLE(f[4 * order[i]! + field]!, at + i * PAIR_BYTES);
        buf.writeDoubleLE(order[i]!, at + i * PAIR_BYTES + 8);
      }
    }
    for (let at = 0; at < buf.length;) at += writeSync(fd, buf, at, buf.length - at);
    // On disk before it is renamed into place: a crash never leaves a look-up file
    // of the right size holding nothing.
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temp, target);
    return true;
  } catch {
    try {
      closeSync(fd);
    } catch {
      // closed already, before the rename failed
    }
    try {
      rmSync(temp, { force: true });
    } catch {
      // left behind: never read, its name is no generation's
    }
    return false;
  }
}
