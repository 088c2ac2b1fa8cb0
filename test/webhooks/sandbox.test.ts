// End to end with real notifications: `svc sandbox` notifying
// `svc webhook listen` (on a port of its own choosing), which forwards to a recording app. The app gets the bytes
// and headers the listener got and re-verifies them; an app that is down makes the
// listener answer 502, the sandbox retries and the event arrives once the app is
// back (the journal shows both); a wrong secret is 401 and never forwarded; a burst
// of 200 events is forwarded whole. The listener is always the built CLI as a process
// (npm run build first); the sandbox is one too in the first case, and in this process
// elsewhere (the same notifier, without a process start per case).
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { svc } from '../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';
import { readJournal, type JournalEntry } from '../../src/webhooks/event-journal.js';
import { verify } from '../../src/webhooks/signature.js';
import { startListen, startReceiver, type ListenProc, type Receiver } from '../helpers/receiver.js';
import { waitFor } from '../helpers/wait.js';

const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (stops.length) await stops.pop()!().catch(() => undefined);
});

/** The suite's bounded wait (helpers/wait.ts), with this file's 30 s bound. */
const until = <T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  ms = 30_000,
): Promise<T> => waitFor(what, probe, ms);

interface Setup {
  sandbox: Sandbox;
  listen: ListenProc;
  target: Receiver;
  journal: string;
}

const RETRIES = [300, 600, 1200, 2400, 5000, 10000, 20000];

async function setup(options: { listenSecret?: string; spawned?: boolean } = {}): Promise<Setup> {
  const target = await startReceiver();
  stops.push(() => target.close());
  const sandbox = options.spawned
    ? await startSandbox({ spawned: ['--retry-schedule', RETRIES.join(','), '--ready-delay', '0'] })
    : await startSandbox({ retrySchedule: RETRIES });
  stops.push(() => sandbox.stop());
  const journal = join(tempDir('svc-e2e-j-'), 'webhooks.jsonl');
  // The listener takes a free port itself (a port found free beforehand may be taken by then).
  const listen = await startListen(['--forward-to', target.url, '--journal', journal, '--json'], {
    SVC_WEBHOOK_SECRET: options.listenSecret ?? sandbox.webhook_secret,
  });
  stops.push(() => listen.stop('SIGKILL'));
  expect((await sandbox.api('POST', '/_sandbox/webhook', { url: listen.url })).status).toBe(200);
  return { sandbox, listen, target, journal };
}

async function crear(sandbox: Sandbox, monto = '1500.00'): Promise<number> {
  const r = await sandbox.api('POST', '/v1/cobros', { concepto: 'Pedido e2e', monto });
  expect(r.status).toBe(201);
  return r.body.data.id as number;
}

const journaled = (journal: string): JournalEntry[] => readJournal(journal).entries;

describe('sandbox -> listen -> app', () => {
  it('real events arrive with identical bytes and headers, and re-verify', async () => {
    const { sandbox, target, journal } = await setup({ spawned: true });
    const id = await crear(sandbox);
    expect((await sandbox.api('POST', `/_sandbox/cobros/${id}/pagar`, {})).status).toBe(200);
    await target.waitFor(2);
    const entries = await until(
      'two journal entries',
      () => journaled(journal).length >= 2 && journaled(journal),
    );
    const events = target.received.map((r) => JSON.parse(r.body.toString()));
    expect(events.map((e) => e.event)).toEqual(['payment.created', 'payment.approved']);
    expect(events[1]).toMatchObject({
      cobro_id: id,
      estado: 'PAGADA',
      monto: '1500.00',
      monto_cobrado: '1500.00',
    });
    for (const [i, got] of target.received.entries()) {
      const e = entries[i]!;
      expect(e.outcome).toBe('forwarded');
      // What the app got is what the listener received from the sandbox.
      expect(got.body.toString('utf8')).toBe(e.body);
      for (const [name, value] of Object.entries(e.headers)) expect(got.headers[name]).toBe(value);
      expect(Object.keys(e.headers).sort()).toEqual([
        'content-type',
        'x-svc-event',
        'x-svc-signature',
        'x-svc-timestamp',
      ]);
      const check = verify({
        secret: sandbox.webhook_secret,
        timestamp: String(got.headers['x-svc-timestamp']),
        signature: String(got.headers['x-svc-signature']),
        body: got.body,
      });
      expect(check.ok).toBe(true);
    }
    // The sandbox records a delivery after the listener's answer reaches it, so it is awaited.
    const entregas = await until('two deliveries recorded', async () => {
      const list = (await sandbox.api('GET', '/_sandbox/entregas')).body.data as {
        status: number;
      }[];
      return list.length >= 2 && list;
    });
    expect(entregas.map((e) => e.status)).toEqual([200, 200]);
  });

  it('after reloj avanzar 8d every delivery is accepted by listen and by a strict receiver; reiniciar returns to the real time (#24.3)', async () => {
    const { sandbox, target, journal } = await setup();
    const before = (await sandbox.api('POST', '/v1/cobros', { concepto: 'Antes', monto: '10.00' }))
      .body.data;
    await target.waitFor(1);
    const moved = await svc(['sandbox', 'reloj', 'avanzar', '8d', '--json'], { env: sandbox.env });
    expect(moved.exitCode, moved.stderr).toBe(0);
    expect(JSON.parse(moved.stdout).vencidos).toEqual([before.id]);
    const id = await crear(sandbox);
    expect(
      (await sandbox.api('POST', `/_sandbox/cobros/${id}/pagar`, { monto: '500.00' })).status,
    ).toBe(200);
    expect(
      (await sandbox.api('POST', `/v1/cobros/${id}/devoluciones`, { monto: '100.00' })).status,
    ).toBe(201);
    // Antes: created, rejected (expired by the move); the new one: created, approved, refunded.
    await target.waitFor(5);
    const entregas = await until('five deliveries recorded', async () => {
      const list = (await sandbox.api('GET', '/_sandbox/entregas')).body.data as {
        status: number;
        ok: boolean;
      }[];
      return list.length >= 5 && list;
    });
    expect(entregas.map((e) => e.status)).toEqual([200, 200, 200, 200, 200]);
    expect(journaled(journal).map((e) => e.outcome)).toEqual([
      'forwarded',
      'forwarded',
      'forwarded',
      'forwarded',
      'forwarded',
    ]);
    for (const got of target.received) {
      // A strict receiver: the seed's 300 s either way, by this machine's clock.
      const check = verify({
        secret: sandbox.webhook_secret,
        timestamp: String(got.headers['x-svc-timestamp']),
        signature: String(got.headers['x-svc-signature']),
        body: got.body,
        toleranceSeconds: 300,
      });
      expect(check).toEqual({ ok: true });
    }
    // Dates in the records follow the sandbox's clock.
    const cobro = (await sandbox.api('GET', `/v1/cobros/${id}`)).body.data;
    const ms = (local: string) => Date.parse(local.replace(' ', 'T') + 'Z');
    expect(ms(cobro.created_at) - ms(before.created_at)).toBeGreaterThanOrEqual(
      8 * 24 * 3600 * 1000,
    );

    const back = await svc(['sandbox', 'reloj', 'reiniciar', '--json'], { env: sandbox.env });
    expect(back.exitCode, back.stderr).toBe(0);
    expect(JSON.parse(back.stdout).adelanto_ms).toBe(0);
    // What happened on the moved clock stays; what is written now is on the real time again.
    expect((await sandbox.api('GET', `/v1/cobros/${id}`)).body.data.created_at).toBe(
      cobro.created_at,
    );
    const after = (await sandbox.api('POST', '/v1/cobros', { concepto: 'Después', monto: '1.00' }))
      .body.data;
    expect(Math.abs(ms(after.created_at) - ms(before.created_at))).toBeLessThan(3600 * 1000);
  });

  it('app down -> 502 -> the sandbox retries -> the event arrives once the app is back; the journal shows both', async () => {
    const { sandbox, target, journal } = await setup();
    const port = target.port;
    await target.close();
    const id = await crear(sandbox);
    const failed = await until('a 502 in the journal', () =>
      journaled(journal).find((e) => e.cobro_id === id && e.outcome === 'unreachable'),
    );
    expect(failed.answered).toBe(502);
    const back = await startReceiver({ port });
    stops.push(() => back.close());
    await back.waitFor(1);
    expect(JSON.parse(back.received[0]!.body.toString())).toMatchObject({
      event: 'payment.created',
      cobro_id: id,
    });
    const entries = await until('the forwarded retry', () => {
      const mine = journaled(journal).filter((e) => e.cobro_id === id);
      return mine.some((e) => e.outcome === 'forwarded') && mine;
    });
    expect(entries[0]!.outcome).toBe('unreachable');
    expect(entries[entries.length - 1]!.outcome).toBe('forwarded');
    expect(back.received).toHaveLength(1);
    // The sandbox records its attempt once the listener answers it, which is after the
    // app got the event and the journal line is on disk: wait for that record.
    const entregas = await until('the successful attempt in the sandbox', async () => {
      const list = (await sandbox.api('GET', '/_sandbox/entregas')).body.data as {
        status: number;
        ok: boolean;
      }[];
      return list.at(-1)?.ok === true && list;
    });
    expect(entregas[0]!.status).toBe(502);
  });

  it('a wrong secret: 401, never forwarded, the sandbox sees 401', async () => {
    const { sandbox, target, journal } = await setup({ listenSecret: 'whsec_not_the_sandbox_one' });
    await crear(sandbox);
    const entry = await until('a rejected entry', () =>
      journaled(journal).find((e) => e.outcome === 'rejected'),
    );
    expect(entry.verification).toMatchObject({ valid: false, reason: 'signature_mismatch' });
    const entregas = await until('the 401 delivery', async () => {
      const list = (await sandbox.api('GET', '/_sandbox/entregas')).body.data as {
        status: number;
      }[];
      return list.length > 0 && list;
    });
    expect(entregas[0]!.status).toBe(401);
    expect(target.received).toHaveLength(0);
  });

  it('200 events in a burst: all forwarded, none lost', async () => {
    const { sandbox, target, journal } = await setup();
    const ids = await Promise.all(
      Array.from({ length: 200 }, (_, i) => crear(sandbox, `${i + 1}.00`)),
    );
    // Delivery is at least once: on a loaded machine the sandbox may give up waiting for an
    // answer and send an event again, and the listener forwards what it is sent. What must
    // hold is that every event arrives, unchanged, and that a second copy is a whole copy.
    const distinct = () => new Set(target.received.map((r) => r.body.toString('utf8')));
    await until('200 distinct events at the app', () => distinct().size >= 200, 45_000);
    const got = [...distinct()].map((b) => JSON.parse(b).cobro_id as number).sort((a, b) => a - b);
    expect(got).toEqual([...ids].sort((a, b) => a - b));
    const forwarded = await until('200 journal entries', () => {
      const bodies = new Set(
        journaled(journal)
          .filter((e) => e.outcome === 'forwarded')
          .map((e) => e.body),
      );
      return bodies.size >= 200 && bodies;
    });
    expect(forwarded).toEqual(distinct());
  });

  it('trigger --sandbox drives the real change; the sandbox notifies through the listener', async () => {
    const { sandbox, target } = await setup();
    const r = await svc(['webhook', 'trigger', 'payment.partially_refunded', '--sandbox'], {
      env: sandbox.env,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/payment\.partially_refunded \(cobro \d+\) --> .* 200/);
    await target.waitFor(3);
    expect(target.received.map((x) => JSON.parse(x.body.toString()).event)).toEqual([
      'payment.created',
      'payment.approved',
      'payment.partially_refunded',
    ]);
    const last = JSON.parse(target.received[2]!.body.toString());
    expect(last).toMatchObject({ estado: 'DEVUELTA_PARCIALMENTE', monto: '1500.00' });

    // --cobro with a key: the sample body takes the real codigo and monto.
    const id = last.cobro_id as number;
    const codigo = (await sandbox.api('GET', `/v1/cobros/${id}`)).body.data.codigo;
    const real = await svc(
      [
        'webhook',
        'trigger',
        'payment.approved',
        '--cobro',
        String(id),
        '--forward-to',
        target.url,
        '--json',
      ],
      { env: sandbox.env },
    );
    expect(real.exitCode, real.stderr).toBe(0);
    expect(JSON.parse(real.stdout).body).toMatchObject({ cobro_id: id, codigo, monto: '1500.00' });
  });
});
