// The journal: appends from many events at once all land (group commit), each line
// is one entry, a line torn by a crash is skipped on read, bodies round-trip.
import { appendFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { journalEntry } from '../helpers/journal.js';
import {
  encodeBody,
  encodePrefix,
  entryBody,
  Journal,
  keptHeaders,
  readJournal,
  rejectedPath,
  generationPaths,
  rotatedPath,
  type JournalEntry,
} from '../../src/webhooks/event-journal.js';

const entry = journalEntry;

describe('journal', () => {
  it('past its size it rotates: two generations on disk, read oldest first, older ones dropped', async () => {
    const path = join(tempDir('svc-journal-'), 'webhooks.jsonl');
    const one = Buffer.byteLength(`${JSON.stringify(entry(100))}\n`);
    const j = await Journal.open(path, { maxBytes: 10 * one, generations: 2 });
    for (let i = 100; i < 125; i++) await j.append(entry(i)); // one at a time: each its own write
    await j.close();
    // 25 entries in files of 10: two full rotations; the first 10 entries are gone.
    expect(existsSync(rotatedPath(path))).toBe(true);
    const { entries, skipped } = readJournal(path);
    expect(skipped).toBe(0);
    expect(entries.map((e) => e.cobro_id)).toEqual(Array.from({ length: 15 }, (_, i) => 110 + i));
    expect(statSync(path).size).toBeLessThan(10 * one + 10);
    if (process.platform !== 'win32') {
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(statSync(rotatedPath(path)).mode & 0o777).toBe(0o600);
    }
    // A journal opened again keeps counting from its size.
    const again = await Journal.open(path, { maxBytes: 10 * one, generations: 2 });
    for (let i = 125; i < 131; i++) await again.append(entry(i));
    await again.close();
    expect(readJournal(path).entries.map((e) => e.cobro_id)).toEqual(
      Array.from({ length: 11 }, (_, i) => 120 + i),
    );
  });

  it('keeps as many generations as asked, numbered newest first, read oldest first', async () => {
    const path = join(tempDir('svc-journal-'), 'webhooks.jsonl');
    const one = Buffer.byteLength(`${JSON.stringify(entry(100))}\n`);
    const j = await Journal.open(path, { maxBytes: 10 * one, generations: 4 });
    for (let i = 100; i < 155; i++) await j.append(entry(i));
    await j.close();
    // 55 entries in files of 10, four files kept: the 20 oldest dropped.
    expect(generationPaths(path)).toEqual([3, 2, 1].map((n) => rotatedPath(path, n)));
    expect(readJournal(path).entries[0]!.cobro_id).toBe(120);
    expect(readFileSync(rotatedPath(path, 3), 'utf8').split('\n')[0]).toContain('"cobro_id":120');
    expect(readJournal(path).entries.map((e) => e.cobro_id)).toEqual(
      Array.from({ length: 35 }, (_, i) => 120 + i),
    );
    // Kept smaller next time: the generations past it go at the next rotation.
    const fewer = await Journal.open(path, { maxBytes: 10 * one, generations: 2 });
    for (let i = 155; i < 161; i++) await fewer.append(entry(i));
    await fewer.close();
    expect(generationPaths(path)).toEqual([rotatedPath(path)]);
    expect(readJournal(path).entries.map((e) => e.cobro_id)).toEqual(
      Array.from({ length: 11 }, (_, i) => 150 + i),
    );
  });

  it('appends queued together are split at the size: no generation is ever past it', async () => {
    const path = join(tempDir('svc-journal-'), 'webhooks.jsonl');
    const one = Buffer.byteLength(`${JSON.stringify(entry(100))}\n`);
    const j = await Journal.open(path, { maxBytes: 10 * one + 5 });
    // All queued at once: group commit would write them in one batch.
    await Promise.all(Array.from({ length: 17 }, (_, i) => j.append(entry(100 + i))));
    await j.close();
    expect(statSync(rotatedPath(path)).size).toBe(10 * one);
    expect(statSync(path).size).toBe(7 * one);
    expect(readJournal(path).entries.map((e) => e.cobro_id)).toEqual(
      Array.from({ length: 17 }, (_, i) => 100 + i),
    );
  });

  it('500 concurrent appends: every one on disk, in its own line, file mode 0600', async () => {
    const path = join(tempDir('svc-journal-'), 'sub', 'webhooks.jsonl');
    const j = await Journal.open(path);
    await Promise.all(Array.from({ length: 500 }, (_, i) => j.append(entry(i))));
    await j.close();
    const { entries, skipped } = readJournal(path);
    expect(skipped).toBe(0);
    expect(entries.map((e) => e.cobro_id).sort((a, b) => a! - b!)).toEqual(
      Array.from({ length: 500 }, (_, i) => i),
    );
    if (process.platform !== 'win32') expect(statSync(path).mode & 0o777).toBe(0o600);
    await expect(j.append(entry(1))).rejects.toThrow(/cerrado/);
  });

  it('a torn last line is skipped, the rest is read; a missing file is empty', async () => {
    const path = join(tempDir('svc-journal-'), 'webhooks.jsonl');
    expect(readJournal(path)).toEqual({ entries: [], skipped: 0, problems: [] });
    const j = await Journal.open(path);
    await j.append(entry(1));
    await j.close();
    appendFileSync(path, '{"id":"evt_torn","received_at":"2');
    const r = readJournal(path);
    expect(r.entries).toHaveLength(1);
    expect(r.skipped).toBe(1);
    expect(readFileSync(path, 'utf8').split('\n')[0]).toContain('"cobro_id":1');
  });

  it('bodies round-trip: UTF-8 as text, anything else as base64', () => {
    const text = Buffer.from('{"concepto":"ñandú 🎉"}');
    const bin = Buffer.from([0xc3, 0x28, 0xff]);
    expect(encodeBody(text).body_encoding).toBe('utf8');
    expect(entryBody(encodeBody(text)).equals(text)).toBe(true);
    expect(encodeBody(bin).body_encoding).toBe('base64');
    expect(entryBody(encodeBody(bin)).equals(bin)).toBe(true);
  });

  it('keeps only Content-Type and X-Svc-* headers', () => {
    expect(
      keptHeaders({
        'Content-Type': 'application/json',
        'X-Svc-Event': 'payment.created',
        authorization: 'Bearer x',
        cookie: 'a=b',
        'x-svc-signature': ['a', 'b'],
      }),
    ).toEqual({
      'content-type': 'application/json',
      'x-svc-event': 'payment.created',
      'x-svc-signature': 'a, b',
    });
  });

  it('a line torn by a crash is ended when the journal opens again: the next entry stays whole', async () => {
    const path = join(tempDir('svc-journal-'), 'webhooks.jsonl');
    const j = await Journal.open(path);
    await j.append(entry(1));
    await j.close();
    appendFileSync(path, '{"id":"evt_torn","received_at":"2');
    const again = await Journal.open(path);
    await again.append(entry(2));
    await again.close();
    const r = readJournal(path);
    expect(r.entries.map((e) => e.cobro_id)).toEqual([1, 2]);
    expect(r.skipped).toBe(1);
  });

  it('rejected requests live in their own file and are read back merged by arrival', async () => {
    const path = join(tempDir('svc-journal-'), 'webhooks.jsonl');
    expect(rejectedPath(path)).toBe(path.replace(/webhooks\.jsonl$/, 'webhooks.rechazados.jsonl'));
    const at = (i: number, t: string, valid: boolean): JournalEntry => ({
      ...entry(i),
      received_at: t,
      verification: valid ? { valid } : { valid, reason: 'missing_signature' },
    });
    const main = await Journal.open(path);
    const other = await Journal.open(rejectedPath(path));
    await main.append(at(1, '2026-01-01T00:00:01.000Z', true));
    await main.append(at(3, '2026-01-01T00:00:03.000Z', true));
    await other.append(at(2, '2026-01-01T00:00:02.000Z', false));
    await other.append(at(4, '2026-01-01T00:00:04.000Z', false));
    await main.close();
    await other.close();
    expect(readJournal(path).entries.map((e) => e.cobro_id)).toEqual([1, 2, 3, 4]);
  });

  it('a rejected body keeps its first bytes: UTF-8 cut at a character, else base64, its real size said', () => {
    const text = Buffer.from(`{"x":"${'ñ'.repeat(200)}"}`);
    const kept = encodePrefix(text, text.length, 256);
    expect(kept).toMatchObject({ body_encoding: 'utf8', bytes: text.length, body_truncated: true });
    expect(Buffer.byteLength(kept.body)).toBeLessThanOrEqual(256);
    expect(text.toString().startsWith(kept.body)).toBe(true);
    const bin = Buffer.from([0xff, 0x00, 0xfe]);
    expect(encodePrefix(bin)).toEqual({
      body: bin.toString('base64'),
      body_encoding: 'base64',
      bytes: 3,
    });
    expect(encodePrefix(Buffer.from('{}'))).toEqual({
      body: '{}',
      body_encoding: 'utf8',
      bytes: 2,
    });
  });
});
