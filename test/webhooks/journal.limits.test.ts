// The journal's bounds: what it keeps by default (40 files) and how lines queued
// together go out in one write; how big a file and how many files a size asks for;
// which names are its generations; a line longer than any entry svc writes (16 MiB)
// skipped and named, in bounded memory, however it is read; every reading closing
// the files it opened; a journal that cannot be opened being an error, not an empty
// journal.
import { existsSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { journalEntry } from '../helpers/journal.js';
import { skipBecause } from '../helpers/skips.js';
import {
  generationPaths,
  indexPath,
  Journal,
  JOURNAL_KEEP_BYTES,
  JOURNAL_MAX_BYTES,
  JournalReader,
  journalSizes,
  lookUp,
  MAX_LINE_BYTES,
  readJournal,
  readJournalAbout,
  rejectedPath,
  rotatedPath,
  setReadSizes,
  type JournalEntry,
} from '../../src/webhooks/event-journal.js';

const lineOf = (e: JournalEntry) => `${JSON.stringify(e)}\n`;
const journalIn = () => join(tempDir('svc-jlimits-'), 'webhooks.jsonl');
const ids = (list: Iterable<JournalEntry>) => [...list].map((e) => e.id);
const MiB = 1024 * 1024;

describe('what the journal keeps', () => {
  it('by default: the lines queued together go out in one write, and 40 files are kept', async () => {
    const path = journalIn();
    const j = await Journal.open(path);
    await Promise.all(Array.from({ length: 50 }, (_, i) => j.append(journalEntry(i))));
    await j.close();
    expect(j.stats()).toEqual({ lines: 50, syncs: 1 });
    expect(JOURNAL_KEEP_BYTES / JOURNAL_MAX_BYTES).toBe(40);
    // Files of one line each: 40 files, the one written to (empty after its rotation) and 39
    // before it, hold the last 39 of the 43 lines written.
    rmSync(path);
    const one = Buffer.byteLength(lineOf(journalEntry(1)));
    const small = await Journal.open(path, { maxBytes: one });
    for (let i = 1; i <= 43; i++) await small.append(journalEntry(i));
    await small.close();
    expect(generationPaths(path)).toHaveLength(39);
    expect(existsSync(path)).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('');
    expect(readJournal(path).entries.map((e) => e.cobro_id)).toEqual(
      Array.from({ length: 39 }, (_, i) => i + 5),
    );
  });

  it('the size asked for, split into files: the default size each, two at least, never more than asked', () => {
    expect(journalSizes(JOURNAL_KEEP_BYTES)).toEqual({
      maxBytes: JOURNAL_MAX_BYTES,
      generations: 40,
    });
    expect(journalSizes(10 * JOURNAL_MAX_BYTES)).toEqual({
      maxBytes: JOURNAL_MAX_BYTES,
      generations: 10,
    });
    // Less than two files of the default size: two files of half of it.
    expect(journalSizes(100 * MiB)).toEqual({ maxBytes: 50 * MiB, generations: 2 });
    expect(journalSizes(3 * MiB + 1)).toEqual({ maxBytes: 1.5 * MiB, generations: 2 });
    expect(journalSizes(1)).toEqual({ maxBytes: 1, generations: 2 });
  });

  it('a journal not asked to keep an index (`webhook replay` appending) writes none', async () => {
    const path = journalIn();
    const j = await Journal.open(path);
    await j.append(journalEntry(1));
    await j.close();
    expect(existsSync(indexPath(path))).toBe(false);
  });

  it('its generations are `.1` to `.999999` beside it, oldest first; nothing else in the folder is one', () => {
    const dir = tempDir('svc-jlimits-');
    const path = join(dir, 'webhooks.jsonl');
    for (const name of [
      'webhooks.jsonl',
      'webhooks.jsonl.1',
      'webhooks.jsonl.3',
      'webhooks.jsonl.12',
      'webhooks.jsonl.999999',
      'webhooks.jsonl.1.idx',
      'webhooks.jsonl.02',
      'webhooks.jsonl.0',
      'webhooks.jsonl.1000000',
      'webhooks.jsonl.x3',
      'webhooks.jsonlx4',
      'xwebhooks.jsonl.5',
      'webhooks.rechazados.jsonl.6',
    ])
      writeFileSync(join(dir, name), '');
    expect(generationPaths(path)).toEqual([
      rotatedPath(path, 999999),
      rotatedPath(path, 12),
      rotatedPath(path, 3),
      rotatedPath(path, 1),
    ]);
    // A folder that is not there holds none: the journal is empty.
    const gone = join(dir, 'no-existe', 'webhooks.jsonl');
    expect(generationPaths(gone)).toEqual([]);
    expect(readJournal(gone)).toEqual({ entries: [], skipped: 0, problems: [] });
  });

  it('read with no order asked: oldest first, the verified events and the rejected requests alike', () => {
    const path = journalIn();
    const list = [journalEntry(1), journalEntry(2), journalEntry(3)];
    writeFileSync(path, list.map(lineOf).join(''));
    writeFileSync(rejectedPath(path), list.map(lineOf).join(''));
    expect(ids(new JournalReader(path).events())).toEqual(ids(list));
    expect(ids(new JournalReader(path).rejected())).toEqual(ids(list));
    expect(ids(new JournalReader(path).all())).toHaveLength(6);
  });

  it('lines of blanks (spaces, tabs, carriage returns) are neither entries nor skipped lines', () => {
    const path = journalIn();
    writeFileSync(
      path,
      `\t\n${lineOf(journalEntry(1))} \t\r\n\r\n\n   \n${lineOf(journalEntry(2))}`,
    );
    for (const order of ['oldest', 'newest'] as const) {
      const reader = new JournalReader(path);
      expect([...reader.events(order)], order).toHaveLength(2);
      expect(reader.skipped, order).toBe(0);
    }
  });
});

describe('a line longer than any entry svc writes', () => {
  // 16 MiB (MAX_LINE_BYTES) in svc; 1 MiB here, read 64 KiB at a time, is the same reading.
  beforeAll(() => setReadSizes({ chunkBytes: 64 * 1024, maxLineBytes: MiB }));
  afterAll(() => setReadSizes());

  it('is skipped and named, without being kept whole, read from the start or from the end', () => {
    expect(MAX_LINE_BYTES).toBe(16 * MiB);
    const path = journalIn();
    const [a, b] = [journalEntry(1), journalEntry(2)];
    const tooLong = `${'x'.repeat(MiB + 1)}\n`;
    writeFileSync(path, `${lineOf(a)}${tooLong}${lineOf(b)}`);
    const why = 'más de 1 MiB en una línea';
    const forward = readJournal(path);
    expect(ids(forward.entries)).toEqual(ids([a, b]));
    expect(forward.problems).toEqual([{ file: path, line: 2, why }]);
    const reader = new JournalReader(path);
    expect(ids(reader.events('newest'))).toEqual(ids([b, a]));
    expect(reader.problems()).toEqual([{ file: path, line: 2, why }]);
  });
});

describe('every reading closes what it opened', () => {
  it.skipIf(skipBecause(import.meta.url, process.platform !== 'linux' && 'counts /proc/self/fd'))(
    'read whole, newest first, stopped halfway, through the index or past it: no descriptor left open',
    async () => {
      const fds = () => readdirSync('/proc/self/fd').length;
      const path = journalIn();
      const list = Array.from({ length: 30 }, (_, i) => journalEntry((i % 5) + 1));
      const before = fds();
      const j = await Journal.open(path, { index: true, maxBytes: 10 * 1024 });
      for (const e of list) await j.append(e);
      await j.close();
      writeFileSync(rejectedPath(path), `no json\n${lineOf(journalEntry(3))}`);
      expect(generationPaths(path).length).toBeGreaterThan(0);
      expect(fds()).toBe(before);
      readJournal(path);
      const newest = new JournalReader(path);
      expect([...newest.all('newest')]).toHaveLength(31);
      newest.problems();
      const halfway = new JournalReader(path).events('newest');
      halfway.next();
      halfway.return(undefined);
      expect(lookUp(new JournalReader(path), list[20]!.id).entry?.id).toBe(list[20]!.id);
      expect(readJournalAbout(path, 3).entries).toHaveLength(7);
      // An index that names another line: the file is read instead.
      const older = rotatedPath(path);
      expect(readFileSync(older, 'utf8')).toContain('"cobro_id":3');
      writeFileSync(older, readFileSync(older, 'utf8').replace('"cobro_id":3', '"cobro_id":4'));
      expect(readJournalAbout(path, 3).entries).toHaveLength(6);
      expect(fds()).toBe(before);
    },
  );
});

describe('a journal that cannot be opened', () => {
  it('is an error naming it, not an empty journal, however it is read', () => {
    const dir = tempDir('svc-jlimits-');
    const path = join(dir, 'webhooks.jsonl');
    // A link to itself: opening it fails (ELOOP).
    symlinkSync(path, path);
    const said = new RegExp(`^no se pudo leer el journal ${path.replace(/[.]/g, '\\.')}: ELOOP`);
    expect(() => readJournal(path)).toThrow(said);
    expect(() => [...new JournalReader(path).events('newest')]).toThrow(said);
    expect(() => readJournalAbout(path, 3)).toThrow(said);
    expect(() => lookUp(new JournalReader(path), 'evt_')).toThrow(said);
  });
});
