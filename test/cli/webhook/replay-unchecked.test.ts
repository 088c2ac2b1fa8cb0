// `svc webhook replay --all` reads the journal twice: every entry is checked on the
// first reading, then each is sent as the journal is read again. Counting what the
// second reading sends (replay-rotation.test.ts) misses a journal that lost some
// entries and gained as many: svc sends only the entries it checked, in the order
// checked, and stops at the first other one. The journal here rotates with its own
// code, when the app receives the first replay.
import { appendFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Journal, rotatedPath } from '../../../src/webhooks/event-journal.js';
import { expectNoStack, tempDir } from '../../helpers/cli.js';
import { svc } from '../../helpers/inproc.js';
import { journalEntry } from '../../helpers/journal.js';

let server: Server;
let url: string;
/** What the app received: each body's request id. */
const received: number[] = [];
/** Run once, when the app receives its first notification. */
let onFirst: (() => Promise<void>) | undefined;

beforeAll(async () => {
  server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      received.push(Number(/"n":(\d+)/.exec(Buffer.concat(parts).toString('utf8'))?.[1]));
      const then = onFirst;
      onFirst = undefined;
      void (then ?? (async () => undefined))().then(() => res.writeHead(200).end('ok'));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
});

/** Entry `i`'s line; 5's id is not of a listener's shape (a journal edited by hand). */
const line = (i: number) =>
  `${JSON.stringify({ ...journalEntry(i), ...(i === 5 ? { id: 'evt_a_mano' } : {}) })}\n`;

/** A journal of two files: entries 1-3 in `.1`, 4-6 in the one written to. */
function twoFiles(): string {
  const path = join(tempDir('svc-replay-rot-'), 'webhooks.jsonl');
  writeFileSync(rotatedPath(path), [1, 2, 3].map(line).join(''));
  writeFileSync(path, [4, 5, 6].map(line).join(''));
  return path;
}

/**
 * The journal's own rotation, at a size of one byte and two files kept: the file
 * written to becomes `.1` (the old `.1`, being read, is dropped), `news[0]` is written
 * and rotated the same way (dropping 4-6), and the rest go to the new file.
 */
async function rotate(path: string, news: number[]): Promise<void> {
  const journal = await Journal.open(path, { maxBytes: 1, generations: 2 });
  await journal.append(journalEntry(news[0]!));
  await journal.close();
  for (const n of news.slice(1)) appendFileSync(path, line(n));
}

describe('webhook replay --all sends only the entries it checked', () => {
  it('never sends an entry it did not check, even when as many arrived as were lost', async () => {
    const path = twoFiles();
    received.length = 0;
    onFirst = () => rotate(path, [100, 101, 102, 103]);
    const r = await svc(['webhook', 'replay', '--all', '--journal', path, '--forward-to', url]);
    expect(received).toEqual([1, 2, 3]);
    expect(r.exitCode, r.stderr).toBe(6);
    expect(r.stderr).toContain('se revisaron 6 eventos pero se reenviaron 3: el journal cambió');
    expectNoStack(r.stderr);
  });

  it('a journal that only grew after the check sends exactly what was checked', async () => {
    const path = twoFiles();
    received.length = 0;
    onFirst = async () => appendFileSync(path, line(100));
    const r = await svc(['webhook', 'replay', '--all', '--journal', path, '--forward-to', url]);
    expect(received).toEqual([1, 2, 3, 4, 5, 6]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('6 reenviados');
  });
});
