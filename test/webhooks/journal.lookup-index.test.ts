// `webhook ver <id>` and `webhook replay <id>` look an id up through the journal's
// index: an old entry is read at its offset (and its replays through the records of its
// request) without reading back through every newer line. The journal stays the truth:
// whatever the index cannot answer for (a lost or stale index, a copy without it, a
// record naming another line, lines appended without records, an id of another shape)
// is found by reading back as before, with the same answer.
import {
  copyFileSync,
  readFileSync,
  rmSync,
  openSync,
  writeFileSync,
  writeSync,
  closeSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { svc } from '../helpers/inproc.js';
import { startReceiver } from '../helpers/receiver.js';
import { damage, entriesAbout, journalEntry, writeIndexed } from '../helpers/journal.js';
import {
  indexPath,
  Journal,
  JournalReader,
  lookUp,
  rejectedPath,
  rotatedPath,
  type JournalEntry,
  type Lookup,
} from '../../src/webhooks/event-journal.js';
import { RECENT } from '../../src/webhooks/journal-lookup.js';

/** Lines appended as `webhook replay` appends them: without index records. */
async function appendUnindexed(path: string, list: JournalEntry[]): Promise<void> {
  const j = await Journal.open(path);
  for (const e of list) await j.append(e);
  await j.close();
}

const replayOf = (e: JournalEntry): JournalEntry => ({
  ...journalEntry(e.cobro_id!),
  source: 'replay',
  replay_of: e.id,
});

const shape = (l: Lookup) => ({
  entry: l.entry?.id,
  replays: l.replays.map((e) => e.id),
  matches: l.matches,
});

/** The look-up, and the same one on a copy of the journal's files without their indexes. */
function bothWays(dir: string, files: string[], id: string) {
  const reader = new JournalReader(join(dir, 'webhooks.jsonl'));
  const got = lookUp(reader, id);
  const bare = tempDir('svc-jlook-');
  for (const f of files) copyFileSync(join(dir, f), join(bare, f));
  const plain = new JournalReader(join(bare, 'webhooks.jsonl'));
  const want = lookUp(plain, id);
  return { got: shape(got), want: shape(want), reader, plain };
}

describe('lookUp through the index', () => {
  it('an old entry and its replays, across rotated files, without reading the newer lines', async () => {
    const dir = tempDir('svc-jlook-');
    const path = join(dir, 'webhooks.jsonl');
    const one = Buffer.byteLength(`${JSON.stringify(journalEntry(1))}\n`);
    const opts = { maxBytes: 12 * one, generations: 4 };
    const list = entriesAbout(40);
    await writeIndexed(path, list, opts);
    // The oldest entry kept, about request 3: in the oldest generation.
    const old = readFileSync(rotatedPath(path, 3), 'utf8');
    const target = list.find((e) => e.cobro_id === 3 && old.includes(e.id))!;
    // One replay appended without a record, one the listener indexed after a restart.
    const r1 = replayOf(target);
    await appendUnindexed(path, [r1]);
    const r2 = replayOf(target);
    const later = entriesAbout(3);
    await writeIndexed(path, [r2, ...later], opts);
    // Lines about other requests damaged after they were indexed, in each newer file
    // (not the first or last line of a file: those tell whether an index is trusted).
    for (const f of [rotatedPath(path, 2), rotatedPath(path)]) {
      const text = readFileSync(f, 'utf8');
      damage(f, list.filter((e) => e.cobro_id !== 3 && text.includes(e.id))[1]!.id);
    }
    damage(path, later[0]!.id);
    expect(readFileSync(rotatedPath(path, 3), 'utf8')).toContain(target.id);
    const files = ['webhooks.jsonl', 'webhooks.jsonl.1', 'webhooks.jsonl.2', 'webhooks.jsonl.3'];
    const { got, want, reader, plain } = bothWays(dir, files, target.id);
    expect(got).toEqual({ entry: target.id, replays: [r1.id, r2.id], matches: 1 });
    expect(got).toEqual(want);
    // Read back, the damaged lines were on the way; through the index they were not read.
    expect(plain.skipped).toBeGreaterThan(0);
    expect(reader.skipped).toBe(0);
  });

  it('the id whose 48 bits are all 0 is looked up through the index too', async () => {
    const path = join(tempDir('svc-jlook-'), 'webhooks.jsonl');
    const zero = { ...journalEntry(3), id: 'evt_000000000000' };
    const later = entriesAbout(6);
    await writeIndexed(path, [zero, ...later]);
    damage(path, later[3]!.id); // about request 4
    const reader = new JournalReader(path);
    expect(lookUp(reader, zero.id).entry?.id).toBe(zero.id);
    // Read back, the damaged line after it would have been reached.
    expect(reader.skipped).toBe(0);
  });

  it('an id of another shape on a line without a record, starting with the id asked for: found by its start', async () => {
    const path = join(tempDir('svc-jlook-'), 'webhooks.jsonl');
    const asked = 'evt_ddddeeeeffff';
    const odd = { ...journalEntry(4), id: `${asked}z` };
    await writeIndexed(path, entriesAbout(6));
    await appendUnindexed(path, [odd]);
    expect(shape(lookUp(new JournalReader(path), asked))).toEqual({
      entry: odd.id,
      replays: [],
      matches: 1,
    });
  });

  it('an id of another shape on the first record, starting with the id asked for: found by its start', async () => {
    const path = join(tempDir('svc-jlook-'), 'webhooks.jsonl');
    const asked = 'evt_ddddeeee0000';
    const odd = { ...journalEntry(4), id: `${asked}-1` };
    // Its record, the first, holds -1 for its id; the records after it hold a 1 (request 1).
    await writeIndexed(path, [odd, ...entriesAbout(6)]);
    expect(shape(lookUp(new JournalReader(path), asked))).toEqual({
      entry: odd.id,
      replays: [],
      matches: 1,
    });
  });

  it('an id the journal does not hold: not found, without reading the indexed lines', async () => {
    const dir = tempDir('svc-jlook-');
    const path = join(dir, 'webhooks.jsonl');
    const list = entriesAbout(20);
    await writeIndexed(path, list);
    damage(path, list[7]!.id);
    const { got, want, reader, plain } = bothWays(dir, ['webhooks.jsonl'], 'evt_0123456789ab');
    expect(got).toEqual({ entry: undefined, replays: [], matches: 0 });
    expect(got).toEqual(want);
    expect([plain.skipped, reader.skipped]).toEqual([1, 0]);
  });

  it('a rejected request, with its index, is found too', async () => {
    const dir = tempDir('svc-jlook-');
    const path = join(dir, 'webhooks.jsonl');
    const list = entriesAbout(10);
    await writeIndexed(path, list);
    damage(path, list[4]!.id);
    const stranger = { ...journalEntry(2), verification: { valid: false, reason: 'firma' } };
    await writeIndexed(rejectedPath(path), [...entriesAbout(3), stranger]);
    const files = ['webhooks.jsonl', basename(rejectedPath(path))];
    const { got, want, reader, plain } = bothWays(dir, files, stranger.id);
    expect(got).toEqual({ entry: stranger.id, replays: [], matches: 1 });
    expect(got).toEqual(want);
    expect([plain.skipped, reader.skipped]).toEqual([1, 0]);
  });
});

describe('lookUp where the index cannot answer: read back, the same answer', () => {
  const setUp = async () => {
    const dir = tempDir('svc-jlook-');
    const path = join(dir, 'webhooks.jsonl');
    const list = entriesAbout(20);
    await writeIndexed(path, list);
    return { dir, path, list, target: list[6]! };
  };

  it('a lost index, or another journal’s', async () => {
    const { dir, path, list, target } = await setUp();
    damage(path, list[12]!.id);
    rmSync(indexPath(path));
    const lost = bothWays(dir, ['webhooks.jsonl'], target.id);
    expect(lost.got).toEqual({ entry: target.id, replays: [], matches: 1 });
    expect(lost.reader.skipped).toBe(1);
    const other = join(tempDir('svc-jlook-'), 'webhooks.jsonl');
    await writeIndexed(other, entriesAbout(20));
    copyFileSync(indexPath(other), indexPath(path));
    const stale = bothWays(dir, ['webhooks.jsonl'], target.id);
    expect(stale.got).toEqual(stale.want);
    expect(stale.got.entry).toBe(target.id);
    expect(stale.reader.skipped).toBe(1);
  });

  it('a record naming a line that holds something else now', async () => {
    const { dir, path, target } = await setUp();
    damage(path, target.id);
    const { got, want, reader } = bothWays(dir, ['webhooks.jsonl'], target.id);
    expect(got).toEqual({ entry: undefined, replays: [], matches: 0 });
    expect(got).toEqual(want);
    // Counted once: what the index part read is not counted again.
    expect(reader.skipped).toBe(1);
  });

  it('a torn line, then entries and replays appended without records', async () => {
    const { dir, path, target } = await setUp();
    const fd = openSync(path, 'a');
    writeSync(fd, JSON.stringify(journalEntry(3)).slice(0, 40));
    closeSync(fd);
    const late = journalEntry(3);
    const r = replayOf(target);
    const rLate = replayOf(late);
    await appendUnindexed(path, [late, r, rLate]);
    for (const [id, replays] of [
      [target.id, [r.id]],
      [late.id, [rLate.id]],
      [r.id, []],
    ] as const) {
      const { got, want, reader } = bothWays(dir, ['webhooks.jsonl'], id);
      expect(got).toEqual({ entry: id, replays, matches: 1 });
      expect(got).toEqual(want);
      // The lines without records are read whole: the torn one among them, counted once.
      expect(reader.skipped).toBe(1);
    }
  });

  it('an id of another shape that starts with the id asked for, and the start of an id', async () => {
    const { dir, path, target } = await setUp();
    const longer = { ...journalEntry(2), id: `${target.id}x` };
    const wanted = 'evt_aaaabbbbcccc';
    const longerStill = { ...journalEntry(2), id: `${wanted}-1` };
    await writeIndexed(path, [longer, longerStill]);
    const exact = bothWays(dir, ['webhooks.jsonl'], target.id);
    expect(exact.got).toEqual({ entry: target.id, replays: [], matches: 1 });
    const start = bothWays(dir, ['webhooks.jsonl'], wanted);
    expect(start.got).toEqual({ entry: longerStill.id, replays: [], matches: 1 });
    expect(start.got).toEqual(start.want);
    // Such an id on a line without a record.
    const unindexed = 'evt_ddddeeeeffff';
    const odd = { ...journalEntry(4), id: `${unindexed}z` };
    await appendUnindexed(path, [odd]);
    const gap = bothWays(dir, ['webhooks.jsonl'], unindexed);
    expect(gap.got).toEqual({ entry: odd.id, replays: [], matches: 1 });
    const prefix = bothWays(dir, ['webhooks.jsonl'], target.id.slice(0, 9));
    expect(prefix.got).toEqual(prefix.want);
    expect(prefix.got.matches).toBeGreaterThanOrEqual(1);
  });

  it('an id on two lines: the newer one, as read back; a replay line before its original is not one of its replays', async () => {
    const { dir, path, target } = await setUp();
    const again = { ...target, cobro_id: 9 };
    await writeIndexed(path, [again]);
    const twice = lookUp(new JournalReader(path), target.id);
    expect([twice.entry?.cobro_id, twice.replays]).toEqual([9, []]);
    const { got, want } = bothWays(dir, ['webhooks.jsonl'], target.id);
    expect(got).toEqual(want);
    const dir2 = tempDir('svc-jlook-');
    const before = { ...target, cobro_id: 9, id: 'evt_000000000002' };
    const early = { ...replayOf(target), cobro_id: 9, replay_of: before.id };
    await writeIndexed(join(dir2, 'webhooks.jsonl'), [early, before]);
    const r = bothWays(dir2, ['webhooks.jsonl'], before.id);
    expect(r.got).toEqual({ entry: before.id, replays: [], matches: 1 });
    expect(r.got).toEqual(r.want);
  });
});

describe('webhook ver and webhook replay of an old entry', () => {
  it('answer through the index: the damaged newer line is not read, so not reported', async () => {
    const dir = tempDir('svc-jlook-');
    const path = join(dir, 'webhooks.jsonl');
    // More entries than `ver` reads back before asking the index (RECENT).
    const list = entriesAbout(RECENT + 40);
    const target = list[3]!;
    const r1 = { ...replayOf(target), target: 'http://127.0.0.1:9/app' };
    writeFileSync(path, [...list, r1].map((e) => `${JSON.stringify(e)}\n`).join(''));
    // Opened by the listener: the index is built for every line.
    await writeIndexed(path, entriesAbout(5));
    damage(path, list[20]!.id);
    const env = { SVC_DATA_DIR: dir };
    const ver = await svc(['webhook', 'ver', target.id, '--json'], { env });
    expect(ver.stderr).toBe('');
    expect(ver.exitCode).toBe(0);
    const shown = JSON.parse(ver.stdout) as { id: string; intentos: { id: string }[] };
    expect([shown.id, shown.intentos.map((a) => a.id)]).toEqual([target.id, [target.id, r1.id]]);
    const app = await startReceiver();
    try {
      const replay = await svc(['webhook', 'replay', target.id, '--forward-to', app.url], { env });
      expect(replay.stderr).toBe('');
      expect(replay.exitCode).toBe(0);
      expect(app.received.length).toBe(1);
    } finally {
      await app.close();
    }
    // Read back (the index gone), the damaged line is reported.
    rmSync(indexPath(path));
    const back = await svc(['webhook', 'ver', target.id, '--json'], { env });
    expect(back.exitCode).toBe(0);
    expect(back.stderr).toContain('línea 21: no es una entrada del journal');
  });
});
