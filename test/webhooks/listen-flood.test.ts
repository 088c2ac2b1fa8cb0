// Memory of `svc webhook listen` (the built CLI, as a process) under a flood of forged
// bodies: 1 MiB POSTs from strangers all at once (unsigned, and signed with a wrong
// key and a fresh timestamp, whose bodies must be read to be checked), requests that
// declare 100 MiB and send nothing more, and beside them signed events from the
// service, which retries any non-2xx answer as the service does. The listener's peak
// resident memory (VmHWM in /proc/<pid>/status) must stay under RSS_LIMIT_MIB, every
// signed event must be answered 2xx and journaled, and no journal write may fail.
// Figures printed with a [flood] prefix; nothing is asserted on time.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sampleBody } from '../../src/webhooks/events.js';
import { readJournal } from '../../src/webhooks/event-journal.js';
import { notificationHeaders } from '../../src/webhooks/signature.js';
import { expectNoStack, tempDir } from '../helpers/cli.js';
import {
  post,
  startListen,
  startReceiver,
  type ListenProc,
  type Receiver,
  stopBoth,
} from '../helpers/receiver.js';

// A test secret, only ever used in this test.
const SECRET = 'whsec_listen_flood_secret_1312';
const UNSIGNED = 150;
const FORGED = 150;
const DECLARED = 20;
const VALID = 100;
const MAX_ATTEMPTS = 50;
/** The bound on the listener's peak RSS: a baseline of ~60-80 MiB, 32 MiB of bodies, room to spare. */
const RSS_LIMIT_MIB = 200;

let listen: ListenProc | undefined;
let target: Receiver | undefined;
afterEach(async () => {
  await stopBoth(listen, target);
  [listen, target] = [undefined, undefined];
});

function peakRssKiB(pid: number): number | undefined {
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Sends only the headers of a POST declaring `length` bytes; resolves with the status line it gets. */
function declareOnly(url: string, length: number): Promise<string> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(u.port), u.hostname);
    let got = '';
    socket.on('connect', () =>
      socket.write(
        `POST ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`,
      ),
    );
    socket.on('data', (d) => {
      got += d.toString('latin1');
      if (got.includes('\r\n')) {
        socket.destroy();
        resolve(got.split('\r\n')[0]!);
      }
    });
    socket.on('error', () => resolve(got.split('\r\n')[0] ?? ''));
    socket.on('close', () => resolve(got.split('\r\n')[0] ?? ''));
  });
}

describe('webhook listen under a flood of forged 1 MiB bodies', () => {
  it(`${UNSIGNED} unsigned + ${FORGED} badly signed 1 MiB POSTs at once beside ${VALID} signed events: RSS under ${RSS_LIMIT_MIB} MiB, every event journaled`, async (ctx) => {
    if (process.platform !== 'linux') {
      ctx.skip('peak RSS is read from /proc/<pid>/status, which only Linux has');
    }
    target = await startReceiver();
    const journal = join(tempDir('svc-listen-flood-'), 'webhooks.jsonl');
    listen = await startListen(
      ['--secret-from-env', '--forward-to', target.url, '--journal', journal, '--json'],
      {
        SVC_WEBHOOK_SECRET: SECRET,
        SVC_KEYRING: 'off',
      },
    );
    const pid = listen.proc.pid!;
    const before = peakRssKiB(pid)!;
    // Sampled as it goes too: a listener that dies of the flood takes its /proc entry along.
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, peakRssKiB(pid) ?? 0)), 50);

    const junk = Buffer.alloc(1024 * 1024, 0x01);
    const forgedHeaders = () =>
      notificationHeaders('whsec_not_the_secret', 'payment.approved', junk);
    const statuses = new Map<string, number>();
    const count = (key: string) => statuses.set(key, (statuses.get(key) ?? 0) + 1);
    const flood = [
      ...Array.from({ length: UNSIGNED }, () =>
        post(listen!.url, junk, { 'content-type': 'application/json' }),
      ),
      ...Array.from({ length: FORGED }, () => post(listen!.url, junk, forgedHeaders())),
    ].map((p) =>
      p.then(
        (r) => count(String(r.status)),
        () => count('cut'),
      ),
    );
    const declared = Array.from({ length: DECLARED }, () =>
      declareOnly(listen!.url, 100 * 1024 * 1024),
    );

    // The service's retry loop, for each signed event, during the flood.
    const acked = new Map<number, number>();
    const valid = Array.from({ length: VALID }, async (_, i) => {
      const bytes = Buffer.from(
        JSON.stringify(sampleBody('payment.approved', { cobro_id: 50_000 + i })),
      );
      for (let a = 1; a <= MAX_ATTEMPTS; a++) {
        const r = await post(
          listen!.url,
          bytes,
          notificationHeaders(SECRET, 'payment.approved', bytes),
        ).catch(() => undefined);
        if (r && r.status >= 200 && r.status < 300) {
          acked.set(50_000 + i, a);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    });
    const declaredLines = await Promise.all(declared);
    await Promise.all([...flood, ...valid]);
    clearInterval(sampler);
    peak = Math.max(peak, peakRssKiB(pid) ?? 0);
    const { exitCode, stderr } = await listen.stop('SIGINT');
    listen = undefined;

    const { entries } = readJournal(journal);
    const journaled = new Set(entries.filter((e) => e.verification.valid).map((e) => e.cobro_id));
    const retried = [...acked.values()].filter((a) => a > 1).length;
    let disk = 0;
    for (const f of readdirSync(dirname(journal))) disk += statSync(join(dirname(journal), f)).size;
    console.log(
      `[flood] webhook listen: ${UNSIGNED} unsigned + ${FORGED} badly signed 1 MiB POSTs at once, ${DECLARED} declaring 100 MiB, ${VALID} signed events: ` +
        `peak RSS ${Math.round(peak / 1024)} MiB (${Math.round(before / 1024)} MiB before the flood, limit ${RSS_LIMIT_MIB}); ` +
        `flood answers ${JSON.stringify(Object.fromEntries(statuses))}; signed events answered 2xx ${acked.size}/${VALID} (${retried} after a retry), journaled ${journaled.size}; ` +
        `journal folder ${disk} bytes`,
    );

    expect(exitCode, stderr).toBe(0);
    expectNoStack(stderr);
    expect(stderr).not.toMatch(/Invalid string length|no se pudo escribir el journal/);
    expect(
      declaredLines.filter((l) => !l.startsWith('HTTP/1.1 413')),
      'answers to a declared 100 MiB body',
    ).toEqual([]);
    expect(acked.size).toBe(VALID);
    const missing = [...acked.keys()].filter((id) => !journaled.has(id));
    expect(missing, 'signed events answered 2xx but not journaled').toEqual([]);
    expect(
      (statuses.get('200') ?? 0) + (statuses.get('202') ?? 0),
      'forged requests answered 2xx',
    ).toBe(0);
    expect(peak / 1024, 'peak RSS of the listener, MiB').toBeLessThan(RSS_LIMIT_MIB);
    expect(disk).toBeLessThan(8 * 1024 * 1024);
  }, 120_000);
});
