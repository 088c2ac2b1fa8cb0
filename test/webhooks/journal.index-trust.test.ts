// When the journal's index is trusted, and when it is not. `caso` reads only the lines
// the index names for its request, so an index is used only when it can be: one whose
// header is not svc's, whose records are out of order, or that another journal left is
// passed over and the file read whole; a record cut short by a crash is left out and
// the rest used; the listener makes its index good again when it opens the journal,
// and never writes records that would name the wrong lines. Whether a file was read
// whole shows in a line about another request, damaged after it was indexed: a reading
// through the index never reaches it.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import {
  damage,
  entriesAbout,
  idBits,
  INDEX_HEADER,
  INDEX_RECORD,
  journalEntry,
  lay,
  writeIndex,
  writeIndexed,
  type IndexRec,
} from '../helpers/journal.js';
import {
  generationPaths,
  indexPath,
  Journal,
  JournalReader,
  lookUp,
  readJournal,
  readJournalAbout,
  rotatedPath,
  setReadSizes,
  type JournalEntry,
} from '../../src/webhooks/event-journal.js';

// Entries about requests 1..5 in turn (entriesAbout): request 3's are the ones looked for.

/** Damages the line of the `nth` entry about request 4 in `list` (which is in `path`). */
const damageA4 = (path: string, list: JournalEntry[], nth = 0) =>
  damage(path, list.filter((e) => e.cobro_id === 4)[nth]!.id);

const ids = (list: readonly JournalEntry[]) => list.map((e) => e.id);
const of3 = (list: readonly JournalEntry[]) => ids(list.filter((e) => e.cobro_id === 3));
const journalIn = () => join(tempDir('svc-jtrust-'), 'webhooks.jsonl');

/** Request 3's entries through the index: which, and how many lines were skipped on the way. */
function about3(path: string): { ids: string[]; skipped: number } {
  const r = readJournalAbout(path, 3);
  return { ids: ids(r.entries), skipped: r.skipped };
}

/** A journal of `n` entries with its index, and a line about request 4 damaged since. */
async function indexed(n = 30): Promise<{ path: string; list: JournalEntry[] }> {
  const path = journalIn();
  const list = entriesAbout(n);
  await writeIndexed(path, list);
  damageA4(path, list, 1);
  // Read through the index, the damaged line is never reached.
  expect(about3(path)).toEqual({ ids: of3(list), skipped: 0 });
  return { path, list };
}

const lineOf = (e: JournalEntry) => `${JSON.stringify(e)}\n`;

/** What reading every line finds about request 3: what a reading through an index must find too. */
function whole3(path: string): { ids: string[]; skipped: number } {
  const r = readJournal(path, (e) => e.cobro_id === 3);
  return { ids: ids(r.entries), skipped: r.skipped };
}

// FileHandle is not exported by node:fs/promises: its prototype, from a handle.
let FH: FileHandle;
beforeAll(async () => {
  const probe = await open(journalIn(), 'w');
  FH = Object.getPrototypeOf(probe) as FileHandle;
  await probe.close();
});
afterEach(() => vi.restoreAllMocks());
// Lines between records read a few KiB at a time: stretches of many chunks stay small.
beforeAll(() => setReadSizes({ chunkBytes: 4096 }));
afterAll(() => setReadSizes());

describe('an index written by hand', () => {
  it('in svc’s format is the one the listener writes, and is used', async () => {
    const path = journalIn();
    const list = entriesAbout(10);
    const recs = lay(path, list);
    writeIndex(path, recs);
    const byHand = readFileSync(indexPath(path));
    // The listener, opening the journal, finds nothing to add or change.
    await writeIndexed(path, []);
    expect(readFileSync(indexPath(path))).toEqual(byHand);
    damageA4(path, list, 1);
    expect(about3(path)).toEqual({ ids: of3(list), skipped: 0 });
  });

  // Lines about requests 1, 3, the case's line, 4 (damaged after it was indexed), 3 and 5.
  const craft = (
    line: JournalEntry | string,
    record: (r: IndexRec, e?: JournalEntry) => IndexRec,
  ) => {
    const path = journalIn();
    const [a, b, c, d, e] = [
      journalEntry(1),
      journalEntry(3),
      journalEntry(4),
      journalEntry(3),
      journalEntry(5),
    ];
    const recs = lay(path, [a, b, line, c, d, e]);
    recs[2] = record(recs[2]!, typeof line === 'string' ? undefined : line);
    writeIndex(path, recs);
    damage(path, c.id);
    return path;
  };
  const e3 = journalEntry(3);
  const json3 = JSON.stringify(e3);

  it.each([
    [
      'starts inside a line',
      `x${json3}`,
      ([o, l]: IndexRec): IndexRec => [o + 1, l - 1, 3, idBits(e3)],
    ],
    [
      'ends before the end of its line',
      `${json3}x`,
      ([o, l]: IndexRec): IndexRec => [o, l - 1, 3, idBits(e3)],
    ],
    ['names a blank line', '   ', ([o, l]: IndexRec): IndexRec => [o, l, 3, -1]],
    [
      'names an entry with another id',
      e3,
      ([o, l]: IndexRec): IndexRec => [o, l, 3, idBits(e3) + 1],
    ],
    [
      'names an entry about another request',
      journalEntry(4),
      ([o, l, , n]: IndexRec): IndexRec => [o, l, 3, n],
    ],
  ])('a record of the request that %s: every line is read instead', (_what, line, record) => {
    const path = craft(line, record);
    const want = whole3(path);
    expect(want.skipped).toBeGreaterThan(0);
    expect(about3(path)).toEqual(want);
  });

  it.each([
    [
      'an offset that is not a whole number',
      ([o, l, c, n]: IndexRec): IndexRec => [o + 0.5, l - 1, c, n],
    ],
    [
      'a length that is not a whole number',
      ([o, l, c, n]: IndexRec): IndexRec => [o, l - 0.5, c, n],
    ],
    ['no length', ([o, , c, n]: IndexRec): IndexRec => [o, 0, c, n]],
    [
      'an offset inside the line before it',
      ([o, l, c, n]: IndexRec): IndexRec => [o - 3, l + 3, c, n],
    ],
  ])('a record of another request with %s: the index is not trusted', (_what, record) => {
    const path = journalIn();
    const list = entriesAbout(10);
    const recs = lay(path, list);
    recs[5] = record(recs[5]!);
    writeIndex(path, recs);
    damageA4(path, list, 1);
    expect(about3(path)).toEqual({ ids: of3(list), skipped: 1 });
    // The line skipped is the damaged one, read because every line is.
    expect(readJournalAbout(path, 3).problems).toEqual(readJournal(path).problems);
  });

  it('the same record twice: the index is not trusted', () => {
    const path = journalIn();
    const list = entriesAbout(10);
    const recs = lay(path, list);
    writeIndex(path, [...recs.slice(0, 6), recs[5]!, ...recs.slice(6)]);
    damageA4(path, list, 1);
    expect(about3(path)).toEqual({ ids: of3(list), skipped: 1 });
  });

  it('a first or a last record that names another entry: the index is not trusted', () => {
    for (const which of [0, 9]) {
      const path = journalIn();
      const list = entriesAbout(10);
      const recs = lay(path, list);
      recs[which]![3] += 1;
      writeIndex(path, recs);
      damageA4(path, list, 0);
      expect(about3(path), `record ${which}`).toEqual({ ids: of3(list), skipped: 1 });
    }
  });

  it('entries about request 0, about none, or about a number below 0 are each found under their own number', async () => {
    const path = journalIn();
    const about = (cobro_id: number | null) => ({ ...journalEntry(9), cobro_id });
    const list = [
      about(null),
      about(0),
      about(3),
      about(-7),
      about(1),
      journalEntry(4),
      about(4),
      about(3),
      about(null),
    ];
    await writeIndexed(path, list);
    damage(path, list[5]!.id);
    for (const n of [0, 1, 3]) {
      const r = readJournalAbout(path, n);
      expect(ids(r.entries), `request ${n}`).toEqual(ids(list.filter((e) => e.cobro_id === n)));
      expect(r.skipped, `request ${n}`).toBe(0);
    }
    // Below 0 no request is: the file is read whole, and only that number found.
    expect(ids(readJournalAbout(path, -7).entries)).toEqual([list[3]!.id]);
    expect(readJournalAbout(path, -1).entries).toEqual([]);
  });

  it('entries whose ids are not svc’s form are found through the index too', async () => {
    const path = journalIn();
    const odd = [
      'evt_1',
      'xevt_0123456789ab',
      'evt_0123456789AB',
      'evt_0123456789abcd',
      'evt_01234567-9ab',
    ];
    const list = [
      ...odd.map((id) => ({ ...journalEntry(3), id })),
      ...entriesAbout(10),
      { ...journalEntry(3), id: 'evt_zz' },
    ];
    await writeIndexed(path, list);
    damageA4(path, list);
    expect(about3(path)).toEqual({ ids: of3(list), skipped: 0 });
  });
});

describe('an index that cannot be trusted is passed over', () => {
  it('a header that is not svc’s, or an index shorter than its header: the file is read whole', async () => {
    const { path, list } = await indexed();
    const idx = readFileSync(indexPath(path));
    for (const bad of [
      Buffer.concat([Buffer.from('svcidx2\n'), idx.subarray(INDEX_HEADER)]),
      idx.subarray(0, INDEX_HEADER - 1),
      Buffer.alloc(0),
    ]) {
      writeFileSync(indexPath(path), bad);
      expect(about3(path), `index of ${bad.length} bytes`).toEqual({
        ids: of3(list),
        skipped: 1,
      });
    }
  });

  it('a record cut short by a crash is left out; the records before it are used', async () => {
    const { path, list } = await indexed();
    const idx = readFileSync(indexPath(path));
    writeFileSync(
      indexPath(path),
      Buffer.concat([idx, idx.subarray(INDEX_HEADER, INDEX_HEADER + 20)]),
    );
    expect(about3(path)).toEqual({ ids: of3(list), skipped: 0 });
    // Only the header and part of the first record: no record, every line read.
    writeFileSync(indexPath(path), idx.subarray(0, INDEX_HEADER + INDEX_RECORD - 1));
    expect(about3(path)).toEqual({ ids: of3(list), skipped: 1 });
  });

  it('records out of the file’s order: the entries still come in the order they arrived', async () => {
    const { path, list } = await indexed();
    const idx = Buffer.from(readFileSync(indexPath(path)));
    // Two records of request 3 swapped (neither the first nor the last record).
    const [a, b] = list.flatMap((e, i) => (e.cobro_id === 3 ? [i] : [])).slice(1, 3);
    const ra = Buffer.from(
      idx.subarray(INDEX_HEADER + a! * INDEX_RECORD, INDEX_HEADER + (a! + 1) * INDEX_RECORD),
    );
    idx.copy(
      idx,
      INDEX_HEADER + a! * INDEX_RECORD,
      INDEX_HEADER + b! * INDEX_RECORD,
      INDEX_HEADER + (b! + 1) * INDEX_RECORD,
    );
    ra.copy(idx, INDEX_HEADER + b! * INDEX_RECORD);
    writeFileSync(indexPath(path), idx);
    expect(about3(path)).toEqual({ ids: of3(list), skipped: 1 });
  });

  it('records of entries about no request are never taken for a request', async () => {
    const path = journalIn();
    const list = [...entriesAbout(4), { ...journalEntry(1), cobro_id: null }, ...entriesAbout(4)];
    await writeIndexed(path, list);
    expect(readJournalAbout(path, -1).entries).toEqual([]);
    expect(ids(readJournalAbout(path, 3).entries)).toEqual(of3(list));
  });

  it('each generation’s index is read in turn, however many records each holds', async () => {
    const path = journalIn();
    const big = (i: number) => Buffer.from(`{"n":${i},"p":"${'x'.repeat(3000)}"}`);
    // Few records, many, then few again (each file's index is read into the same memory when it fits).
    const files = [
      { file: rotatedPath(path, 2), list: entriesAbout(6, 0, big) },
      { file: rotatedPath(path, 1), list: entriesAbout(40) },
      { file: path, list: entriesAbout(7, 1, big) },
    ];
    for (const { file, list } of files) {
      await writeIndexed(file, list);
      damageA4(file, list, list.filter((e) => e.cobro_id === 4).length - 1);
    }
    const all = files.flatMap((f) => f.list);
    expect(about3(path)).toEqual({ ids: of3(all), skipped: 0 });
    expect(readJournal(path).skipped).toBe(3);
  });
});

describe('the listener keeps its index good', () => {
  it('opened again, it indexes the lines appended without it, and trusts the records already there', async () => {
    const path = journalIn();
    const first = entriesAbout(10);
    await writeIndexed(path, first);
    // `svc webhook replay` appends without an index while the listener is stopped.
    const replay = await Journal.open(path);
    const more = entriesAbout(10, 10);
    for (const e of more) await replay.append(e);
    await replay.close();
    const before = readFileSync(indexPath(path));
    await writeIndexed(path, []);
    // The records already there are kept as they were, the new ones after them.
    const after = readFileSync(indexPath(path));
    expect(after.subarray(0, before.length)).toEqual(before);
    expect(after.length).toBe(INDEX_HEADER + 20 * INDEX_RECORD);
    damageA4(path, first);
    damageA4(path, more);
    expect(about3(path)).toEqual({ ids: of3([...first, ...more]), skipped: 0 });
  });

  it('opened after a crash that cut a record short, it drops the piece and goes on after the whole ones', async () => {
    const { path, list } = await indexed(10);
    const idx = readFileSync(indexPath(path));
    writeFileSync(indexPath(path), Buffer.concat([idx, Buffer.alloc(INDEX_RECORD - 5, 0xff)]));
    const more = entriesAbout(10, 10);
    await writeIndexed(path, more);
    expect(readFileSync(indexPath(path)).length).toBe(idx.length + 10 * INDEX_RECORD);
    damageA4(path, more);
    expect(about3(path)).toEqual({ ids: of3([...list, ...more]), skipped: 0 });
  });

  it('an index it cannot trust is written again whole when it opens the journal', async () => {
    const { path, list } = await indexed(20);
    const idx = readFileSync(indexPath(path));
    // Another journal's index: records of lines of the same lengths with other ids.
    const other = journalIn();
    await writeIndexed(other, entriesAbout(20));
    writeFileSync(indexPath(path), readFileSync(indexPath(other)));
    expect(about3(path).skipped).toBe(1);
    await writeIndexed(path, []);
    // The damaged line is no entry: it has no record, and is read.
    expect(readFileSync(indexPath(path)).length).toBe(idx.length - INDEX_RECORD);
    // A line damaged now is not: the records are used again.
    damageA4(path, list, 2);
    expect(about3(path)).toEqual({ ids: of3(list), skipped: 1 });
    expect(readJournal(path).skipped).toBe(2);
  });

  it('a batch written after another process appended gets no records (they would name other lines)', async () => {
    const path = journalIn();
    const a = entriesAbout(10);
    const b = entriesAbout(6, 2);
    const c = entriesAbout(5, 4);
    const d = entriesAbout(10, 1);
    const listener = await Journal.open(path, { index: true });
    for (const e of a) await listener.append(e);
    const replay = await Journal.open(path);
    for (const e of b) await replay.append(e);
    await replay.close();
    // One batch, then the next ones.
    await Promise.all(c.map((e) => listener.append(e)));
    for (const e of d) await listener.append(e);
    await listener.close();
    expect(readFileSync(indexPath(path)).length).toBe(
      INDEX_HEADER + (a.length + d.length) * INDEX_RECORD,
    );
    damageA4(path, a);
    damageA4(path, d);
    expect(about3(path)).toEqual({ ids: of3([...a, ...b, ...c, ...d]), skipped: 0 });
  });

  it('more than a chunk of lines without records between indexed ones, and a torn last line: all read, the torn one named', async () => {
    const path = journalIn();
    const big = (i: number) => Buffer.from(`{"n":${i},"p":"${'x'.repeat(1000)}"}`);
    const a = entriesAbout(10);
    // Appended by another process: about 12 KiB (3 chunks), then a line longer than two chunks.
    const b = [...entriesAbout(9, 2, big), journalEntry(3, Buffer.from('x'.repeat(10_000)))];
    const d = entriesAbout(10, 1);
    const listener = await Journal.open(path, { index: true });
    // Queued together: one write, and its records.
    await Promise.all(a.map((e) => listener.append(e)));
    const replay = await Journal.open(path);
    for (const e of b) await replay.append(e);
    await replay.close();
    await listener.append(journalEntry(5)); // written after the other process's lines: no records
    for (const e of d) await listener.append(e);
    await listener.close();
    writeFileSync(path, readFileSync(path, 'utf8') + lineOf(journalEntry(3)).slice(0, 50), {
      flag: 'w',
    });
    damageA4(path, a);
    damageA4(path, d);
    const r = readJournalAbout(path, 3);
    expect(ids(r.entries)).toEqual(of3([...a, ...b, ...d]));
    expect(r.skipped).toBe(1);
    const lines = 10 + 10 + 1 + 10 + 1;
    expect(r.problems).toEqual([
      { file: path, line: lines, why: 'no es JSON (¿una línea cortada?)' },
    ]);
  });

  it('an index lost from a journal with blank lines is built again whole', async () => {
    const path = journalIn();
    const list = entriesAbout(10);
    writeFileSync(
      path,
      list.map((e, i) => (i % 3 === 0 ? `\n${lineOf(e)}  \n` : lineOf(e))).join(''),
    );
    await writeIndexed(path, []);
    expect(readFileSync(indexPath(path)).length).toBe(INDEX_HEADER + 10 * INDEX_RECORD);
    damageA4(path, list, 1);
    expect(about3(path)).toEqual({ ids: of3(list), skipped: 0 });
  });

  it('after a write that failed, the records of the next one name its lines, past the newline that starts it', async () => {
    const path = journalIn();
    const a = entriesAbout(10);
    const c = entriesAbout(10, 2);
    const listener = await Journal.open(path, { index: true });
    for (const e of a) await listener.append(e);
    vi.spyOn(FH, 'write').mockImplementationOnce(async () => {
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), {
        code: 'ENOSPC',
      });
    });
    await expect(listener.append(journalEntry(3))).rejects.toThrow('ENOSPC');
    for (const e of c) await listener.append(e);
    await listener.close();
    expect(readFileSync(indexPath(path)).length).toBe(INDEX_HEADER + 20 * INDEX_RECORD);
    damageA4(path, a);
    damageA4(path, c);
    expect(about3(path)).toEqual({ ids: of3([...a, ...c]), skipped: 0 });
  });

  it('an index that cannot be written (a folder in its place): the journal is written and read without it', async () => {
    const path = journalIn();
    mkdirSync(indexPath(path));
    const list = entriesAbout(12);
    await writeIndexed(path, list);
    const more = entriesAbout(3, 12);
    await writeIndexed(path, more);
    expect(readJournal(path).entries).toHaveLength(15);
    damageA4(path, list);
    expect(about3(path)).toEqual({ ids: of3([...list, ...more]), skipped: 1 });
  });
});

/** The same journal without its indexes: what reading back finds, the answer an indexed look-up must give. */
function withoutIndexes(path: string): string {
  const copy = join(tempDir('svc-jtrust-'), 'webhooks.jsonl');
  for (const name of readdirSync(dirname(path)))
    if (!name.endsWith('.idx')) copyFileSync(join(dirname(path), name), join(dirname(copy), name));
  return copy;
}

const looked = (path: string, id: string) => {
  const reader = new JournalReader(path);
  const found = lookUp(reader, id);
  return { found, skipped: reader.skipped, problems: reader.problems() };
};

describe('looking an id up through the index (webhook ver, replay)', () => {
  it('the start of an id is found on an indexed journal as on one without its index', async () => {
    const path = journalIn();
    const list = entriesAbout(10);
    await writeIndexed(path, list);
    const start = list[4]!.id.slice(0, 12);
    expect(looked(path, start).found).toEqual(looked(withoutIndexes(path), start).found);
    expect(looked(path, start).found.entry?.id).toBe(list[4]!.id);
  });

  it('an entry in an older file, its replays in it and in newer ones, and one appended between indexed lines: all, oldest first', async () => {
    const path = journalIn();
    const original = journalEntry(3);
    const replay = (): JournalEntry => ({
      ...journalEntry(3),
      source: 'replay',
      replay_of: original.id,
    });
    const replays = [replay(), replay(), replay(), replay(), replay()];
    // Each file with its index: the original in the oldest, a replay in each.
    await writeIndexed(rotatedPath(path, 2), [
      ...entriesAbout(3),
      original,
      replays[0]!,
      ...entriesAbout(2),
    ]);
    await writeIndexed(rotatedPath(path, 1), [...entriesAbout(2), replays[1]!]);
    const listener = await Journal.open(path, { index: true });
    for (const e of [...entriesAbout(3), replays[2]!]) await listener.append(e);
    // Another process appends a replay between the listener's lines.
    const other = await Journal.open(path);
    await other.append(replays[3]!);
    await other.close();
    await listener.append(journalEntry(5)); // after the other's line: no record
    await listener.append(replays[4]!);
    for (const e of entriesAbout(3)) await listener.append(e);
    await listener.close();
    // A line about another request in the newest file, damaged: reading back would reach it.
    const about2 = readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as JournalEntry)
      .find((e) => e.cobro_id === 2)!;
    damage(path, about2.id);
    const indexed = looked(path, original.id);
    expect(ids(indexed.found.replays)).toEqual(ids(replays));
    expect(indexed.skipped).toBe(0);
    expect(indexed.found).toEqual(looked(withoutIndexes(path), original.id).found);
  });

  it('an id of another shape that starts with the id asked: found by its start, indexed or appended without records', async () => {
    for (const appended of [false, true]) {
      const path = journalIn();
      const asked = 'evt_0123456789ab';
      const odd = { ...journalEntry(3), id: `${asked}c` };
      await writeIndexed(path, entriesAbout(8));
      if (appended) {
        const other = await Journal.open(path);
        await other.append(odd);
        await other.close();
      } else await writeIndexed(path, [odd]);
      await writeIndexed(path, entriesAbout(3));
      const got = looked(path, asked);
      expect(got.found, `appended: ${appended}`).toEqual({ entry: odd, replays: [], matches: 1 });
    }
  });

  it('a skipped line is counted once and named by its line, whether the index answers or not', async () => {
    const path = journalIn();
    const one = Buffer.byteLength(lineOf(journalEntry(1)));
    const list = entriesAbout(12);
    await (async () => {
      const j = await Journal.open(path, { index: true, maxBytes: 6 * one });
      for (const e of list) await j.append(e);
      await j.close();
    })();
    // A torn line and an entry, without records, in the newest file.
    writeFileSync(path, `${readFileSync(path, 'utf8')}{"torn"\n${lineOf(journalEntry(2))}`);
    const lines = readFileSync(path, 'utf8').split('\n').length - 1;
    const old = list[1]!.id; // in the oldest file
    const want = [{ file: path, line: lines - 1, why: 'no es JSON (¿una línea cortada?)' }];
    const indexed = looked(path, old);
    expect(indexed.found.entry?.id).toBe(old);
    expect([indexed.skipped, indexed.problems]).toEqual([1, want]);
    // The oldest file's index lost: the look-up reads back instead, and counts the line once.
    writeFileSync(indexPath(rotatedPath(path, generationPaths(path).length)), 'x');
    const back = looked(path, old);
    expect(back.found.entry?.id).toBe(old);
    expect([back.skipped, back.problems]).toEqual([1, want]);
  });
});
