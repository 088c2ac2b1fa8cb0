// svc webhook replay --all reads the journal twice: every entry is checked before any is
// sent, then each is sent as it is read again. When the listener rotates its files
// between the two readings, the second one can meet fewer entries than the first
// counted: svc says so (exit 6, journal_changed) instead of ending as if all were sent.
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rotatedPath } from '../../../src/webhooks/event-journal.js';
import { tempDir } from '../../helpers/cli.js';
import { svc } from '../../helpers/inproc.js';
import { journalEntry } from '../../helpers/journal.js';
import { startReceiver } from '../../helpers/receiver.js';

const lines = (from: number, to: number) =>
  Array.from(
    { length: to - from + 1 },
    (_, i) => `${JSON.stringify(journalEntry(from + i))}\n`,
  ).join('');

describe('webhook replay --all when the journal rotates between its two readings', () => {
  it('sends what it still finds and exits 6 saying how many of those checked were not sent', async () => {
    const journal = join(tempDir('svc-replay-rot-'), 'webhooks.jsonl');
    // Three entries in the previous generation, three in the current file.
    writeFileSync(rotatedPath(journal), lines(1, 3));
    writeFileSync(journal, lines(4, 6));
    const app = await startReceiver();
    let rotated = false;
    // The first send comes after the check: the listener rotates then, before the app
    // answers (the current file becomes `.1`, the old `.1` goes, a new file starts).
    app.answer = () => {
      if (!rotated) {
        rotated = true;
        renameSync(journal, rotatedPath(journal));
        writeFileSync(journal, '');
      }
      return { status: 200, body: 'ok' };
    };
    const replayAll = (...more: string[]) =>
      svc(['webhook', 'replay', '--all', '--journal', journal, '--forward-to', app.url, ...more]);
    try {
      const r = await replayAll();
      expect(rotated).toBe(true);
      // The reading was in the old `.1` when it rotated: entries 4 to 6 moved behind it.
      expect(app.received.map((x) => JSON.parse(x.text) as { n: number }).map((b) => b.n)).toEqual([
        1, 2, 3,
      ]);
      expect(r.stderr).toContain(
        'se revisaron 6 eventos pero se reenviaron 3: el journal cambió entre las dos lecturas',
      );
      expect(r.exitCode).toBe(6);
      const json = await replayAll('--json');
      // Nothing rotates now: every entry (and none of the replays) is sent.
      expect(json.exitCode, json.stderr).toBe(0);
    } finally {
      await app.close();
    }
  });
});
