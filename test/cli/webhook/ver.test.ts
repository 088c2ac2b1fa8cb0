// svc webhook ver: one notification whole from the journal the real listener wrote:
// headers, body, signature, and each delivery to the app with the app's answer
// (headers without cookies, the body), the original and a replay.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleBody } from '../../../src/webhooks/events.js';
import { keptResponseHeaders } from '../../../src/webhooks/forwarder.js';
import { readJournal } from '../../../src/webhooks/event-journal.js';
import { startListener, type Listener } from '../../../src/webhooks/listen.js';
import { notificationHeaders } from '../../../src/webhooks/signature.js';
import { svcSpawned, tempDir } from '../../helpers/cli.js';
import { svc } from '../../helpers/inproc.js';
import { startReceiver, type Receiver } from '../../helpers/receiver.js';
import { hasScript, svcTty, NO_SCRIPT } from '../../helpers/tty.js';
import { displayWidth } from '../../../src/text.js';
import { skipBecause } from '../../helpers/skips.js';

const SECRET = 'whsec_ver0123456789abcdefgh';
let app: Receiver;
let listener: Listener;
let journal: string;
let id: string;
const env = () => ({ SVC_WEBHOOK_SECRET: SECRET, SVC_DATA_DIR: join(journal, '..') });

beforeAll(async () => {
  app = await startReceiver();
  journal = join(tempDir('svc-ver-'), 'webhooks.jsonl');
  listener = await startListener({ secret: SECRET, port: 0, journal, forwardTo: app.url });
  app.answer = () => ({
    status: 422,
    body: JSON.stringify({ error: 'pedido 1042 no existe en la app' }),
  });
  const body = JSON.stringify(sampleBody('payment.approved', { cobro_id: 77 }));
  const r = await fetch(listener.url, {
    method: 'POST',
    headers: notificationHeaders(SECRET, 'payment.approved', body),
    body,
  });
  expect(r.status).toBe(422);
  id = readJournal(journal).entries.at(-1)!.id;
});
afterAll(async () => {
  await listener?.close();
  await app?.close();
});

describe('svc webhook ver', () => {
  it('shows the notification and the app’s answer body', async () => {
    const r = await svcSpawned(['webhook', 'ver', id.slice(0, 10)], { env: env() });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^firma\s+válida$/m);
    expect(r.stdout).toContain('x-svc-event: payment.approved');
    expect(r.stdout).toContain('"cobro_id": 77');
    expect(r.stdout).toMatch(/listen\s+→ http:\/\/127\.0\.0\.1:\d+\/?\S*\s+422/);
    expect(r.stdout).toContain('"error": "pedido 1042 no existe en la app"');
  });

  it.skipIf(skipBecause(import.meta.url, !hasScript() && NO_SCRIPT))(
    'at 60 columns the delivery line goes on under its time, broken between its parts',
    async () => {
      const r = await svcTty(['webhook', 'ver', id], env(), [], 30_000, { cols: 60, rows: 80 });
      expect(r.exitCode, r.screen).toBe(0);
      const lines = r.screen.split('\n');
      const at = lines.findIndex((l) => l.startsWith('entregas a tu app'));
      const delivery = lines.slice(
        at + 1,
        lines.findIndex((l, i) => i > at && /^ {6}\S+: /.test(l)),
      );
      expect(delivery.length).toBeGreaterThan(1);
      for (const line of delivery) expect(displayWidth(line), line).toBeLessThanOrEqual(60);
      expect(delivery.map((l) => l.trim()).join(' ')).toMatch(
        /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +listen +→ http:\/\/127\.0\.0\.1:\d+\/?\S* +422 +[\d.]+ ms$/,
      );
    },
  );

  it('--json: the entry and every attempt, a replay included, with the answer’s headers', async () => {
    app.answer = () => ({ status: 200, body: 'ok' });
    expect((await svc(['webhook', 'replay', id], { env: env() })).exitCode).toBe(0);
    const r = await svc(['webhook', 'ver', id, '--json'], { env: env() });
    const v = JSON.parse(r.stdout);
    expect(v.id).toBe(id);
    expect(v.intentos.map((a: { source: string; status: number }) => [a.source, a.status])).toEqual(
      [
        ['listen', 422],
        ['replay', 200],
      ],
    );
    expect(v.intentos[0].respuesta).toMatchObject({
      body: '{"error":"pedido 1042 no existe en la app"}',
      body_encoding: 'utf8',
    });
    expect(Object.keys(v.intentos[0].respuesta.headers)).toContain('content-type');
    expect(v.intentos[1].respuesta.body).toBe('ok');
  });

  it("the journal keeps an answer's headers but never a cookie or a credential", () => {
    expect(
      keptResponseHeaders({
        'Content-Type': 'application/json',
        'Set-Cookie': ['s=1', 't=2'],
        authorization: 'Bearer x',
        'X-Request-Id': 'r-1',
      }),
    ).toEqual({
      'content-type': 'application/json',
      'x-request-id': 'r-1',
    });
  });

  it('an unknown id: exit 5', async () => {
    const r = await svc(['webhook', 'ver', 'evt_nada'], { env: env() });
    expect(r.exitCode).toBe(5);
  });
});
