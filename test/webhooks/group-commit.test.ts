// Group commit of the listener's journal: lines that arrive while a durable write is on
// its way go together in the next one, and the listener never writes its journal
// synchronously (the event loop keeps reading and answering while the disk works).
// Counts only; nothing here is timed.
import { readlinkSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sampleBody } from '../../src/webhooks/events.js';
import { Journal } from '../../src/webhooks/event-journal.js';
import { startListener, type Listener } from '../../src/webhooks/listen.js';
import { notificationHeaders } from '../../src/webhooks/signature.js';
import { tempDir } from '../helpers/cli.js';
import { journalEntry } from '../helpers/journal.js';
import { post } from '../helpers/receiver.js';
import { skipBecause } from '../helpers/skips.js';

const SECRET = 'whsec_group_commit_test';
const fs = createRequire(import.meta.url)('node:fs') as typeof import('node:fs') &
  Record<string, unknown>;

const entry = journalEntry;

const undo: (() => void)[] = [];
afterEach(async () => {
  while (undo.length) undo.pop()!();
});

/** Counts the synchronous writes and syncs made on `path`'s descriptors from now on (node:fs, ESM imports included). */
function countSyncWrites(path: string): { calls: string[] } {
  const seen = { calls: [] as string[] };
  for (const name of [
    'writeSync',
    'writevSync',
    'fsyncSync',
    'fdatasyncSync',
    'appendFileSync',
    'writeFileSync',
  ]) {
    const real = fs[name] as (...args: unknown[]) => unknown;
    fs[name] = (...args: unknown[]) => {
      const fd = args[0];
      let target = fd;
      try {
        if (typeof fd === 'number') target = readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        // not an open descriptor: the call will say so itself
      }
      if (target === path) seen.calls.push(name);
      return real(...args);
    };
    undo.push(() => {
      fs[name] = real;
      syncBuiltinESMExports();
    });
  }
  syncBuiltinESMExports();
  return seen;
}

describe('journal group commit', () => {
  it('lines appended in one turn go in one durable write; those appended while it is on its way, in the next one', async () => {
    const j = await Journal.open(join(tempDir('svc-group-'), 'webhooks.jsonl'));
    await Promise.all(Array.from({ length: 50 }, (_, i) => j.append(entry(i))));
    expect(j.stats()).toEqual({ lines: 50, syncs: 1 });

    const first = j.append(entry(100));
    // The journal's write starts at the end of this turn; after it, the write is on its way.
    await new Promise((resolve) => setImmediate(resolve));
    const queued = Array.from({ length: 20 }, (_, i) => j.append(entry(200 + i)));
    await Promise.all([first, ...queued]);
    expect(j.stats()).toEqual({ lines: 71, syncs: 3 });
    await j.close();
  });

  it.skipIf(
    skipBecause(
      import.meta.url,
      process.platform !== 'linux' && `Linux only (this is ${process.platform})`,
    ),
  )(
    '100 events at once through the listener: no synchronous write of the journal, fewer durable writes than events',
    async () => {
      const journal = join(tempDir('svc-group-'), 'webhooks.jsonl');
      const listener: Listener = await startListener({ secret: SECRET, port: 0, journal });
      undo.push(() => void listener.close());
      const writes = countSyncWrites(journal);
      const statuses = await Promise.all(
        Array.from({ length: 100 }, (_, i) => {
          const body = Buffer.from(
            JSON.stringify(sampleBody('payment.approved', { cobro_id: i + 1 })),
          );
          return post(
            listener.url,
            body,
            notificationHeaders(SECRET, 'payment.approved', body),
          ).then((r) => r.status);
        }),
      );
      expect(statuses.filter((s) => s === 200)).toHaveLength(100);
      expect(writes.calls, 'synchronous writes of the journal while answering').toEqual([]);
      const health = JSON.parse((await fetch(listener.url).then((r) => r.text())) || '{}') as {
        journal: { lines: number; syncs: number };
      };
      expect(health.journal.lines).toBe(100);
      expect(health.journal.syncs).toBeLessThan(100);
      await listener.close();
    },
  );
});
