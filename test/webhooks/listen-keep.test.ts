// What the listener's journal keeps: `--conservar SIZE` (default 2.5 GiB, about a
// year of a busy merchant, in files of 64 MiB), said in the banner; past it the
// oldest file is dropped, and every reader reads every file that is kept.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sampleBody } from '../../src/webhooks/events.js';
import { notificationHeaders } from '../../src/webhooks/signature.js';
import { tempDir } from '../helpers/cli.js';
import { svc } from '../helpers/inproc.js';
import { listenInProcess, post, type Listening } from '../helpers/receiver.js';

const SECRET = 'whsec_listen_keep_secret_0815';
let listening: Listening | undefined;
afterEach(async () => {
  await listening?.stop();
  listening = undefined;
});

describe('webhook listen --conservar', () => {
  it('keeps about the size asked for, drops the oldest, and eventos reads every file kept', async () => {
    const dir = tempDir('svc-listen-keep-');
    const journal = join(dir, 'webhooks.jsonl');
    const env = { SVC_WEBHOOK_SECRET: SECRET, SVC_DATA_DIR: dir };
    listening = await listenInProcess(['--conservar', '2MiB', '--journal', journal], env);
    expect(listening.stderr()).toContain(`journal    ${journal} (guarda hasta 2 MiB;`);
    // 24 events of about 200 KiB: 4.8 MB, more than twice what is kept.
    const pad = 'x'.repeat(200 * 1024);
    for (let i = 1; i <= 24; i++) {
      const body = Buffer.from(JSON.stringify({ ...sampleBody('payment.approved'), n: i, pad }));
      const r = await post(
        listening.url,
        body,
        notificationHeaders(SECRET, 'payment.approved', body),
      );
      expect(r.status).toBe(200);
    }
    await listening.stop();
    listening = undefined;
    const files = readdirSync(dir).filter((f) => f.startsWith('webhooks.jsonl'));
    // Each file with its index beside it (a record of 32 bytes a line), and the previous
    // generation with its look-up file (its records sorted by id and by request).
    expect(files.sort()).toEqual([
      'webhooks.jsonl',
      'webhooks.jsonl.1',
      'webhooks.jsonl.1.ids',
      'webhooks.jsonl.1.idx',
      'webhooks.jsonl.idx',
    ]);
    const kept = files.reduce((n, f) => n + statSync(join(dir, f)).size, 0);
    expect(kept).toBeLessThanOrEqual(2 * 1024 ** 2);
    const r = await svc(['webhook', 'eventos', '--json'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    const ns = (JSON.parse(r.stdout) as { body: string }[]).map(
      (e) => (JSON.parse(e.body) as { n: number }).n,
    );
    // Newest first, none missing from what is kept, the oldest gone.
    expect(ns[0]).toBe(24);
    expect(ns).toEqual(Array.from({ length: ns.length }, (_, i) => 24 - i));
    expect(ns.length).toBeGreaterThan(5);
    expect(ns.length).toBeLessThan(12);
  });

  it('says what it keeps by default; a size it cannot read is exit 2', async () => {
    const dir = tempDir('svc-listen-keep-');
    listening = await listenInProcess([], { SVC_WEBHOOK_SECRET: SECRET, SVC_DATA_DIR: dir });
    expect(listening.stderr()).toContain('(guarda hasta 2.5 GiB;');
    for (const size of ['10', '500KB', 'mucho', '20TB']) {
      const r = await svc(['webhook', 'listen', '--port', '0', '--conservar', size], {
        env: { SVC_WEBHOOK_SECRET: SECRET, SVC_DATA_DIR: dir },
      });
      expect(r.exitCode, size).toBe(2);
      expect(r.stderr).toContain(`--conservar "${size}" no es un tamaño entre 1 MiB y 16 TiB`);
    }
  });
});
