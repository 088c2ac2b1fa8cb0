// The look-up files of the journal's rotated generations (journal-sorted.ts): `webhook
// ver <id>` and `caso` find an old entry and a request's notifications in each previous
// generation with a few positioned reads, never its whole index. Whether an index was
// read whole shows when its records about other requests are made garbage and a line
// about another request is damaged: an index is trusted only when every record holds
// up, so reading it whole falls back to reading the journal, which counts the damaged
// line; a look-up file reaches neither. A look-up file that is not its generation's
// (cut, another generation's, the generation or its index changed since, edited by
// hand) is not trusted: the same answers, through the index, which makes it again.
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { svcSpawned, tempDir } from '../helpers/cli.js';
import { journalEntry } from '../helpers/journal.js';
import {
  generationPaths,
  indexPath,
  Journal,
  JournalReader,
  lookUp,
  readJournal,
  readJournalAbout,
  rejectedPath,
  type JournalEntry,
} from '../../src/webhooks/event-journal.js';
import { sortedPath } from '../../src/webhooks/journal-sorted.js';

/** Bytes a generation holds: a few dozen entries each. */
const GENERATION = 16 * 1024;

interface Written {
  path: string;
  list: JournalEntry[];
  /** The entry looked for, in the oldest generation, and its replays (one in its file, one in a middle one, one in the file being written). */
  target: JournalEntry;
  replays: JournalEntry[];
}

/** Entries about requests 1..5 in turn, the target (about request 3) among the first, its replays later. */
function entries(): Omit<Written, 'path'> {
  const list = Array.from({ length: 400 }, (_, i) => journalEntry((i % 5) + 1));
  const target = list[7]!;
  expect(target.cobro_id).toBe(3);
  const replayOf = () => ({ ...journalEntry(3), source: 'replay' as const, replay_of: target.id });
  const replays = [replayOf(), replayOf(), replayOf()];
  list.splice(398, 0, replays[2]!);
  list.splice(200, 0, replays[1]!);
  list.splice(9, 0, replays[0]!);
  return { list, target, replays };
}

/** Written as the listener writes: in batches, rotated at GENERATION bytes, each file with its index. */
async function listened(generations = 100, odd?: JournalEntry): Promise<Written> {
  const path = join(tempDir('svc-jsorted-'), 'webhooks.jsonl');
  const written = entries();
  if (odd) written.list.splice(3, 0, odd);
  const j = await Journal.open(path, { index: true, maxBytes: GENERATION, generations });
  await Promise.all(written.list.map((e) => j.append(e)));
  await j.close();
  return { path, ...written };
}

const ids = (list: readonly JournalEntry[]) => list.map((e) => e.id);
const of3 = (list: readonly JournalEntry[]) => ids(list.filter((e) => e.cobro_id === 3));

/** The index's header, then 32 bytes a record: offset, length, request, id's 48 bits. */
const HEADER = 8;
const RECORD = 32;

/**
 * Makes every record about requests 4 and 5 of each previous generation's index garbage
 * (but the first and the last), and damages a line about request 4 in a middle one.
 */
function garble(w: Written): void {
  const generations = generationPaths(w.path);
  expect(generations.length).toBeGreaterThan(4);
  garbleIndexes(w.path);
  damageLine(generations[Math.floor(generations.length / 2)]!, 4);
}

/** Makes the records about requests 4 and 5 of each previous generation's index garbage (but the first and the last). */
function garbleIndexes(path: string): void {
  for (const file of generationPaths(path)) {
    const idx = readFileSync(indexPath(file));
    const records = (idx.length - HEADER) / RECORD;
    for (let i = 1; i < records - 1; i++) {
      const at = HEADER + i * RECORD;
      if (idx.readDoubleLE(at + 16) >= 4) idx.fill(0xff, at, at + RECORD);
    }
    writeFileSync(indexPath(file), idx);
  }
}

/** Overwrites the first line about `cobro` past the first line of `file` with garbage; returns its entry's id. */
function damageLine(file: string, cobro: number): string {
  const text = readFileSync(file, 'latin1');
  const lines = text.split('\n');
  const k = lines.findIndex((l, i) => i > 0 && l.includes(`"cobro_id":${cobro},`));
  expect(k).toBeLessThan(lines.length - 2);
  const at = lines.slice(0, k).join('\n').length + 1;
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(lines[k]!.length, 'x'), 0, lines[k]!.length, at);
  closeSync(fd);
  return (JSON.parse(lines[k]!) as JournalEntry).id;
}

/** The target looked up and request 3's entries read: what they find, and the lines skipped on the way. */
function answers(w: Written) {
  const reader = new JournalReader(w.path);
  const found = lookUp(reader, w.target.id);
  const about = readJournalAbout(w.path, 3);
  return {
    entry: found.entry?.id,
    replays: ids(found.replays),
    matches: found.matches,
    skipped: reader.skipped,
    about: ids(about.entries),
    aboutSkipped: about.skipped,
  };
}

/** What reading the whole journal back finds. */
const expected = (w: Written) => ({
  entry: w.target.id,
  replays: ids(w.replays),
  matches: 1,
  skipped: 0,
  about: of3(w.list),
  aboutSkipped: 0,
});

/** The target and request 3's entries found without any previous generation's index read whole. */
function answeredThroughLookUpFiles(w: Written): void {
  garble(w);
  expect(answers(w)).toEqual(expected(w));
  // Read whole, the journal has the damaged line: what a whole index would have fallen back to.
  expect(readJournal(w.path).skipped).toBe(1);
}

const lookUpFiles = (w: Written) =>
  readdirSync(dirname(w.path))
    .filter((f) => f.endsWith('.ids'))
    .sort();
const expectedLookUpFiles = (w: Written) =>
  generationPaths(w.path)
    .map((g) => basename(sortedPath(g)))
    .sort();

describe('look-up files of the previous generations', () => {
  it('the listener writes one as it rotates: an old entry, its replays and a request’s notifications as read back', async () => {
    const w = await listened();
    expect(lookUpFiles(w)).toEqual(expectedLookUpFiles(w));
    expect(existsSync(sortedPath(w.path))).toBe(false);
    expect(answers(w)).toEqual(expected(w));
    answeredThroughLookUpFiles(w);
  });

  it('dropped and renamed with their generation', async () => {
    const w = await listened(3);
    expect(readdirSync(dirname(w.path)).sort()).toEqual([
      'webhooks.jsonl',
      'webhooks.jsonl.1',
      'webhooks.jsonl.1.ids',
      'webhooks.jsonl.1.idx',
      'webhooks.jsonl.2',
      'webhooks.jsonl.2.ids',
      'webhooks.jsonl.2.idx',
      'webhooks.jsonl.idx',
    ]);
    // Each one is its generation's: request 3's entries kept are found through them.
    const kept = readJournal(w.path).entries;
    const about = readJournalAbout(w.path, 3);
    expect(ids(about.entries)).toEqual(of3(kept));
  });

  it('a reader builds those missing, from the index it read whole', async () => {
    const w = await listened();
    for (const f of lookUpFiles(w)) rmSync(join(dirname(w.path), f));
    expect(lookUp(new JournalReader(w.path), w.target.id).entry?.id).toBe(w.target.id);
    expect(lookUpFiles(w)).toEqual(expectedLookUpFiles(w));
    for (const f of lookUpFiles(w)) rmSync(join(dirname(w.path), f));
    expect(ids(readJournalAbout(w.path, 3).entries)).toEqual(of3(w.list));
    expect(lookUpFiles(w)).toEqual(expectedLookUpFiles(w));
    // Nothing else left in the folder (no file half written).
    const names = /^webhooks\.jsonl(\.[0-9]+)?(\.idx|\.ids)?$/;
    expect(readdirSync(dirname(w.path)).filter((f) => !names.test(f))).toEqual([]);
    answeredThroughLookUpFiles(w);
  });

  it('one that cannot be written: the index answers, every time', async () => {
    const w = await listened();
    const oldest = generationPaths(w.path)[0]!;
    rmSync(sortedPath(oldest));
    // A folder in its place: nothing can be renamed there.
    mkdirSync(sortedPath(oldest));
    expect(answers(w)).toEqual(expected(w));
    expect(answers(w)).toEqual(expected(w));
    expect(readdirSync(dirname(w.path)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

/**
 * The pairs (key, record number) of a look-up file sorted by the id's number: where they
 * start, and how many. After its 8-byte header, doubles: 13 numbers (the second the record
 * count, the fourth the stretches without records, the last a checksum), the stretches,
 * then for each order the first key and a checksum of each 256 pairs, then the pairs.
 */
function pairsOf(buf: Buffer): { at: number; records: number } {
  const records = buf.readDoubleLE(8 + 8);
  const gaps = buf.readDoubleLE(8 + 24);
  return { at: 8 + 13 * 8 + gaps * 16 + 4 * Math.ceil(records / 256) * 8, records };
}

const idn = (e: JournalEntry) => Number.parseInt(e.id.slice(4), 16);

/** Where the target's pair is in its generation's look-up file, and the file's bytes. */
function targetPair(w: Written): { file: string; buf: Buffer; at: number; records: number } {
  const file = sortedPath(generationPaths(w.path)[0]!);
  const buf = readFileSync(file);
  const { at, records } = pairsOf(buf);
  let k = 0;
  while (k < records && buf.readDoubleLE(at + k * 16) !== idn(w.target)) k++;
  expect(k).toBeLessThan(records);
  return { file, buf, at: at + k * 16, records };
}

describe('a look-up file that is not its generation’s is not trusted', () => {
  const oldestOf = (w: Written) => generationPaths(w.path)[0]!;
  it.each([
    [
      'cut short',
      (w: Written) => {
        const ids = sortedPath(oldestOf(w));
        truncateSync(ids, readFileSync(ids).length - 16);
      },
    ],
    [
      'another generation’s',
      (w: Written) =>
        copyFileSync(sortedPath(generationPaths(w.path)[2]!), sortedPath(oldestOf(w))),
    ],
    [
      'made before a line was added to its generation (a replay, by hand)',
      (w: Written) => {
        const replay = { ...journalEntry(3), source: 'replay' as const, replay_of: w.target.id };
        const lines = readFileSync(oldestOf(w), 'utf8').trimEnd().split('\n');
        const last = (JSON.parse(lines.at(-1)!) as JournalEntry).id;
        writeFileSync(oldestOf(w), `${JSON.stringify(replay)}\n`, { flag: 'a' });
        // After the others in its file, before those in newer files.
        w.replays.splice(1, 0, replay);
        w.list.splice(w.list.findIndex((e) => e.id === last) + 1, 0, replay);
      },
    ],
    [
      'made from another index (its last record gone)',
      (w: Written) => {
        const idx = indexPath(oldestOf(w));
        truncateSync(idx, readFileSync(idx).length - RECORD);
      },
    ],
    [
      'edited by hand: the target’s pair names another record',
      (w: Written) => {
        const { file, buf, at, records } = targetPair(w);
        buf.writeDoubleLE((buf.readDoubleLE(at + 8) + 1) % records, at + 8);
        writeFileSync(file, buf);
      },
    ],
    [
      'edited by hand: the target’s key changed, the order kept',
      (w: Written) => {
        const { file, buf, at } = targetPair(w);
        buf.writeDoubleLE(buf.readDoubleLE(at) + 1, at);
        writeFileSync(file, buf);
      },
    ],
    [
      'edited by hand: its header names another size',
      (w: Written) => {
        const file = sortedPath(oldestOf(w));
        const buf = readFileSync(file);
        buf.writeDoubleLE(buf.readDoubleLE(8) + 1, 8);
        writeFileSync(file, buf);
      },
    ],
  ])('%s: the same answers, and a good one made again', async (_what, spoil) => {
    const w = await listened();
    spoil(w);
    expect(answers(w)).toEqual(expected(w));
    answeredThroughLookUpFiles(w);
  });

  it.each(['first', 'last'] as const)(
    'its generation’s %s line replaced by another entry of the same size: read back',
    async (which) => {
      const w = await listened();
      const oldest = generationPaths(w.path)[0]!;
      const lines = readFileSync(oldest, 'utf8').split('\n');
      const k = which === 'first' ? 0 : lines.length - 2;
      const old = (JSON.parse(lines[k]!) as JournalEntry).id;
      const other = `evt_${'0'.repeat(12)}`;
      lines[k] = lines[k]!.replace(old, other);
      writeFileSync(oldest, lines.join('\n'));
      // Size, index and look-up file as they were: only the line tells.
      expect(lookUp(new JournalReader(w.path), other).entry?.id).toBe(other);
      expect(lookUp(new JournalReader(w.path), old).entry).toBeUndefined();
    },
  );

  it('an id of another shape in a previous generation: read back, as through the index', async () => {
    // In the oldest generation, an id that starts with an id no entry has.
    const odd = { ...journalEntry(2), id: 'evt_0123456789abX' };
    const w = await listened(100, odd);
    expect(readFileSync(generationPaths(w.path)[0]!, 'utf8')).toContain(odd.id);
    expect(lookUpFiles(w)).toEqual(expectedLookUpFiles(w));
    expect(lookUp(new JournalReader(w.path), w.target.id).entry?.id).toBe(w.target.id);
    const found = lookUp(new JournalReader(w.path), 'evt_0123456789ab');
    expect(found.entry?.id).toBe(odd.id);
    expect(found.matches).toBe(1);
  });
});

describe('lines without records in a previous generation', () => {
  it('another process’s line, and the listener’s batch after it, are read at their place', async () => {
    const path = join(tempDir('svc-jsorted-'), 'webhooks.jsonl');
    const { list, target } = entries();
    const j = await Journal.open(path, { index: true, maxBytes: GENERATION, generations: 100 });
    await Promise.all(list.slice(0, 100).map((e) => j.append(e)));
    // A replay written by another process (webhook replay) while the listener runs: the
    // listener leaves it and its next batch without records.
    const replay = { ...journalEntry(3), source: 'replay' as const, replay_of: target.id };
    writeFileSync(path, `${JSON.stringify(replay)}\n`, { flag: 'a' });
    // One at a time: the next batch has no records, those after it have theirs again.
    for (const e of list.slice(100, 104)) await j.append(e);
    await Promise.all(list.slice(104).map((e) => j.append(e)));
    await j.close();
    const all = [...list.slice(0, 100), replay, ...list.slice(100)];
    const generations = generationPaths(path);
    const withGap = generations.filter((g) => readFileSync(g, 'utf8').includes(replay.id));
    expect(withGap).toHaveLength(1);
    // Its look-up file knows the stretch (the header's fifth number: how many).
    expect(readFileSync(sortedPath(withGap[0]!)).readDoubleLE(8 + 24)).toBeGreaterThan(0);
    expect(withGap[0]).not.toBe(generations.at(-1));
    garbleIndexes(path);
    damageLine(generations.at(-1)!, 4);
    const reader = new JournalReader(path);
    const found = lookUp(reader, target.id);
    expect(found.entry?.id).toBe(target.id);
    expect(ids(found.replays)).toEqual(ids(all.filter((e) => e.replay_of === target.id)));
    expect(reader.skipped).toBe(0);
    const about = readJournalAbout(path, 3);
    expect(ids(about.entries)).toEqual(of3(all));
    expect(about.skipped).toBe(0);
  });
});

describe('the rejected requests’ previous files', () => {
  it('have look-up files too: a stranger’s old request and a request’s entries, both files merged', async () => {
    const path = join(tempDir('svc-jsorted-'), 'webhooks.jsonl');
    const verified = Array.from({ length: 10 }, (_, i) => journalEntry((i % 5) + 1));
    const j = await Journal.open(path, { index: true });
    for (const e of verified) await j.append(e);
    await j.close();
    const strangers = Array.from({ length: 300 }, (_, i) => ({
      ...journalEntry((i % 5) + 1),
      verification: { valid: false, reason: 'firma' },
    }));
    const target = strangers[2]!;
    const r = await Journal.open(rejectedPath(path), {
      index: true,
      maxBytes: GENERATION,
      generations: 100,
    });
    await Promise.all(strangers.map((e) => r.append(e)));
    await r.close();
    const rejected: Written = { path: rejectedPath(path), list: strangers, target, replays: [] };
    expect(lookUpFiles(rejected)).toEqual(expectedLookUpFiles(rejected));
    garble(rejected);
    const reader = new JournalReader(path);
    expect(lookUp(reader, target.id).entry?.id).toBe(target.id);
    expect(reader.skipped).toBe(0);
    const about = readJournalAbout(path, 3);
    expect(ids(about.entries)).toEqual([...of3(verified), ...of3(strangers)]);
    expect(about.skipped).toBe(0);
  });
});

describe('generations of hundreds of entries (a look-up file read a block at a time)', () => {
  it('every entry by its id, every request’s entries, as read back', async () => {
    const path = join(tempDir('svc-jsorted-'), 'webhooks.jsonl');
    const list = Array.from({ length: 2000 }, (_, i) => journalEntry((i % 5) + 1));
    const j = await Journal.open(path, { index: true, maxBytes: 320 * 1024, generations: 100 });
    await Promise.all(list.map((e) => j.append(e)));
    await j.close();
    expect(generationPaths(path).length).toBeGreaterThan(1);
    // Three blocks of 256 and more: requests 2 and 4 have pairs on both sides of a block's start.
    const first = generationPaths(path)[0]!;
    expect(readFileSync(indexPath(first)).length).toBeGreaterThan(8 + 32 * 3 * 256);
    // Made garbage, the records about request 5 would make a whole index not trusted.
    for (const file of generationPaths(path)) {
      const idx = readFileSync(indexPath(file));
      const records = (idx.length - HEADER) / RECORD;
      for (let i = 1; i < records - 1; i++)
        if (idx.readDoubleLE(HEADER + i * RECORD + 16) === 5)
          idx.fill(0xff, HEADER + i * RECORD, HEADER + (i + 1) * RECORD);
      writeFileSync(indexPath(file), idx);
    }
    // And a line about request 5 damaged in the newest previous file: reading back, or a
    // file read whole, counts it.
    const damaged = damageLine(generationPaths(path).at(-1)!, 5);
    for (let c = 1; c <= 4; c++) {
      const about = readJournalAbout(path, c);
      expect(ids(about.entries)).toEqual(ids(list.filter((e) => e.cobro_id === c)));
      expect(about.skipped).toBe(0);
    }
    for (const e of list.filter((_, i) => i % 7 === 0 && i % 5 !== 4)) {
      const reader = new JournalReader(path);
      expect(lookUp(reader, e.id).entry?.id).toBe(e.id);
      expect(reader.skipped).toBe(0);
    }
    // Request 5's entries: through the index, not trusted now, so every file is read.
    const about5 = readJournalAbout(path, 5);
    expect(ids(about5.entries)).toEqual(
      ids(list.filter((e) => e.cobro_id === 5 && e.id !== damaged)),
    );
    expect(about5.skipped).toBe(1);

    // The first key of a block edited by hand (the table's checksum): not trusted. Had it
    // been, the smallest id of the oldest generation would be looked for past its block.
    const file = sortedPath(first);
    const buf = readFileSync(file);
    const { at } = pairsOf(buf);
    const smallest = list.find((e) => idn(e) === buf.readDoubleLE(at))!;
    const fences = 8 + 13 * 8 + buf.readDoubleLE(8 + 24) * 16;
    buf.writeDoubleLE(-1, fences + 8);
    writeFileSync(file, buf);
    expect(lookUp(new JournalReader(path), smallest.id).entry?.id).toBe(smallest.id);
  });
});

describe('svc webhook ver', () => {
  it('an entry of the oldest generation, through the look-up files: no line skipped', async () => {
    const w = await listened();
    garble(w);
    const r = await svcSpawned(['webhook', 'ver', w.target.id, '--json', '--journal', w.path]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const shown = JSON.parse(r.stdout) as { id: string; replays: { id: string }[] };
    expect(shown.id).toBe(w.target.id);
  });
});
