// Reading the journal from its newest entry back (`webhook eventos`, `webhook ver`,
// `webhook replay --ultimos`): the same entries as reading it from the start, in the
// other order, wherever its lines fall on the chunks it is read by (from the end; 4 KiB
// here, so that a few KiB of lines cross many chunks); the lines it skips named by file and line as a reading from the start names
// them; and `ver`'s look-up, which stops at the entry asked for.
import { rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { journalEntry, journalEntryAs } from '../helpers/journal.js';
import {
  JournalReader,
  lookUp,
  readJournal,
  rejectedPath,
  rotatedPath,
  setReadSizes,
  type JournalEntry,
} from '../../src/webhooks/event-journal.js';

/** What the reader reads from the end at a time (event-journal.ts's CHUNK_BYTES, set small). */
const CHUNK = 4096;
beforeAll(() => setReadSizes({ chunkBytes: CHUNK }));
afterAll(() => setReadSizes());
const lineOf = (e: JournalEntry) => `${JSON.stringify(e)}\n`;
const journalIn = () => join(tempDir('svc-jback-'), 'webhooks.jsonl');
const ids = (list: Iterable<JournalEntry>) => [...list].map((e) => e.id);

/** An entry about request `i` whose line (newline included) is exactly `bytes` long. */
function entryOfLine(i: number, bytes: number): JournalEntry {
  let pad = 0;
  for (;;) {
    const e = journalEntry(i, Buffer.from(`{"n":${i},"p":"${'x'.repeat(pad)}"}`));
    const diff = bytes - Buffer.byteLength(lineOf(e));
    if (diff === 0) return e;
    pad += diff;
    if (pad < 0) throw new Error(`no line of ${bytes} bytes`);
  }
}

/** Entries of many sizes (a tenth of a chunk to three chunks), the same each run. */
function manySizes(): JournalEntry[] {
  const sizes = [480, 700, 1100, 460, 2000, 500, 3 * CHUNK + 17, 520, 1500, 540];
  return sizes.map((bytes, i) => entryOfLine(i + 1, bytes));
}

function newestFirst(path: string): { ids: string[]; reader: JournalReader } {
  const reader = new JournalReader(path);
  return { ids: ids(reader.events('newest')), reader };
}

describe('the journal read from its newest entry back', () => {
  it('gives every entry of every generation, newest first, whatever the size of its lines', () => {
    const path = journalIn();
    const old = manySizes().slice(0, 4);
    const all = manySizes();
    writeFileSync(rotatedPath(path), old.map(lineOf).join(''));
    writeFileSync(path, all.map(lineOf).join(''));
    const { ids: got, reader } = newestFirst(path);
    expect(got).toEqual(ids([...old, ...all]).reverse());
    expect(reader.skipped).toBe(0);
    expect(ids(new JournalReader(path).events('oldest'))).toEqual(ids([...old, ...all]));
  });

  it('a chunk that ends exactly at the end of a line, or starts with a newline: no line lost, split or doubled', () => {
    for (const last of [CHUNK, CHUNK - 1, CHUNK + 1, 2 * CHUNK]) {
      const path = journalIn();
      // The last line is `last` bytes: the newline before it is where a chunk ends or begins.
      const list = [...manySizes().slice(0, 5), entryOfLine(50, last)];
      writeFileSync(path, list.map(lineOf).join(''));
      const { ids: got, reader } = newestFirst(path);
      expect(got, `last line of ${last} bytes`).toEqual(ids(list).reverse());
      expect(reader.skipped).toBe(0);
    }
  });

  it('the file’s first bytes, read last and fewer than a chunk: nothing left from the chunk read before', () => {
    // Read last, the first 1000 bytes go into the buffer that still holds the chunk read
    // before them: past them, the end of the second line (its newline at 2001) is not theirs.
    const path = journalIn();
    const first = 1000;
    const list = [
      entryOfLine(1, first),
      entryOfLine(2, first + 2),
      entryOfLine(3, CHUNK - first - 2),
    ];
    writeFileSync(path, list.map(lineOf).join(''));
    const { ids: got, reader } = newestFirst(path);
    expect(got).toEqual(ids(list).reverse());
    expect(reader.skipped).toBe(0);
  });

  it('a torn last line and blank lines: the entries all there, only the torn line skipped and named', () => {
    const path = journalIn();
    const list = manySizes().slice(0, 6);
    const torn = lineOf(journalEntry(77)).slice(0, 60);
    writeFileSync(
      path,
      `\n${list.slice(0, 3).map(lineOf).join('')}  \n\r\n${list.slice(3).map(lineOf).join('')}${torn}`,
    );
    const { ids: got, reader } = newestFirst(path);
    expect(got).toEqual(ids(list).reverse());
    expect(reader.skipped).toBe(1);
    expect(reader.problems()).toEqual([
      { file: path, line: 10, why: 'no es JSON (¿una línea cortada?)' },
    ]);
    // Read from the start, the same.
    expect(readJournal(path).problems).toEqual(reader.problems());
  });

  it('a skipped line whose file is gone (rotated away) before it is named: still named, no error', () => {
    const path = journalIn();
    writeFileSync(path, `${lineOf(journalEntry(1))}no json\n`);
    const reader = new JournalReader(path);
    expect([...reader.events('newest')]).toHaveLength(1);
    rmSync(path);
    expect(reader.problems()).toMatchObject([
      { file: path, why: 'no es JSON (¿una línea cortada?)' },
    ]);
  });

  it('skipped lines are named by the line they are on, as a reading from the start names them', () => {
    const path = journalIn();
    const good = manySizes();
    // Bad lines at the file's first byte, beside each other, past the first chunks, and
    // at the first byte of a chunk counted from the start.
    const lines = [
      'x\n',
      lineOf(good[0]!),
      '{"id":""}\n',
      '[1]\n',
      ...good.slice(1, 7).map(lineOf),
      'null\n',
      ...good.slice(7).map(lineOf),
    ];
    const before = lines.join('');
    const fill = CHUNK * 6 - Buffer.byteLength(before);
    const text = `${before}${lineOf(entryOfLine(60, fill))}{"no":"cierra"\n${lineOf(good[0]!)}`;
    writeFileSync(path, text);
    const forward = readJournal(path);
    expect(forward.skipped).toBe(5);
    expect(forward.problems.map((p) => p.line)).toEqual([1, 3, 4, 11, 16]);
    const { reader } = newestFirst(path);
    expect(reader.skipped).toBe(5);
    expect(reader.problems()).toEqual(forward.problems);
  });

  it('the rejected requests merged in: exactly the order of a reading from the start, reversed', () => {
    const path = journalIn();
    const at = (s: number) => `2026-01-01T00:00:0${s}.000Z`;
    const event = (s: number) => ({ ...journalEntry(s), received_at: at(s) });
    const stranger = (s: number) => ({
      ...journalEntry(s + 10),
      received_at: at(s),
      verification: { valid: false, reason: 'firma' },
    });
    writeFileSync(rotatedPath(path), [event(1), event(3)].map(lineOf).join(''));
    writeFileSync(path, [event(4), event(6)].map(lineOf).join(''));
    // One of the same millisecond as an event, one between two generations, one after all.
    writeFileSync(rejectedPath(path), [stranger(2), stranger(4), stranger(7)].map(lineOf).join(''));
    const oldest = ids(new JournalReader(path).all('oldest'));
    expect(oldest).toHaveLength(7);
    expect(ids(new JournalReader(path).all('newest'))).toEqual([...oldest].reverse());
  });

  it('skipped lines of each file are named, the oldest file’s first, though it is read last', () => {
    const path = journalIn();
    const good = lineOf(journalEntry(1));
    writeFileSync(rotatedPath(path), `${good}no json\n${good}[2]\n`);
    const current = [good, ...Array.from({ length: 7 }, (_, i) => `{"malo":${i}}\n${good}`)];
    writeFileSync(path, current.join(''));
    const reader = new JournalReader(path);
    expect([...reader.events('newest')]).toHaveLength(10);
    expect(reader.skipped).toBe(9);
    const named = reader.problems();
    expect(named.slice(0, 2)).toEqual([
      { file: rotatedPath(path), line: 2, why: 'no es JSON (¿una línea cortada?)' },
      { file: rotatedPath(path), line: 4, why: 'no es un objeto' },
    ]);
    // Then lines of the newest file, each one that really was skipped, in order.
    const lines = current.join('').split('\n');
    expect(named.slice(2).map((p) => p.file)).toEqual([path, path, path]);
    for (const p of named.slice(2)) expect(lines[p.line - 1]).toMatch(/^\{"malo":\d\}$/);
    expect(named.slice(2).map((p) => p.line)).toEqual(
      named
        .slice(2)
        .map((p) => p.line)
        .sort((a, b) => a - b),
    );
  });

  it('a file shortened while it is read (rotated, or cut by hand) is an error, not lines made up', () => {
    const path = journalIn();
    writeFileSync(path, manySizes().map(lineOf).join(''));
    const newest = new JournalReader(path).events('newest');
    expect(newest.next().done).toBe(false);
    truncateSync(path, 100);
    expect(() => [...newest]).toThrow(`el journal ${path} cambió mientras se leía`);
  });
});

/** A journal written by hand: entries, replays and rejected requests with ids chosen. */
function journalOf(path: string, lines: (JournalEntry | string)[], rejected: JournalEntry[] = []) {
  writeFileSync(path, lines.map((l) => (typeof l === 'string' ? l : lineOf(l))).join(''));
  writeFileSync(rejectedPath(path), rejected.map(lineOf).join(''));
}

const ORIGINAL = 'evt_aaaa11110000';
const OTHER = 'evt_aaaa22220000';
const replay = (id: string, of: string, received_at: string) =>
  journalEntryAs(id, { source: 'replay', replay_of: of, received_at });

describe('lookUp: the entry an id names, and its replays', () => {
  const setUp = () => {
    const path = journalIn();
    const original = journalEntryAs(ORIGINAL, { received_at: '2026-11-25T10:00:00.000Z' });
    const other = journalEntryAs(OTHER, { received_at: '2026-11-25T10:00:01.000Z' });
    const stranger = journalEntryAs('evt_cccc00000000', {
      received_at: '2026-11-25T10:00:02.000Z',
      verification: { valid: false, reason: 'firma' },
    });
    const r1 = replay('evt_bbbb00000001', ORIGINAL, '2026-11-25T11:00:00.000Z');
    const r2 = replay('evt_bbbb00000002', OTHER, '2026-11-25T11:00:01.000Z');
    const r3 = replay('evt_bbbb00000003', ORIGINAL, '2026-11-25T11:00:02.000Z');
    // Replayed from a generation dropped since: its original is gone.
    const r4 = replay('evt_bbbb00000004', 'evt_aaaa2222ffff', '2026-11-25T11:00:03.000Z');
    // A garbled line older than every entry looked for.
    journalOf(path, ['no json\n', original, other, r1, r2, r3, r4], [stranger]);
    return { path, original, other, stranger, r1, r2, r3, r4 };
  };

  it('an id written whole: the entry and its replays oldest first, read back only as far as the entry', () => {
    const { path, original, r1, r3, other, r2 } = setUp();
    const reader = new JournalReader(path);
    const found = lookUp(reader, ORIGINAL);
    expect(found.entry?.id).toBe(original.id);
    expect(ids(found.replays)).toEqual([r1.id, r3.id]);
    expect(found.matches).toBe(1);
    // The garbled line before it was never reached.
    expect(reader.skipped).toBe(0);
    const second = lookUp(new JournalReader(path), OTHER);
    expect([second.entry?.id, ids(second.replays)]).toEqual([other.id, [r2.id]]);
  });

  it('the start of an id: the one entry it names with its replays, after reading everything', () => {
    const { path, other, r2, stranger } = setUp();
    const reader = new JournalReader(path);
    const found = lookUp(reader, 'evt_aaaa2');
    expect(found.entry?.id).toBe(other.id);
    // r4 is the replay of another entry whose id starts the same way.
    expect(ids(found.replays)).toEqual([r2.id]);
    expect(found.matches).toBe(1);
    expect(reader.skipped).toBe(1);
    expect(reader.problems()).toEqual([
      { file: path, line: 1, why: 'no es JSON (¿una línea cortada?)' },
    ]);
    // A rejected request is found too, whole or by its start.
    expect(lookUp(new JournalReader(path), stranger.id)).toEqual({
      entry: stranger,
      replays: [],
      matches: 1,
    });
    expect(lookUp(new JournalReader(path), 'evt_cc').entry?.id).toBe(stranger.id);
  });

  it('a start that names several entries, or none: no entry, and how many it names', () => {
    const { path } = setUp();
    expect(lookUp(new JournalReader(path), 'evt_aaaa')).toEqual({
      entry: undefined,
      replays: [],
      matches: 2,
    });
    // Two events, four replays and a rejected request.
    expect(lookUp(new JournalReader(path), 'evt_').matches).toBe(7);
    expect(lookUp(new JournalReader(path), 'evt_dd')).toEqual({
      entry: undefined,
      replays: [],
      matches: 0,
    });
    // An id of an entry dropped with its generation names nothing, though replays of it remain.
    expect(lookUp(new JournalReader(path), 'evt_aaaa2222ffff').matches).toBe(0);
  });

  it('an id written whole is that entry even when a longer id starts with it', () => {
    const path = journalIn();
    const short = journalEntryAs('evt_1');
    const long = journalEntryAs('evt_12');
    journalOf(path, [short, long], [journalEntryAs('evt_1x', { verification: { valid: false } })]);
    const found = lookUp(new JournalReader(path), 'evt_1');
    expect([found.entry?.id, found.matches]).toEqual(['evt_1', 1]);
    // A rejected request's id written whole, though an event's starts with it too.
    journalOf(
      path,
      [journalEntryAs('evt_2a')],
      [journalEntryAs('evt_2', { verification: { valid: false } })],
    );
    expect(lookUp(new JournalReader(path), 'evt_2').entry?.id).toBe('evt_2');
  });
});
