// The built CLI: webhook verify / sign / trigger / listen / eventos / replay, with
// their exit codes, --json shapes and messages; secrets never in any output.
// Runs the built CLI (npm run build first) where the process is the point: sign reading
// stdin, a listener ended by SIGINT; the other listeners run through main() in this process.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { expectNoStack, svcSpawned, tempDir } from '../helpers/cli.js';
// Cases run in-process through main() (svc); spawned() runs the built binary, once per behaviour.
import { svc } from '../helpers/inproc.js';
import { sampleBody } from '../../src/webhooks/events.js';
import { readJournal } from '../../src/webhooks/event-journal.js';
import { notificationHeaders, signatureHeader } from '../../src/webhooks/signature.js';
import { closedPort } from '../helpers/fixtures.js';
import {
  listenInProcess,
  post,
  startListen,
  startReceiver,
  type Listening,
  type Receiver,
  stopBoth,
} from '../helpers/receiver.js';

// A test secret, only ever used in these tests.
const SECRET = 'whsec_cli_test_secret_0123';
const env = { SVC_WEBHOOK_SECRET: SECRET };
const now = () => Math.floor(Date.now() / 1000);

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

function file(content: Buffer | string, name = 'body.json'): string {
  const path = join(tempDir('svc-wh-'), name);
  writeFileSync(path, content);
  return path;
}

function noSecret(r: { stdout: string; stderr: string }) {
  expect(r.stdout).not.toContain(SECRET);
  expect(r.stderr).not.toContain(SECRET);
  expectNoStack(r.stderr);
}

describe('webhook sign and verify', () => {
  const body = JSON.stringify(sampleBody('payment.approved', { cobro_id: 42, monto: '1500.00' }));

  it('sign prints the four headers; verify accepts them (stdin and --body)', async () => {
    const ts = String(now());
    const s = await svcSpawned(['webhook', 'sign', '--timestamp', ts], { env, input: body });
    expect(s.exitCode).toBe(0);
    const lines = s.stdout.trim().split('\n');
    expect(lines).toEqual([
      'Content-Type: application/json',
      'X-Svc-Event: payment.approved',
      `X-Svc-Timestamp: ${ts}`,
      `X-Svc-Signature: ${signatureHeader(SECRET, ts, body)}`,
    ]);
    noSecret(s);
    const sig = lines[3]!.split(': ')[1]!;
    const v1 = await svc(['webhook', 'verify', '--timestamp', ts, '--signature', sig], {
      env,
      input: body,
    });
    expect(v1.exitCode).toBe(0);
    expect(v1.stdout).toMatch(/firma válida.*payment\.approved.*cobro 42.*PAGADA.*1500\.00/);
    const v2 = await svc(
      [
        'webhook',
        'verify',
        '--timestamp',
        ts,
        '--signature',
        sig,
        '--body',
        file(body),
        '--secret-from-env',
      ],
      { env },
    );
    expect(v2.exitCode).toBe(0);
    noSecret(v2);
  });

  it('sign --json is one object with the four headers', async () => {
    const s = await svc(
      ['webhook', 'sign', '--json', '--timestamp', '1718000000', '--body', file(body)],
      { env },
    );
    expect(s.exitCode).toBe(0);
    expect(JSON.parse(s.stdout)).toEqual(
      notificationHeaders(SECRET, 'payment.approved', body, 1718000000),
    );
  });

  it('signatures agree with openssl for ASCII, UTF-8, empty and 1 MiB bodies', async () => {
    const bodies = [
      Buffer.from(body),
      Buffer.from('{"event":"payment.created","concepto":"Café ñandú 🎉"}'),
      Buffer.alloc(0),
      Buffer.alloc(1024 * 1024, 'z'),
    ];
    for (const b of bodies) {
      const ts = String(now());
      const hex = String(
        (
          await execa('openssl', ['dgst', '-sha256', '-hmac', SECRET, '-r'], {
            input: Buffer.concat([Buffer.from(`${ts}.`), b]),
          })
        ).stdout,
      ).split(' ')[0];
      const v = await svc(
        [
          'webhook',
          'verify',
          '--timestamp',
          ts,
          '--signature',
          `sha256=${hex}`,
          '--body',
          file(b),
          '--json',
        ],
        { env },
      );
      expect(v.exitCode, v.stderr).toBe(0);
      expect(JSON.parse(v.stdout)).toMatchObject({ valid: true, bytes: b.length });
    }
  });

  it('each invalid case: exit 7, its reason on stderr and in --json', async () => {
    const ts = String(now());
    const good = signatureHeader(SECRET, ts, body);
    const cases: [string[], string][] = [
      [['--timestamp', ts, '--signature', ''], 'missing_signature'],
      [['--timestamp', '', '--signature', good], 'missing_timestamp'],
      [['--timestamp', ts, '--signature', 'md5=abc'], 'malformed_signature'],
      [['--timestamp', 'ayer', '--signature', good], 'timestamp_not_integer'],
      [
        [
          '--timestamp',
          String(Number(ts) - 1000),
          '--signature',
          signatureHeader(SECRET, Number(ts) - 1000, body),
        ],
        'timestamp_too_old',
      ],
      [
        [
          '--timestamp',
          String(Number(ts) + 1000),
          '--signature',
          signatureHeader(SECRET, Number(ts) + 1000, body),
        ],
        'timestamp_in_future',
      ],
      [['--timestamp', ts, '--signature', signatureHeader('otro', ts, body)], 'signature_mismatch'],
    ];
    for (const [flags, reason] of cases) {
      const r = await svc(['webhook', 'verify', ...flags], { env, input: body });
      expect(r.exitCode, `${reason}: ${r.stderr}`).toBe(7);
      expect(r.stderr).toContain(reason);
      expect(r.stdout).toBe('');
      noSecret(r);
      const j = await svc(['webhook', 'verify', '--json', ...flags], { env, input: body });
      expect(j.exitCode).toBe(7);
      expect(JSON.parse(j.stdout)).toMatchObject({ valid: false, reason });
    }
    // --tolerance 0 accepts the old one.
    const oldTs = String(Number(ts) - 100_000);
    const old = await svc(
      [
        'webhook',
        'verify',
        '--tolerance',
        '0',
        '--timestamp',
        oldTs,
        '--signature',
        signatureHeader(SECRET, oldTs, body),
      ],
      { env, input: body },
    );
    expect(old.exitCode).toBe(0);
  });

  it('--request parses a raw dump (CRLF or LF, any header case); a non-UTF-8 body does not crash', async () => {
    const ts = String(now());
    const crlf = `POST /webhooks HTTP/1.1\r\nHost: mi-app.example\r\ncontent-type: application/json\r\nx-svc-event: payment.approved\r\nX-SVC-TIMESTAMP: ${ts}\r\nX-Svc-Signature: ${signatureHeader(SECRET, ts, body)}\r\n\r\n${body}`;
    const r1 = await svc(['webhook', 'verify', '--request', file(crlf, 'req.txt')], { env });
    expect(r1.exitCode, r1.stderr).toBe(0);
    expect(r1.stdout).toContain('cobro 42');
    const lf = `X-Svc-Timestamp: ${ts}\nX-Svc-Signature: ${signatureHeader(SECRET, ts, body)}\n\n${body}`;
    expect(
      (await svc(['webhook', 'verify', '--request', file(lf, 'req.txt')], { env })).exitCode,
    ).toBe(0);
    const bin = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x0a, 0x0d]);
    const dump = Buffer.concat([
      Buffer.from(
        `X-Svc-Timestamp: ${ts}\r\nX-Svc-Signature: ${signatureHeader(SECRET, ts, bin)}\r\n\r\n`,
      ),
      bin,
    ]);
    const r3 = await svc(['webhook', 'verify', '--request', file(dump, 'bin.txt'), '--json'], {
      env,
    });
    expect(r3.exitCode, r3.stderr).toBe(0);
    expect(JSON.parse(r3.stdout)).toMatchObject({ valid: true, event: null, bytes: 6 });
    const tampered = Buffer.concat([
      Buffer.from(
        `X-Svc-Timestamp: ${ts}\r\nX-Svc-Signature: ${signatureHeader(SECRET, ts, bin)}\r\n\r\n`,
      ),
      bin,
      Buffer.from([0x01]),
    ]);
    const r4 = await svc(['webhook', 'verify', '--request', file(tampered, 'bin2.txt')], { env });
    expect(r4.exitCode).toBe(7);
    expect(r4.stderr).toContain('signature_mismatch');
    expectNoStack(r4.stderr);
    const noHeader = await svc(
      [
        'webhook',
        'verify',
        '--request',
        file(`Content-Type: application/json\n\n${body}`, 'nh.txt'),
      ],
      { env },
    );
    expect(noHeader.exitCode).toBe(7);
    expect(noHeader.stderr).toContain('missing_signature');
  });

  it('no secret: one clear line saying how to set it, exit 2; the secret is never a flag', async () => {
    const r = await svc(['webhook', 'sign'], { input: body });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('SVC_WEBHOOK_SECRET');
    expectNoStack(r.stderr);
    const f = await svc(
      ['webhook', 'verify', '--secret-from-env', '--timestamp', '1', '--signature', 'sha256=00'],
      { input: body },
    );
    expect(f.exitCode).toBe(2);
    expect(f.stderr).toContain('SVC_WEBHOOK_SECRET');
    const flag = await svc(['webhook', 'verify', '--secret', 'x'], { env, input: body });
    expect(flag.exitCode).toBe(2);
  });

  it('usage errors are exit 2 with one line', async () => {
    for (const args of [
      ['webhook', 'verify'],
      [
        'webhook',
        'verify',
        '--timestamp',
        '1',
        '--signature',
        'sha256=00',
        '--body',
        '/nonexistent/file',
      ],
      ['webhook', 'verify', '--tolerance', '-1', '--timestamp', '1', '--signature', 'x'],
      ['webhook', 'sign', '--timestamp', 'hoy'],
      ['webhook', 'listen', '--events', 'payment.paid'],
      ['webhook', 'listen', '--forward-to', 'ftp://x'],
      ['webhook', 'listen', '--route', 'payment.approved'],
      ['webhook', 'listen', '-H', 'sin-dos-puntos'],
      ['webhook', 'trigger', 'payment.paid', '--forward-to', 'http://127.0.0.1:9/'],
      ['webhook', 'trigger', 'payment.approved', '--forward-to', 'ftp://127.0.0.1:9/'],
      [
        'webhook',
        'trigger',
        'payment.approved',
        '--forward-to',
        'http://127.0.0.1:9/',
        '--monto',
        '12,50',
      ],
      ['webhook', 'replay'],
    ]) {
      const r = await svc(args, { env, input: '' });
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expectNoStack(r.stderr);
      expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
    }
    const sign = await svc(['webhook', 'sign'], { env, input: 'not json' });
    expect(sign.exitCode).toBe(2);
    expect(sign.stderr).toContain('--event');
  });
});

describe('webhook trigger', () => {
  let target: Receiver;
  afterEach(async () => target?.close());

  it('POSTs a realistic signed body for each event; prints the status', async () => {
    target = await startReceiver();
    const r = await svc(
      [
        'webhook',
        'trigger',
        'payment.partially_paid',
        '--forward-to',
        target.url,
        '--monto',
        '2000',
        '--set',
        'transaccion_id=99',
        '--set',
        'extra:={"a":1}',
      ],
      { env },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('200');
    noSecret(r);
    const got = target.received[0]!;
    const b = JSON.parse(got.body.toString());
    expect(b).toMatchObject({
      event: 'payment.partially_paid',
      estado: 'PAGADA_PARCIALMENTE',
      monto: '2000.00',
      monto_cobrado: '1000.00',
      transaccion_id: 99,
      extra: { a: 1 },
    });
    expect(got.headers['x-svc-event']).toBe('payment.partially_paid');
    expect(got.headers['x-svc-signature']).toBe(
      signatureHeader(SECRET, String(got.headers['x-svc-timestamp']), got.body),
    );
  });

  it('a listener whose app is down: its reason shown as words, not as escaped JSON', async () => {
    const listen = await listenInProcess(
      ['--forward-to', `http://127.0.0.1:${await closedPort()}/`],
      env,
    );
    try {
      const r = await svc(['webhook', 'trigger', 'payment.approved', '--forward-to', listen.url], {
        env,
      });
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toContain('502');
      expect(r.stdout).toContain(
        '«no se pudo entregar a la app: conexión rechazada (¿la app está corriendo en ese puerto?)»',
      );
      expect(r.stdout).not.toContain('\\"');
      expect(r.stdout).not.toContain('timeout');
    } finally {
      await listen.stop();
    }
  });

  it('exit 1 when the target answers non-2xx, 6 when it is unreachable', async () => {
    target = await startReceiver();
    target.answer = () => ({ status: 422, body: 'evento desconocido' });
    const r = await svc(
      [
        'webhook',
        'trigger',
        'payment.rejected',
        '--forward-to',
        target.url,
        '--estado',
        'CANCELADO',
      ],
      { env },
    );
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain('422');
    expect(r.stdout).toContain('evento desconocido');
    const url = target.url;
    await target.close();
    const down = await svc(
      ['webhook', 'trigger', 'payment.rejected', '--forward-to', url, '--json'],
      { env },
    );
    expect(down.exitCode).toBe(6);
    expect(JSON.parse(down.stdout)).toMatchObject({ status: null, ok: false });
    expectNoStack(down.stderr);
  });
});

describe('webhook listen (process), eventos, replay', () => {
  let listen: Listening | undefined;
  let target: Receiver | undefined;
  afterEach(async () => {
    await stopBoth(listen, target);
    [listen, target] = [undefined, undefined];
  });

  it('prints the URL, the tunnel hint and Listo; one line per event; SIGINT waits for the forward in flight and exits 0', async () => {
    target = await startReceiver();
    const journal = join(tempDir('svc-j-'), 'j.jsonl');
    listen = await startListen(['--forward-to', target.url, '--journal', journal], env);
    expect(listen.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(listen.stderr()).toMatch(/cloudflared tunnel --url http:\/\/127\.0\.0\.1:\d+/);
    expect(listen.stderr()).toMatch(/ngrok http \d+/);
    // A running sandbox is pointed at the listener as it runs, not restarted (new keys without --data).
    expect(listen.stderr()).toContain(
      `(con el sandbox no hace falta: svc sandbox webhook ${listen.url}, sin reiniciarlo)`,
    );
    expect(listen.stderr()).not.toContain('--webhook-url');
    expect(listen.stderr()).toContain('127.0.0.1');
    expect(listen.stderr()).not.toContain(SECRET);

    const body = JSON.stringify(sampleBody('payment.approved', { cobro_id: 5, monto: '321.00' }));
    const r = await post(listen.url, body, notificationHeaders(SECRET, 'payment.approved', body));
    expect(r.status).toBe(200);
    await listen.waitLines(1);
    // The time as the service writes its dates: YYYY-MM-DD HH:MM:SS, in its zone.
    expect(listen.lines[0]).toMatch(
      /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} +payment\.approved\s+cobro 5\s+PAGADA\s+321\.00\s+--> 200/,
    );

    target.answer = () => ({ status: 200, delayMs: 800 });
    const pending = post(listen.url, body, notificationHeaders(SECRET, 'payment.approved', body));
    await target.waitFor(2);
    const stopped = listen.stop('SIGINT');
    expect((await pending).status).toBe(200);
    const { exitCode, stderr } = await stopped;
    expect(exitCode).toBe(0);
    expectNoStack(stderr);
    // The line of the event answered while stopping is printed before the exit (lines wait a little to go out together).
    expect(listen.lines).toHaveLength(2);
    listen = undefined;
    expect(readJournal(journal).entries.map((e) => e.outcome)).toEqual(['forwarded', 'forwarded']);
  });

  it('--json: one JSON object per event on stdout, nothing else', async () => {
    target = await startReceiver();
    listen = await listenInProcess(
      ['--forward-to', target.url, '--json', '--events', 'payment.approved'],
      env,
    );
    const a = JSON.stringify(sampleBody('payment.approved'));
    const b = JSON.stringify(sampleBody('payment.created'));
    await post(listen.url, a, notificationHeaders(SECRET, 'payment.approved', a));
    await post(listen.url, b, notificationHeaders(SECRET, 'payment.created', b));
    await post(listen.url, a, notificationHeaders('wrong', 'payment.approved', a));
    await listen.waitLines(3);
    const objs = listen.lines.map((l) => JSON.parse(l));
    expect(objs.map((o) => o.outcome)).toEqual(['forwarded', 'skipped', 'rejected']);
    expect(objs[0]).toMatchObject({
      event: 'payment.approved',
      status: 200,
      verification: { valid: true },
    });
    expect(target.received).toHaveLength(1);
  });

  it('eventos lists the journal; replay re-sends with the original headers, or re-signed with --resign', async () => {
    target = await startReceiver();
    const journal = join(tempDir('svc-j-'), 'j.jsonl');
    listen = await listenInProcess(['--forward-to', target.url, '--journal', journal], env);
    for (const e of ['payment.created', 'payment.approved'] as const) {
      const body = JSON.stringify(sampleBody(e, { cobro_id: 77 }));
      await post(listen.url, body, notificationHeaders(SECRET, e, body, now() - 10));
    }
    await listen.waitLines(2);
    await listen.stop('SIGINT');
    listen = undefined;

    const list = await svc(['webhook', 'eventos', '--journal', journal]);
    expect(list.exitCode).toBe(0);
    const rows = list.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    // Newest first, as every list; piped, --csv's fields (event 5th, verification.valid 9th).
    expect(rows.map((r) => r[4])).toEqual(['payment.approved', 'payment.created']);
    expect(rows[0]![8]).toBe('true');
    const json = JSON.parse(
      (await svc(['webhook', 'eventos', '--journal', journal, '--json'])).stdout,
    );
    expect(json).toHaveLength(2);

    const second = target.received[1]!;
    const replay = await svc(['webhook', 'replay', json[0].id.slice(0, 10), '--journal', journal], {
      env,
    });
    expect(replay.exitCode, replay.stderr).toBe(0);
    const again = target.received[2]!;
    expect(again.body.equals(second.body)).toBe(true);
    expect(again.headers['x-svc-signature']).toBe(second.headers['x-svc-signature']);
    expect(again.headers['x-svc-timestamp']).toBe(second.headers['x-svc-timestamp']);

    const resigned = await svc(
      [
        'webhook',
        'replay',
        '--last',
        '1',
        '--resign',
        '--journal',
        journal,
        '--forward-to',
        target.url,
      ],
      { env },
    );
    expect(resigned.exitCode).toBe(0);
    const fresh = target.received[3]!;
    expect(fresh.body.equals(second.body)).toBe(true);
    expect(fresh.headers['x-svc-signature']).toBe(
      signatureHeader(SECRET, String(fresh.headers['x-svc-timestamp']), fresh.body),
    );
    expect(Number(fresh.headers['x-svc-timestamp'])).toBeGreaterThan(
      Number(second.headers['x-svc-timestamp']),
    );

    const all = await svc(['webhook', 'replay', '--all', '--journal', journal], { env });
    expect(all.exitCode).toBe(0);
    expect(target.received).toHaveLength(6); // replays are journaled but not replayed again

    const after = readJournal(journal).entries;
    expect(after.filter((e) => e.source === 'replay')).toHaveLength(4);
    const missing = await svc(['webhook', 'replay', 'evt_nope', '--journal', journal], { env });
    expect(missing.exitCode).toBe(5);

    target.answer = () => ({ status: 500, body: 'caída' });
    const failing = await svc(['webhook', 'replay', json[0].id, '--journal', journal], { env });
    expect(failing.exitCode).toBe(1);
  });

  it('a port in use is one clear line', async () => {
    target = await startReceiver();
    const r = await svc(['webhook', 'listen', '--port', String(target.port)], { env });
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain('en uso');
    expectNoStack(r.stderr);
  });
});
