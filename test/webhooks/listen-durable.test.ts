// Durability of `svc webhook listen`, seen from the kernel's side (strace): the
// SIGKILL tests show that an answered line reached the page cache, which a killed
// process cannot tell apart from the disk. Here every event answered 2xx must have
// been written to the journal by a durable write (a descriptor opened O_DSYNC, or the
// write followed by fdatasync/fsync) before its answer was written to the socket; and
// every line of the rejected-requests file is written durably too (it is not awaited
// before the 401: what matters is that it is not left to the page cache).
import { execa } from 'execa';
import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleBody } from '../../src/webhooks/events.js';
import { notificationHeaders } from '../../src/webhooks/signature.js';
import { BIN, ROOT, tempDir } from '../helpers/cli.js';
import { post } from '../helpers/receiver.js';
import {
  durableWrites,
  exchange,
  hasStrace,
  readTrace,
  STRACE_ARGS,
  tracedPid,
} from '../helpers/syscalls.js';
import { skipBecause } from '../helpers/skips.js';

// A test secret, only ever used in this test.
const SECRET = 'whsec_listen_durable_secret_4711';
const HAVE_STRACE = process.platform === 'linux' && hasStrace();

describe.skipIf(
  skipBecause(
    import.meta.url,
    !HAVE_STRACE &&
      'needs strace on Linux (apt-get install strace; SVC_REQUIRE_STRACE_TEST=1 fails instead)',
  ),
)('webhook listen writes durably before it answers (strace)', () => {
  it('every event answered 2xx was written to the journal durably before its answer; every rejected request durably to its file', async () => {
    const dir = realpathSync(tempDir('svc-listen-durable-'));
    const journal = join(dir, 'webhooks.jsonl');
    const trace = join(dir, 'strace.txt');
    mkdirSync(join(dir, 'cfg'));
    const proc = execa(
      'strace',
      [
        '-o',
        trace,
        ...STRACE_ARGS,
        'node',
        BIN,
        'webhook',
        'listen',
        '--port',
        '0',
        '--secret-from-env',
        '--journal',
        journal,
      ],
      {
        cwd: ROOT,
        env: {
          SVC_CONFIG_DIR: join(dir, 'cfg'),
          SVC_DATA_DIR: join(dir, 'data'),
          NO_COLOR: '1',
          SVC_KEYRING: 'off',
          SVC_WEBHOOK_SECRET: SECRET,
          PATH: process.env.PATH,
        },
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
      },
    );
    let err = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`listen did not start within 30 s under strace: ${err}`)),
        30_000,
      );
      proc.stderr!.on('data', (d) => {
        err += String(d);
        const m = /^Listo\. Esperando notificaciones en (\S+)/m.exec(err);
        if (m) (clearTimeout(timer), resolve(m[1]!));
      });
      proc.once(
        'exit',
        (code) => (clearTimeout(timer), reject(new Error(`listen exited with ${code}: ${err}`))),
      );
    });
    const send = (marca: string, forged: boolean) => {
      const bytes = Buffer.from(JSON.stringify({ ...sampleBody('payment.approved'), marca }));
      const headers = notificationHeaders(
        forged ? 'whsec_not_the_secret' : SECRET,
        'payment.approved',
        bytes,
      );
      return post(url, bytes, headers);
    };
    const answered: string[] = [];
    const rejected: string[] = [];
    try {
      // One at a time, then bursts (batches of several lines in one write).
      for (let i = 0; i < 3; i++) {
        const marca = `durable-solo-${i}-fin`;
        const r = await send(marca, false);
        if (r.status >= 200 && r.status < 300) answered.push(marca);
      }
      for (let round = 0; round < 2; round++) {
        await Promise.all(
          Array.from({ length: 12 }, async (_, i) => {
            const marca = `durable-r${round}-${i}-fin`;
            const r = await send(marca, false);
            if (r.status >= 200 && r.status < 300) answered.push(marca);
          }),
        );
      }
      for (let i = 0; i < 3; i++) {
        const marca = `forjado-${i}-fin`;
        expect((await send(marca, true)).status).toBe(401);
        rejected.push(marca);
      }
    } finally {
      // SIGINT to the listener (not strace, which would detach and leave it running):
      // it closes its files and exits, then strace does.
      try {
        process.kill(tracedPid(trace), 'SIGINT');
      } catch {
        proc.kill('SIGKILL');
      }
      const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
      await proc;
      clearTimeout(timer);
    }
    expect(answered).toHaveLength(27);

    const calls = readTrace(trace);
    const writes = durableWrites(calls, journal);
    expect(writes.length, 'writes to the journal seen by strace').toBeGreaterThan(0);
    const late: string[] = [];
    for (const marca of answered) {
      const ex = exchange(calls, marca);
      expect(ex, `${marca}: its request read from a socket`).toBeDefined();
      expect(ex!.answer, `${marca}: its answer written to the socket`).toBeDefined();
      const w = writes.find((x) => x.call.text.includes(marca));
      if (!w) late.push(`${marca}: never written to ${journal}`);
      else if (!(w.durableAt < ex!.answer!.start)) {
        late.push(
          `${marca}: answered (trace line ${ex!.answer!.start + 1}) before its journal write was durable (${w.durableAt === Infinity ? 'never' : `line ${w.durableAt + 1}`})`,
        );
      }
    }
    expect(late, 'events answered 2xx before their journal line was durable').toEqual([]);

    const rejectedFile = join(dir, 'webhooks.rechazados.jsonl');
    expect(existsSync(rejectedFile), 'the rejected-requests file').toBe(true);
    const kept = durableWrites(calls, rejectedFile);
    for (const marca of rejected) {
      const w = kept.find((x) => x.call.text.includes(marca));
      expect(w, `${marca}: written to ${rejectedFile}`).toBeDefined();
      expect(
        w!.durableAt,
        `${marca}: its line in the rejected-requests file is written durably`,
      ).not.toBe(Infinity);
    }
  }, 120_000);
});
