// The journal's index: `caso` reads only the lines about its request, and whatever
// the index says is checked against the journal, which stays the truth: a torn last
// line, a lost or stale index, a journal copied without its index or lines another
// process appended give the same entries as reading every line.
import { appendFileSync, copyFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { damage, entriesAbout, journalEntry, writeIndexed } from '../helpers/journal.js';
import {
  indexPath,
  Journal,
  readJournal,
  readJournalAbout,
  rejectedPath,
  rotatedPath,
  type JournalEntry,
} from '../../src/webhooks/event-journal.js';

const ids = (list: readonly JournalEntry[]) => list.map((e) => e.id);
const about3 = (path: string) => readJournal(path, (e) => e.cobro_id === 3);

describe('journal index', () => {
  it('reads only the lines the index names for the request, across rotated files', async () => {
    const path = join(tempDir('svc-jidx-'), 'webhooks.jsonl');
    const one = Buffer.byteLength(`${JSON.stringify(journalEntry(1))}\n`);
    const list = entriesAbout(40);
    await writeIndexed(path, list, { maxBytes: 12 * one, generations: 4 });
    // Each file has its index, moved along with it.
    for (const f of [path, rotatedPath(path), rotatedPath(path, 2), rotatedPath(path, 3)])
      expect(existsSync(indexPath(f)), f).toBe(true);
    const want = about3(path);
    expect(want.entries.length).toBeGreaterThan(4);
    // A line about another request, damaged after it was indexed, is not even read.
    damage(
      rotatedPath(path, 2),
      list.find(
        (e) => e.cobro_id === 4 && readFileSync(rotatedPath(path, 2), 'utf8').includes(e.id),
      )!.id,
    );
    const got = readJournalAbout(path, 3);
    expect(ids(got.entries)).toEqual(ids(want.entries));
    expect(got.skipped).toBe(0);
    // Read whole, the damaged line is there.
    expect(readJournal(path).skipped).toBe(1);
  });

  it('a lost index: the file is read whole, and the listener builds it again', async () => {
    const path = join(tempDir('svc-jidx-'), 'webhooks.jsonl');
    const list = entriesAbout(30);
    await writeIndexed(path, list);
    rmSync(indexPath(path));
    damage(path, list[3]!.id); // request 4
    const got = readJournalAbout(path, 3);
    expect(ids(got.entries)).toEqual(ids(list.filter((e) => e.cobro_id === 3)));
    expect(got.skipped).toBe(1);
    // Opened again, the index is back (the damaged line, no entry, has no record and is
    // still read): a line about another request damaged now is not read.
    await writeIndexed(path, []);
    expect(existsSync(indexPath(path))).toBe(true);
    damage(path, list[8]!.id); // request 4
    const again = readJournalAbout(path, 3);
    expect(ids(again.entries)).toEqual(ids(got.entries));
    expect(again.skipped).toBe(1);
    expect(readJournal(path).skipped).toBe(2);
  });

  it('a torn last line, then more entries: none lost, the torn one reported', async () => {
    const path = join(tempDir('svc-jidx-'), 'webhooks.jsonl');
    const list = entriesAbout(10);
    await writeIndexed(path, list);
    appendFileSync(path, JSON.stringify(journalEntry(3)).slice(0, 40));
    const torn = readJournalAbout(path, 3);
    expect(ids(torn.entries)).toEqual(ids(list.filter((e) => e.cobro_id === 3)));
    expect(torn.skipped).toBe(1);
    const more = entriesAbout(10, 10);
    await writeIndexed(path, more);
    const got = readJournalAbout(path, 3);
    expect(ids(got.entries)).toEqual(ids([...list, ...more].filter((e) => e.cobro_id === 3)));
    expect(got.skipped).toBe(1);
    expect(got.problems).toEqual([{ file: path, line: 11, why: expect.stringContaining('JSON') }]);
  });

  it("a copied journal: without its index, or with another journal's, the entries are the same", async () => {
    const dir = tempDir('svc-jidx-');
    const path = join(dir, 'webhooks.jsonl');
    const other = join(dir, 'otro.jsonl');
    const list = entriesAbout(25);
    await writeIndexed(path, list);
    await writeIndexed(other, entriesAbout(25));
    const want = ids(list.filter((e) => e.cobro_id === 3));
    const copy = join(tempDir('svc-jidx-'), 'webhooks.jsonl');
    copyFileSync(path, copy);
    expect(ids(readJournalAbout(copy, 3).entries)).toEqual(want);
    // Another journal's index beside it (same sizes of lines, other ids): not trusted.
    copyFileSync(indexPath(other), indexPath(copy));
    expect(ids(readJournalAbout(copy, 3).entries)).toEqual(want);
    // The journal replaced by a shorter one under the same index.
    copyFileSync(indexPath(path), indexPath(copy));
    const short = list.slice(0, 9);
    await writeIndexed(join(dir, 'corto.jsonl'), short);
    copyFileSync(join(dir, 'corto.jsonl'), copy);
    expect(ids(readJournalAbout(copy, 3).entries)).toEqual(
      ids(short.filter((e) => e.cobro_id === 3)),
    );
    // An index whose line for the request holds another entry now: the file is read.
    copyFileSync(path, copy);
    copyFileSync(indexPath(path), indexPath(copy));
    const target = list.find((e) => e.cobro_id === 3)!;
    damage(copy, target.id);
    const got = readJournalAbout(copy, 3);
    expect(ids(got.entries)).toEqual(want.filter((id) => id !== target.id));
    expect(got.skipped).toBe(1);
  });

  it('lines another process appended, and the rejected requests, are found by arrival', async () => {
    const path = join(tempDir('svc-jidx-'), 'webhooks.jsonl');
    const a = entriesAbout(10);
    const b = entriesAbout(6, 2);
    const c = entriesAbout(10, 4);
    const listener = await Journal.open(path, { index: true });
    for (const e of a) await listener.append(e);
    // `svc webhook replay` appends without an index, while the listener runs.
    const replay = await Journal.open(path);
    for (const e of b) await replay.append(e);
    await replay.close();
    for (const e of c) await listener.append(e);
    await listener.close();
    const stranger = { ...journalEntry(3), verification: { valid: false, reason: 'firma' } };
    await writeIndexed(rejectedPath(path), [stranger]);
    const got = readJournalAbout(path, 3);
    expect(ids(got.entries)).toEqual(ids(readJournal(path, (e) => e.cobro_id === 3).entries));
    expect(ids(got.entries)).toEqual(
      ids([...a, ...b, ...c, stranger].filter((e) => e.cobro_id === 3)),
    );
    expect(readJournalAbout(path, 99).entries).toEqual([]);
  });
});
