// `svc webhook replay` never holds the journal: --all checks every entry on a first
// reading and sends each as it reads the journal again, --last N keeps N. A journal
// of 80 notifications of 1 MiB is replayed whole in a 40 MB heap (read whole, its
// entries alone were twice that heap: the process ran out of memory before sending).
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../../src/webhooks/event-journal.js';
import { expectNoStack, svcSpawned, tempDir } from '../../helpers/cli.js';
import { journalEntry } from '../../helpers/journal.js';

const N = 80;
const pad = 'x'.repeat(1024 * 1024 - 100);
const body = (i: number) => `{"event":"payment.approved","cobro_id":${i},"pad":"${pad}"}`;

let server: Server;
let url: string;
/** What the app received: each body's request id and size. */
const received: { cobro: number; bytes: number }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      received.push({ cobro: Number(/"cobro_id":(\d+)/.exec(text)?.[1]), bytes: text.length });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
});

describe('webhook replay reads the journal as a stream', () => {
  it('--all sends 80 notifications of 1 MiB in a 40 MB heap, each once and in order; --last 2 the last two', async () => {
    const journal = join(tempDir('svc-replay-'), 'webhooks.jsonl');
    const lines: string[] = [];
    for (let i = 1; i <= N; i++) lines.push(JSON.stringify(journalEntry(i, Buffer.from(body(i)))));
    writeFileSync(journal, `${lines.join('\n')}\n`);
    const env = { NODE_OPTIONS: '--max-old-space-size=40' };
    const all = await svcSpawned(
      ['webhook', 'replay', '--all', '--journal', journal, '--forward-to', url],
      { env, timeout: 120_000 },
    );
    expect(all.exitCode, all.stderr.slice(-2000)).toBe(0);
    expectNoStack(all.stderr);
    expect(all.stderr).toContain(`${N} reenviados`);
    expect(received.map((r) => r.cobro)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    expect(received.every((r) => r.bytes === body(1).length - 1 + String(r.cobro).length)).toBe(
      true,
    );
    // Each replay is journaled; none is sent again.
    expect(readJournal(journal).entries.filter((e) => e.source === 'replay')).toHaveLength(N);

    received.length = 0;
    const last = await svcSpawned(
      ['webhook', 'replay', '--last', '2', '--journal', journal, '--forward-to', url],
      { env, timeout: 120_000 },
    );
    expect(last.exitCode, last.stderr.slice(-2000)).toBe(0);
    expect(received.map((r) => r.cobro)).toEqual([N - 1, N]);
  }, 150_000);
});
