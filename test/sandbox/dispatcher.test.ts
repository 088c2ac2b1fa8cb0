// The notification sender on its own: an app that never answers is given up on after
// the attempt timeout (10 s in the sandbox; 200 ms here) and retried on the schedule;
// every outcome is settled exactly once.
import { afterEach, describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src/sandbox/dispatcher.js';
import type { StoredEvent } from '../../src/sandbox/store.js';
import { createClock } from '../../src/sandbox/time.js';
import { verify } from '../../src/webhooks/signature.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { eventually } from './helpers.js';

const SECRET = 'whsec_dispatcher_test';
let app: Receiver | undefined;
let dispatcher: Dispatcher | undefined;
afterEach(async () => {
  dispatcher?.close();
  await app?.close();
});

function event(n: number, cobroId: number): StoredEvent {
  return {
    seq: n,
    merchant: 1,
    at: Date.now(),
    body: {
      event: 'payment.created',
      cobro_id: cobroId,
      codigo: 'ABC',
      estado: 'PENDIENTE',
      monto: '1.00',
    } as StoredEvent['body'],
  };
}

describe('dispatcher', () => {
  it('an attempt with no answer within the timeout fails as such and is retried; the retry delivers', async () => {
    app = await startReceiver({ script: [0] }); // the first request is never answered
    const settled: number[] = [];
    const d = (dispatcher = new Dispatcher({
      clock: createClock('UTC'),
      secret: SECRET,
      urlFor: () => app!.url,
      retrySchedule: [50],
      timeoutMs: 2_000,
      onSettled: (n) => settled.push(n),
    }));
    d.emit([event(7, 1)]);
    const [first, second] = await app.waitFor(2);
    expect(second!.text).toBe(first!.text);
    for (const r of [first!, second!]) {
      expect(
        verify({
          secret: SECRET,
          timestamp: String(r.headers['x-svc-timestamp']),
          signature: String(r.headers['x-svc-signature']),
          body: r.body,
        }).ok,
      ).toBe(true);
    }
    const attempts = await eventually(() =>
      d.listEntregas(1).length === 2 ? d.listEntregas(1) : undefined,
    );
    expect(attempts.map((a) => [a.intento, a.ok, a.status, a.error, a.proximo_intento_ms])).toEqual(
      [
        [1, false, null, 'sin respuesta en 2 s', 50],
        [2, true, 200, null, null],
      ],
    );
    expect(settled).toEqual([7]);
  });

  it('given up after the last attempt, settled once; events of one request keep their order', async () => {
    app = await startReceiver({ script: [500, 500] });
    const settled: number[] = [];
    const d = (dispatcher = new Dispatcher({
      clock: createClock('UTC'),
      secret: SECRET,
      urlFor: () => app!.url,
      retrySchedule: [20],
      timeoutMs: 2_000,
      onSettled: (n) => settled.push(n),
    }));
    d.emit([
      event(1, 5),
      {
        ...event(2, 5),
        body: { ...event(2, 5).body, event: 'payment.approved' } as StoredEvent['body'],
      },
    ]);
    const got = await app.waitFor(3);
    expect(got.map((r) => JSON.parse(r.text).event)).toEqual([
      'payment.created',
      'payment.created',
      'payment.approved',
    ]);
    await d.idle();
    expect(settled).toEqual([1, 2]);
    expect(d.listEntregas(1).map((a) => [a.intento, a.status, a.proximo_intento_ms])).toEqual([
      [1, 500, 20],
      [2, 500, null],
      [1, 200, null],
    ]);
  });

  it('an event with nowhere to go is settled at once, never sent', async () => {
    const settled: number[] = [];
    dispatcher = new Dispatcher({
      clock: createClock('UTC'),
      secret: SECRET,
      urlFor: () => null,
      onSettled: (n) => settled.push(n),
    });
    dispatcher.emit([event(3, 9)]);
    await dispatcher.idle();
    expect(settled).toEqual([3]);
    expect(dispatcher.listEntregas(1)).toEqual([]);
  });
});
