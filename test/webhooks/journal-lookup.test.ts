// `webhook ver <id>` and `webhook replay <id>` find the newest entries by reading the
// journal back a little (findInJournal, RECENT entries), without reading the index,
// whose size grows with the journal; an older entry through the index. Bytes read are
// counted at node:fs's readSync.
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { journalEntry } from '../helpers/journal.js';
import { indexPath, Journal, type JournalEntry } from '../../src/webhooks/event-journal.js';
import { findInJournal, RECENT } from '../../src/webhooks/journal-lookup.js';

const read = vi.hoisted(() => ({ bytes: 0 }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const readSync = ((...args: Parameters<typeof fs.readSync>) => {
    const n = fs.readSync(...args);
    read.bytes += n;
    return n;
  }) as typeof fs.readSync;
  return { ...fs, default: { ...fs, readSync }, readSync };
});

/** Bytes readSync read while `f` ran, and what it gave. */
function counted<T>(f: () => T): { bytes: number; value: T } {
  read.bytes = 0;
  const value = f();
  return { bytes: read.bytes, value };
}

describe('findInJournal', () => {
  it('the newest entries without the index, an older one through it', async () => {
    const path = join(tempDir('svc-jfind-'), 'webhooks.jsonl');
    const list: JournalEntry[] = Array.from({ length: 20_000 }, (_, i) => journalEntry(i % 50));
    const original = list[19_990]!;
    const replay = {
      ...journalEntry(original.cobro_id!),
      source: 'replay' as const,
      replay_of: original.id,
    };
    writeFileSync(path, [...list, replay].map((e) => `${JSON.stringify(e)}\n`).join(''));
    // Opened by the listener: the index is built for every line.
    await (await Journal.open(path, { index: true })).close();
    const index = statSync(indexPath(path)).size;
    const journal = statSync(path).size;
    expect(index).toBeGreaterThan(600_000);

    const newest = counted(() => findInJournal(path, list[19_990]!.id));
    expect(newest.value.found.entry?.id).toBe(list[19_990]!.id);
    expect(newest.value.found.replays.map((e) => e.id)).toEqual([replay.id]);
    expect(newest.bytes).toBeLessThan(index);

    const old = counted(() => findInJournal(path, list[5]!.id));
    expect(old.value.found.entry?.id).toBe(list[5]!.id);
    expect(old.value.found.matches).toBe(1);
    // The newest RECENT entries read back (a chunk), then the index and a few lines.
    expect(old.bytes).toBeLessThan(index + 2 * 256 * 1024);
    expect(old.bytes).toBeLessThan(journal / 4);
    expect(RECENT).toBeLessThan(list.length - 5);
  });
});
