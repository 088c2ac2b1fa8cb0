// What strangers can do to the listener's journal: requests that fail verification
// (unsigned, signed with another secret, expired; 1 MiB of control bytes each, and
// one with every header and the path as long as Node lets them be) keep only the start
// of their body, in a file of their own, so they never push a verified event out and
// the journal's folder stays small whatever they send.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { expectNoStack, svcSpawned, tempDir } from '../helpers/cli.js';
import { sampleBody } from '../../src/webhooks/events.js';
import {
  entryBody,
  readJournal,
  rejectedPath,
  rotatedPath,
} from '../../src/webhooks/event-journal.js';
import { startListener, type Listener } from '../../src/webhooks/listen.js';
import { notificationHeaders } from '../../src/webhooks/signature.js';
import { post, startReceiver } from '../helpers/receiver.js';

const SECRET = 'whsec_listen_rejected_secret';
const MIB = 1024 * 1024;
/** Each kind: enough 1 MiB bodies (~6 MiB of JSON each when kept whole) to rotate a 64 MiB journal twice. */
const EACH = 8;
/** The most a rejected request may add to the disk (the start of its body, headers and path cut short). */
const LINE_MAX = 8 * 1024;

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

describe('rejected requests and the journal', () => {
  it(`${3 * EACH} rejected 1 MiB bodies and one with huge headers: the verified event stays, each keeps at most 256 bytes, the folder stays small`, async () => {
    const target = await startReceiver();
    open.push(target);
    const dir = tempDir('svc-listen-rejected-');
    const journal = join(dir, 'webhooks.jsonl');
    const listener: Listener = await startListener({
      secret: SECRET,
      port: 0,
      forwardTo: target.url,
      journal,
    });
    open.push(listener);

    const good = Buffer.from(JSON.stringify(sampleBody('payment.approved', { cobro_id: 4242 })));
    expect(
      (await post(listener.url, good, notificationHeaders(SECRET, 'payment.approved', good)))
        .status,
    ).toBe(200);

    const junk = Buffer.alloc(MIB, 0x01);
    const now = Math.floor(Date.now() / 1000);
    const kinds: [string, Record<string, string>][] = [
      [
        'missing_signature',
        { 'content-type': 'application/json', 'x-svc-event': 'payment.approved' },
      ],
      [
        'signature_mismatch',
        notificationHeaders('whsec_someone_else', 'payment.approved', junk, now),
      ],
      ['timestamp_too_old', notificationHeaders(SECRET, 'payment.approved', junk, now - 3600)],
    ];
    for (const [reason, headers] of kinds) {
      for (let i = 0; i < EACH; i++) {
        const r = await post(listener.url, junk, headers);
        expect(r.status, reason).toBe(401);
        expect(JSON.parse(r.body).reason).toBe(reason);
      }
    }
    // Headers and path as long as Node takes them (16 KiB in all), of bytes that grow as JSON.
    const nasty: Record<string, string> = { 'content-type': '\xff'.repeat(400) };
    for (let i = 0; i < 24; i++) nasty[`x-svc-h${i}`] = '\xff'.repeat(400);
    const longPath = `${new URL(listener.url).pathname}?${'%01'.repeat(600)}`;
    const r = await post(new URL(listener.url).origin + longPath, junk.subarray(0, 4096), nasty);
    expect(r.status).toBe(401);
    await listener.close();

    const { entries, skipped } = readJournal(journal);
    expect(skipped).toBe(0);
    const verified = entries.filter((e) => e.verification.valid);
    expect(verified.map((e) => e.cobro_id)).toEqual([4242]);
    expect(entryBody(verified[0]!).equals(good)).toBe(true);
    const rejected = entries.filter((e) => !e.verification.valid);
    expect(rejected).toHaveLength(3 * EACH + 1);
    for (const e of rejected) {
      expect(e.outcome).toBe('rejected');
      expect(entryBody(e).length).toBeLessThanOrEqual(256);
      if (e.bytes === MIB) expect(e.body_truncated).toBe(true);
    }
    expect(rejected.slice(0, 3 * EACH).map((e) => e.bytes)).toEqual(Array(3 * EACH).fill(MIB));

    // The verified event's file holds verified events only; no line of a stranger's is long.
    expect(readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(1);
    const files = readdirSync(dir);
    let disk = 0;
    for (const f of files) {
      disk += statSync(join(dir, f)).size;
      for (const line of readFileSync(join(dir, f), 'utf8').split('\n'))
        expect(Buffer.byteLength(line), f).toBeLessThanOrEqual(LINE_MAX);
    }
    console.log(
      `[rejected] ${rejected.length} rejected requests of up to 1 MiB: journal folder ${files.join(', ')}: ${disk} bytes on disk`,
    );
    expect(disk).toBeLessThan((3 * EACH + 2) * LINE_MAX);

    // Only the start of such a body is kept: replaying it is refused, in one line.
    const replay = await svcSpawned([
      'webhook',
      'replay',
      rejected[0]!.id,
      '--journal',
      journal,
      '--forward-to',
      target.url,
    ]);
    expect(replay.exitCode).toBe(2);
    expect(replay.stderr).toMatch(/solo se guardó el comienzo de su cuerpo: no se puede reenviar/);
    expectNoStack(replay.stderr);
    expect(target.received).toHaveLength(1);
  }, 60_000);

  it('the file of rejected requests rotates on its own: two generations at most, verified events untouched', async () => {
    const dir = tempDir('svc-listen-rejected-');
    const journal = join(dir, 'webhooks.jsonl');
    const max = 64 * 1024;
    const listener = await startListener({
      secret: SECRET,
      port: 0,
      journal,
      rejectedMaxBytes: max,
    });
    open.push(listener);
    const good = Buffer.from(JSON.stringify(sampleBody('payment.approved', { cobro_id: 7 })));
    expect(
      (await post(listener.url, good, notificationHeaders(SECRET, 'payment.approved', good)))
        .status,
    ).toBe(200);
    const junk = Buffer.alloc(4096, 0x01);
    for (let i = 0; i < 200; i++)
      expect((await post(listener.url, junk, { 'x-svc-event': `n${i}` })).status).toBe(401);
    await listener.close();
    const rejected = rejectedPath(journal);
    const sizes = [rejected, rotatedPath(rejected)].map((f) => statSync(f).size);
    // Rotated before a write would pass the size, however many lines wait together.
    for (const size of sizes) expect(size).toBeLessThanOrEqual(max);
    expect(readdirSync(dir).sort()).toEqual([
      'webhooks.jsonl',
      'webhooks.jsonl.idx',
      'webhooks.rechazados.jsonl',
      'webhooks.rechazados.jsonl.1',
      'webhooks.rechazados.jsonl.1.ids',
      'webhooks.rechazados.jsonl.1.idx',
      'webhooks.rechazados.jsonl.idx',
    ]);
    const { entries } = readJournal(journal);
    expect(entries.filter((e) => e.verification.valid).map((e) => e.cobro_id)).toEqual([7]);
    // The newest rejected ones are the ones kept, oldest first.
    const names = entries
      .filter((e) => !e.verification.valid)
      .map((e) => Number(e.event!.slice(1)));
    expect(names.at(-1)).toBe(199);
    expect(names).toEqual([...names].sort((a, b) => a - b));
  });
});
