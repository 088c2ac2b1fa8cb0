// The listener in-process, with signed POSTs of our own and a recording target:
// bytes and headers forwarded unchanged, 401/413/filter never forwarded, routes and
// extra headers, the target's status relayed, 502 when it is down or slow, a burst
// of 200 forwarded without loss, shutdown waiting for forwards in flight, the journal.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { sampleBody } from '../../src/webhooks/events.js';
import { entryBody, readJournal } from '../../src/webhooks/event-journal.js';
import {
  startListener,
  type Listener,
  type ListenOptions,
  type ListenRecord,
} from '../../src/webhooks/listen.js';
import { notificationHeaders, verify } from '../../src/webhooks/signature.js';
import { parseAnswer, unfinishedPost } from '../helpers/raw-http.js';
import { post, startReceiver, type Receiver } from '../helpers/receiver.js';

const SECRET = 'whsec_listen_test_secret';
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

async function setup(
  options: Partial<ListenOptions> = {},
): Promise<{ target: Receiver; listener: Listener; events: ListenRecord[]; journal: string }> {
  const target = await startReceiver();
  open.push(target);
  const journal = join(tempDir('svc-listen-'), 'webhooks.jsonl');
  const events: ListenRecord[] = [];
  const listener = await startListener({
    secret: SECRET,
    port: 0,
    forwardTo: target.url,
    journal,
    onEvent: (e) => events.push(e),
    ...options,
  });
  open.push(listener);
  return { target, listener, events, journal };
}

function signed(
  event = 'payment.approved',
  body: Buffer | string = JSON.stringify(sampleBody(event as 'payment.approved')),
) {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return { body: bytes, headers: notificationHeaders(SECRET, event, bytes) };
}

describe('listener', () => {
  it('forwards the exact bytes and every X-Svc-* header; the target re-verifies them', async () => {
    const { target, listener, events, journal } = await setup();
    const { body, headers } = signed(
      'payment.approved',
      '{"event":"payment.approved",  "cobro_id":7,"monto":"10.50","estado":"PAGADA"}\n',
    );
    const r = await post(listener.url, body, {
      ...headers,
      'X-Svc-Delivery': 'd-1',
      Authorization: 'Bearer not-forwarded',
    });
    expect(r.status).toBe(200);
    expect(r.body).toBe('ok');
    expect(target.received).toHaveLength(1);
    const got = target.received[0]!;
    expect(got.body.equals(body)).toBe(true);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-svc-event']).toBe('payment.approved');
    expect(got.headers['x-svc-timestamp']).toBe(headers['X-Svc-Timestamp']);
    expect(got.headers['x-svc-signature']).toBe(headers['X-Svc-Signature']);
    expect(got.headers['x-svc-delivery']).toBe('d-1');
    expect(got.headers.authorization).toBeUndefined();
    const check = verify({
      secret: SECRET,
      timestamp: String(got.headers['x-svc-timestamp']),
      signature: String(got.headers['x-svc-signature']),
      body: got.body,
    });
    expect(check.ok).toBe(true);
    expect(events[0]).toMatchObject({
      event: 'payment.approved',
      cobro_id: 7,
      estado: 'PAGADA',
      monto: '10.50',
      outcome: 'forwarded',
      status: 200,
      answered: 200,
    });
    await listener.close();
    const { entries } = readJournal(journal);
    expect(entries).toHaveLength(1);
    expect(entryBody(entries[0]!).equals(body)).toBe(true);
    expect(entries[0]!.headers['x-svc-delivery']).toBe('d-1');
    expect(JSON.stringify(entries[0])).not.toContain('not-forwarded');
  });

  it('a body that is not UTF-8 is forwarded unchanged and journaled in base64', async () => {
    const { target, listener, journal } = await setup();
    const bin = Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x80, 0xc3, 0x28]);
    const { headers } = signed('payment.approved', bin);
    const r = await post(listener.url, bin, headers);
    expect(r.status).toBe(200);
    expect(target.received[0]!.body.equals(bin)).toBe(true);
    await listener.close();
    const e = readJournal(journal).entries[0]!;
    expect(e.body_encoding).toBe('base64');
    expect(entryBody(e).equals(bin)).toBe(true);
  });

  it('a bad signature is answered 401 with the reason and never forwarded', async () => {
    const { target, listener, events, journal } = await setup();
    const { body } = signed();
    const bad = notificationHeaders('another-secret', 'payment.approved', body);
    const r1 = await post(listener.url, body, bad);
    expect(r1.status).toBe(401);
    expect(JSON.parse(r1.body).reason).toBe('signature_mismatch');
    const r2 = await post(listener.url, body, { 'content-type': 'application/json' });
    expect(r2.status).toBe(401);
    expect(JSON.parse(r2.body).reason).toBe('missing_signature');
    const old = notificationHeaders(
      SECRET,
      'payment.approved',
      body,
      Math.floor(Date.now() / 1000) - 3600,
    );
    const r3 = await post(listener.url, body, old);
    expect(JSON.parse(r3.body).reason).toBe('timestamp_too_old');
    expect(target.received).toHaveLength(0);
    expect(events.map((e) => e.outcome)).toEqual(['rejected', 'rejected', 'rejected']);
    await listener.close();
    expect(readJournal(journal).entries.map((e) => e.verification.reason)).toEqual([
      'signature_mismatch',
      'missing_signature',
      'timestamp_too_old',
    ]);
  });

  it('413 above 1 MiB, by Content-Length or counted while streaming; never forwarded', async () => {
    const { target, listener, events } = await setup();
    const big = Buffer.alloc(1024 * 1024 + 1, 'a');
    const headers = notificationHeaders(SECRET, 'payment.approved', big);
    const r1 = await post(listener.url, big, headers);
    expect(r1.status).toBe(413);
    const r2 = await post(listener.url, Buffer.alloc(3 * 1024 * 1024, 'b'), headers, {
      chunked: true,
    }).catch((err: Error) => err);
    // Streaming: the answer comes before the upload ends; the socket may be closed under the sender.
    if (!(r2 instanceof Error)) expect(r2.status).toBe(413);
    // Exactly 1 MiB is accepted.
    const max = Buffer.alloc(1024 * 1024, 'c');
    const r3 = await post(listener.url, max, notificationHeaders(SECRET, 'payment.approved', max));
    expect(r3.status).toBe(200);
    expect(target.received).toHaveLength(1);
    expect(target.received[0]!.body.length).toBe(1024 * 1024);
    expect(events.filter((e) => e.outcome === 'too_large').length).toBe(2);
  });

  it('a streamed body past 1 MiB gets a real 413 answer the sender can read, not a cut connection', async () => {
    const { target, listener, events } = await setup();
    // Without a signature (refused from its headers, the body still counted), and signed
    // (the signature is checked once the body is whole, so it is read as an event's).
    for (const headers of [
      { 'Content-Type': 'application/json' },
      notificationHeaders(SECRET, 'payment.approved', '{}'),
    ]) {
      const r = await unfinishedPost(listener.url, headers, 1024 * 1024 + 1);
      const answer = parseAnswer(r.text);
      expect(answer.status, r.text.slice(0, 200)).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer.body).toMatchObject({ error: 'payload_too_large' });
    }
    expect(target.received).toHaveLength(0);
    expect(events.map((e) => e.outcome)).toEqual(['too_large', 'too_large']);
  });

  it('--events: the others are answered 200, journaled as skipped, not forwarded', async () => {
    const { target, listener, events } = await setup({ events: ['payment.approved'] });
    const a = signed('payment.approved');
    const b = signed('payment.created', JSON.stringify(sampleBody('payment.created')));
    expect((await post(listener.url, b.body, b.headers)).status).toBe(200);
    expect((await post(listener.url, a.body, a.headers)).status).toBe(200);
    expect(target.received.map((r) => r.headers['x-svc-event'])).toEqual(['payment.approved']);
    expect(events.map((e) => e.outcome)).toEqual(['skipped', 'forwarded']);
  });

  it('--route sends an event elsewhere; -H extras reach the target', async () => {
    const other = await startReceiver();
    open.push(other);
    const { target, listener } = await setup({
      routes: { 'payment.refunded': other.url },
      headers: [['Authorization', 'Bearer app-dev-token']],
    });
    const refund = signed('payment.refunded', JSON.stringify(sampleBody('payment.refunded')));
    const approved = signed('payment.approved');
    await post(listener.url, refund.body, refund.headers);
    await post(listener.url, approved.body, approved.headers);
    expect(other.received.map((r) => r.headers['x-svc-event'])).toEqual(['payment.refunded']);
    expect(target.received.map((r) => r.headers['x-svc-event'])).toEqual(['payment.approved']);
    expect(target.received[0]!.headers.authorization).toBe('Bearer app-dev-token');
  });

  it("answers with the target's status and shows the start of its body", async () => {
    const { target, listener, events } = await setup();
    target.answer = () => ({ status: 500, body: 'TypeError: cannot read properties of undefined' });
    const { body, headers } = signed();
    const r = await post(listener.url, body, headers);
    expect(r.status).toBe(500);
    expect(r.body).toContain('TypeError');
    expect(events[0]).toMatchObject({ outcome: 'target_error', status: 500, answered: 500 });
    expect(events[0]!.response_start).toContain('TypeError');
  });

  it('502 when the target is down, and when it does not answer in time', async () => {
    const { target, listener, events } = await setup({ forwardTimeoutMs: 300 });
    const { body, headers } = signed();
    target.answer = () => ({ status: 200, delayMs: 2_000 });
    const slow = await post(listener.url, body, headers);
    expect(slow.status).toBe(502);
    expect(JSON.parse(slow.body).error).toBe('target_unreachable');
    await target.close();
    const down = await post(listener.url, body, headers);
    expect(down.status).toBe(502);
    expect(events.map((e) => e.outcome)).toEqual(['unreachable', 'unreachable']);
    expect(events[1]!.error).toMatch(/rechazada/);
  });

  it('a redirect is relayed, not followed', async () => {
    const { target, listener } = await setup();
    target.answer = () => ({ status: 307 });
    const { body, headers } = signed();
    const r = await post(listener.url, body, headers);
    expect(r.status).toBe(307);
    expect(target.received).toHaveLength(1);
  });

  it('200 events at once: all forwarded concurrently, none lost, all journaled', async () => {
    const { target, listener, journal } = await setup();
    target.answer = () => ({ status: 200, delayMs: 20 });
    const sends = Array.from({ length: 200 }, (_, i) => {
      const { body, headers } = signed(
        'payment.approved',
        JSON.stringify({ ...sampleBody('payment.approved'), cobro_id: i + 1 }),
      );
      return post(listener.url, body, headers);
    });
    const results = await Promise.all(sends);
    expect(results.every((r) => r.status === 200)).toBe(true);
    const ids = target.received
      .map((r) => JSON.parse(r.body.toString()).cobro_id as number)
      .sort((a, b) => a - b);
    expect(ids).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    await listener.close();
    const { entries, skipped } = readJournal(journal);
    expect(skipped).toBe(0);
    expect(entries).toHaveLength(200);
    expect(new Set(entries.map((e) => e.id)).size).toBe(200);
  });

  it('close() stops accepting but waits for forwards in flight', async () => {
    const { target, listener, journal } = await setup();
    target.answer = () => ({ status: 200, body: 'late', delayMs: 500 });
    const { body, headers } = signed();
    const pending = post(listener.url, body, headers);
    await target.waitFor(1);
    await listener.close();
    const r = await pending;
    expect(r.status).toBe(200);
    expect(readJournal(journal).entries[0]?.outcome).toBe('forwarded');
    await expect(post(listener.url, body, headers)).rejects.toThrow();
  });

  it('GET on the path answers a health object; other paths 404', async () => {
    const { listener } = await setup({ path: '/webhooks' });
    expect(listener.url.endsWith('/webhooks')).toBe(true);
    const health = await fetch(listener.url);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({
      ok: true,
      name: 'svc webhook listen',
      path: '/webhooks',
    });
    const other = await fetch(listener.url.replace('/webhooks', '/otra'), {
      method: 'POST',
      body: '{}',
    });
    expect(other.status).toBe(404);
  });

  it('the journal never holds the secret', async () => {
    const { listener, journal } = await setup();
    const { body, headers } = signed();
    await post(listener.url, body, headers);
    await listener.close();
    expect(readFileSync(journal, 'utf8')).not.toContain(SECRET);
  });
});
