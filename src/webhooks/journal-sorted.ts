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
const RECORD_NUMBERS = 4;

// The look-up file, little-endian doubles after its MAGIC (8 bytes, one double's room):
// HEAD_NUMBERS numbers (the journal file's size, the index's record count, where its
// last record ends, how many stretches no record covers, its first record and its last,
// and a checksum of all that and of the table), then the table: those stretches (from,
// to), and for each order (by the id's number, by request) the key of every BLOCK-th
// pair and a checksum of each BLOCK pairs; then the pairs (key, record number) in each
// order, pairs of equal keys in record order, which is the file's order. A look-up reads
// the header, the table, and the block where its key starts (and the next, when its pairs
// go on there): what an answer rests on is checked, so a look-up file edited by hand,
// however little, is not trusted where it matters.
const MAGIC = 'svcids2\n';
const HEAD_NUMBERS = 13;
const BLOCK = 256;

const LITTLE_ENDIAN = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;
/** An 8-byte text as the double it reads as, little-endian. */
const asNumber = (text: string) => Buffer.from(text, 'latin1').readDoubleLE(0);
const MAGIC_NUMBER = asNumber(MAGIC);
const INDEX_MAGIC_NUMBER = asNumber(INDEX_MAGIC);

/** FNV-1a of `bytes`, going on from `h`: a checksum, against damage and hand edits. */
function checksum(bytes: Uint8Array, h = 0x811c9dc5): number {
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193) >>> 0;
  return h;
}

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

/** `count` doubles' bytes of `fd` at `at` (little-endian); undefined when the file is shorter. */
function bytesAt(fd: number, count: number, at: number): Uint8Array | undefined {
  const bytes = new Uint8Array(new Float64Array(count).buffer);
  for (let got = 0; got < bytes.length;) {
    const n = readSync(fd, bytes, got, bytes.length - got, at + got);
    if (n === 0) return undefined;
    got += n;
  }
  return bytes;
}

/** The numbers little-endian `bytes` hold. */
function numbersOf(bytes: Uint8Array): Float64Array {
  const f = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.length / 8);
  if (LITTLE_ENDIAN) return f;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  return Float64Array.from({ length: f.length }, (_, i) => view.getFloat64(8 * i, true));
}

/** `count` little-endian doubles of `fd` at `at`; undefined when the file is shorter. */
function numbersAt(fd: number, count: number, at: number): Float64Array | undefined {
  const bytes = bytesAt(fd, count, at);
  return bytes && numbersOf(bytes);
}

const same = (a: Float64Array, b: Float64Array) => a.every((x, i) => Object.is(x, b[i]));

const recordOf = (n: Float64Array): SortedRecord => ({
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
    ids = openSync(sortedPath(file), 'r');
    const headBytes = bytesAt(ids, 1 + HEAD_NUMBERS, 0);
    const head = headBytes && numbersOf(headBytes);
    if (!head || head[0] !== MAGIC_NUMBER) return undefined;
    const [size, records, end, gapCount] = [head[1]!, head[2]!, head[3]!, head[4]!];
    if (size !== st.size || !Number.isSafeInteger(records) || records < 0) return undefined;
    if (!Number.isSafeInteger(gapCount) || gapCount < 0 || !(end <= size)) return undefined;
    const blocks = Math.ceil(records / BLOCK);
    const tableAt = 8 * (1 + HEAD_NUMBERS);
    const tableNumbers = 2 * gapCount + 4 * blocks;
    const pairsAt = tableAt + 8 * tableNumbers;
    if (fstatSync(ids).size !== pairsAt + 2 * 16 * records) return undefined;
    const tableBytes = bytesAt(ids, tableNumbers, tableAt)!;
    if (checksum(tableBytes, checksum(headBytes.subarray(0, 8 * HEAD_NUMBERS))) !== head[13])
      return undefined;
    // The index must be the one the look-up file was made from: same count, same ends.
    idx = openSync(`${file}.idx`, 'r');
    if (Math.floor((fstatSync(idx).size - 8) / 32) !== records) return undefined;
    const start = numbersAt(idx, 1 + RECORD_NUMBERS * Math.min(1, records), 0);
    if (!start || start[0] !== INDEX_MAGIC_NUMBER) return undefined;
    const recordAt = (i: number) => numbersAt(idx!, RECORD_NUMBERS, 8 + 32 * i);
    let first: SortedRecord | undefined;
    let last: SortedRecord | undefined;
    if (records > 0) {
      const a = start.subarray(1);
      const z = recordAt(records - 1);
      if (!z || !same(a, head.subarray(5, 9)) || !same(z, head.subarray(9, 13))) return undefined;
      first = recordOf(a);
      last = recordOf(z);
    }
    const table = numbersOf(tableBytes);
    const gaps: { from: number; to: number }[] = [];
    for (let i = 0; i < 2 * gapCount; i += 2) gaps.push({ from: table[i]!, to: table[i + 1]! });
    // The block where the key's first pair is: the last one whose first key is below it.
    const order = field === 3 ? 0 : 1;
    const fences = table.subarray(2 * gapCount + order * blocks);
    const sums = table.subarray(2 * gapCount + (2 + order) * blocks);
    let block = 0;
    while (block + 1 < blocks && fences[block + 1]! < value) block++;
    const found: number[] = [];
    let previous = -Infinity;
    for (let done = false; block < blocks && !done; block++) {
      const n = Math.min(BLOCK, records - block * BLOCK);
      const bytes = bytesAt(ids, 2 * n, pairsAt + 16 * (order * records + block * BLOCK))!;
      if (checksum(bytes) !== sums[block]) return undefined;
      const pairs = numbersOf(bytes);
      for (let k = 0; k < pairs.length && !done; k += 2) {
        if (!(pairs[k]! >= previous)) return undefined;
        previous = pairs[k]!;
        if (pairs[k]! === value) found.push(pairs[k + 1]!);
        else done = pairs[k]! > value;
      }
    }
    const f = new Float64Array(found.length * RECORD_NUMBERS);
    let at = -1;
    for (const [k, r] of found.entries()) {
      if (!(Number.isSafeInteger(r) && r > at && r < records)) return undefined;
      at = r;
      const rec = recordAt(r);
      if (!rec || rec[field] !== value) return undefined;
      f.set(rec, RECORD_NUMBERS * k);
    }
    // Pairs sorted by the id's number start with the smallest: -1 when an id has another shape.
    const odd = blocks > 0 && table[2 * gapCount]! < 0;
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
  const records = f.length / RECORD_NUMBERS;
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
    for (let i = 0; i < f.length; i += RECORD_NUMBERS) {
      if (f[i]! > end) gaps.push(end, f[i]!);
      end = f[i]! + f[i + 1]!;
    }
    const blocks = Math.ceil(records / BLOCK);
    const none = [0, 0, 0, 0];
    const head = [MAGIC_NUMBER, size, records, end, gaps.length / 2];
    head.push(...(records > 0 ? f.subarray(0, RECORD_NUMBERS) : none));
    head.push(...(records > 0 ? f.subarray(f.length - RECORD_NUMBERS) : none));
    head.push(0); // its checksum, below
    const tableAt = head.length;
    const pairsAt = tableAt + gaps.length + 4 * blocks;
    const out = new Float64Array(pairsAt + 4 * records);
    out.set(head);
    out.set(gaps, tableAt);
    const order = new Uint32Array(records);
    for (const [o, field] of [3, 2].entries()) {
      for (let i = 0; i < records; i++) order[i] = i;
      order.sort((a, b) => f[4 * a + field]! - f[4 * b + field]! || a - b);
      const at = pairsAt + 2 * o * records;
      for (let i = 0; i < records; i++) {
        out[at + 2 * i] = f[4 * order[i]! + field]!;
        out[at + 2 * i + 1] = order[i]!;
      }
      for (let j = 0; j < blocks; j++)
        out[tableAt + gaps.length + o * blocks + j] = out[at + 2 * BLOCK * j]!;
    }
    // As it is on disk (little-endian), then the checksums of that.
    const buf = new Uint8Array(out.buffer);
    const view = new DataView(out.buffer);
    if (!LITTLE_ENDIAN) for (let i = 0; i < out.length; i++) view.setFloat64(8 * i, out[i]!, true);
    for (const o of [0, 1])
      for (let j = 0; j < blocks; j++) {
        const from = 8 * (pairsAt + 2 * o * records + 2 * BLOCK * j);
        const to = 8 * (pairsAt + 2 * o * records + 2 * Math.min(records, BLOCK * (j + 1)));
        const sum = checksum(buf.subarray(from, to));
        view.setFloat64(8 * (tableAt + gaps.length + (2 + o) * blocks + j), sum, true);
      }
    const table = checksum(
      buf.subarray(8 * tableAt, 8 * pairsAt),
      checksum(buf.subarray(0, 8 * HEAD_NUMBERS)),
    );
    view.setFloat64(8 * HEAD_NUMBERS, table, true);
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
