// Issue #29 point 4: a --forward-to with a user:password and a token in its query.
// The listener (the built CLI, spawned once) forwards with them, and nothing else
// shows them: its status page (GET /, no authentication, reachable through a
// tunnel), the journal's `target`, `webhook ver`, `eventos --json/--csv`, replay's
// line. A replay of such an entry asks for --forward-to instead of sending to the
// masked address.
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMaskedTarget, maskTarget } from '../../src/api/address.js';
import { sampleBody } from '../../src/webhooks/events.js';
import { notificationHeaders } from '../../src/webhooks/signature.js';
import { tempDir } from '../helpers/cli.js';
import { svc } from '../helpers/inproc.js';
import {
  post,
  startListen,
  startReceiver,
  stopBoth,
  type ListenProc,
  type Receiver,
} from '../helpers/receiver.js';

const SECRET = 'whsec_target_credentials_01';
const PATH_TOKEN = 'a1B2c3D4e5F6g7H8i9J0';
const HIDDEN = ['hunter2', 'bob:', 'token=T', 'T&', PATH_TOKEN];

function get(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    request(url, { agent: false }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += String(c)));
      res.on('end', () => resolve(text));
    })
      .on('error', reject)
      .end();
  });
}

function expectHidden(text: string, what: string): void {
  for (const secret of HIDDEN)
    expect(text.includes(secret), `${what} shows ${secret}:\n${text}`).toBe(false);
}

describe('maskTarget', () => {
  it.each([
    ['http://bob:hunter2@127.0.0.1:3000/h?token=T', 'http://***@127.0.0.1:3000/h?token=***'],
    ['http://127.0.0.1:3000/h', 'http://127.0.0.1:3000/h'],
    ['https://app.example/h?a=1&b=&c#x?y=2', 'https://app.example/h?a=***&b=&***#x?y=2'],
    ['http://u@h/p?', 'http://***@h/p?'],
    // A token in the path or the fragment, as chat and CI webhooks carry it.
    [
      'https://hooks.example/services/T0123/B0456/a1B2c3D4e5F6g7H8i9J0',
      'https://hooks.example/services/T0123/B0456/***',
    ],
    ['http://127.0.0.1:3000/hooks/9f8e7d6c5b4a3f2e1d0c/in', 'http://127.0.0.1:3000/hooks/***/in'],
    ['http://h/h#k=0123456789abcdefXYZ', 'http://h/h#***'],
    // Words, short ids and dates stay: only long mixes of letters and digits are masked.
    ['http://h/webhooks/pedidos-2026/v1', 'http://h/webhooks/pedidos-2026/v1'],
    ['http://h/notificaciones/recibir', 'http://h/notificaciones/recibir'],
  ])('%s → %s', (url, shown) => {
    expect(maskTarget(url)).toBe(shown);
    expect(isMaskedTarget(shown)).toBe(shown !== url);
  });
});

describe('a target with credentials', () => {
  let app: Receiver;
  let listen: ListenProc;
  let journal: string;
  let full: string;
  const env = () => ({ SVC_WEBHOOK_SECRET: SECRET });

  beforeAll(async () => {
    app = await startReceiver();
    full = `http://bob:hunter2@127.0.0.1:${app.port}/h/${PATH_TOKEN}?token=T&x=1`;
    journal = join(tempDir('svc-cred-'), 'webhooks.jsonl');
    listen = await startListen(['--forward-to', full, '--journal', journal], env());
    const body = JSON.stringify(sampleBody('payment.approved'));
    const r = await post(
      listen.url,
      body,
      notificationHeaders(SECRET, 'payment.approved', Buffer.from(body)),
    );
    expect(r.status).toBe(200);
    await listen.waitLines(1);
  });
  afterAll(async () => {
    await stopBoth(listen, app);
  });

  it('reach the app, and only the app', async () => {
    expect(app.received[0]!.url).toBe(`/h/${PATH_TOKEN}?token=T&x=1`);
    expect(app.received[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from('bob:hunter2').toString('base64')}`,
    );
    expectHidden(listen.stderr() + listen.lines.join('\n'), 'the listener');
  });

  it("the listener's status page shows the target masked", async () => {
    const status = JSON.parse(await get(listen.url)) as { forward_to: string };
    expect(status.forward_to).toBe(`http://***@127.0.0.1:${app.port}/h/***?token=***&x=***`);
  });

  it('the journal, webhook ver, eventos --json and --csv keep and show it masked', async () => {
    const text = readFileSync(journal, 'utf8');
    expectHidden(text, 'the journal');
    expect(text).toContain('"target":"http://***@127.0.0.1:');
    const id = (JSON.parse(text.split('\n')[0]!) as { id: string }).id;
    for (const argv of [
      ['webhook', 'ver', id],
      ['webhook', 'ver', id, '--json'],
      ['webhook', 'eventos', '--json'],
      ['webhook', 'eventos', '--csv'],
      ['webhook', 'eventos'],
    ]) {
      const r = await svc([...argv, '--journal', journal]);
      expect(r.exitCode, r.stderr).toBe(0);
      expectHidden(r.stdout + r.stderr, argv.join(' '));
    }
  });

  it('an older journal that kept the target whole is shown masked too', async () => {
    const old = join(tempDir('svc-cred-'), 'webhooks.jsonl');
    const line = JSON.parse(readFileSync(journal, 'utf8').split('\n')[0]!) as Record<
      string,
      unknown
    >;
    writeFileSync(old, `${JSON.stringify({ ...line, target: full })}\n`);
    for (const argv of [
      ['webhook', 'ver', String(line.id), '--json'],
      ['webhook', 'eventos', '--json'],
      ['webhook', 'eventos', '--csv'],
    ]) {
      const r = await svc([...argv, '--journal', old]);
      expect(r.exitCode, r.stderr).toBe(0);
      expectHidden(r.stdout, argv.join(' '));
    }
  });

  it('a replay asks for --forward-to; given it, sends with the credentials and shows them masked', async () => {
    const id = (JSON.parse(readFileSync(journal, 'utf8').split('\n')[0]!) as { id: string }).id;
    const refused = await svc(['webhook', 'replay', id, '--journal', journal]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(
      /guardada sin sus credenciales: indicá la dirección completa con --forward-to/,
    );
    expect(refused.stderr).toContain(`http://***@127.0.0.1:${app.port}/h/***?token=***&x=***`);
    expect(app.received).toHaveLength(1);

    for (const json of [[], ['--json']]) {
      const r = await svc([
        'webhook',
        'replay',
        id,
        '--forward-to',
        full,
        '--journal',
        journal,
        ...json,
      ]);
      expect(r.exitCode, r.stderr).toBe(0);
      expectHidden(r.stdout + r.stderr, `replay ${json.join(' ')}`);
    }
    expect(app.received).toHaveLength(3);
    expect(app.received[2]!.headers.authorization).toBe(
      `Basic ${Buffer.from('bob:hunter2').toString('base64')}`,
    );
    expectHidden(readFileSync(journal, 'utf8'), 'the journal after replays');
  });
});
