// Signing and verifying: test vectors against an independent implementation
// (openssl), every failure reason, property tests, the raw request parser and the
// body summary (which must never throw on what the network sends).
import { execa } from 'execa';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EVENTOS } from '../../src/api/enums.js';
import { sampleBody, summarize, ESTADO_OF } from '../../src/webhooks/events.js';
import { parseRawRequest, RawRequestError } from '../../src/webhooks/rawrequest.js';
import {
  notificationHeaders,
  sign,
  signatureHeader,
  verify,
} from '../../src/webhooks/signature.js';

// A test secret, only ever used here.
const SECRET = 'whsec_test_vector_secret';
const TS = '1718000000';
const NOW = 1718000000;

async function openssl(secret: string, timestamp: string, body: Buffer): Promise<string> {
  const r = await execa('openssl', ['dgst', '-sha256', '-hmac', secret, '-r'], {
    input: Buffer.concat([Buffer.from(`${timestamp}.`), body]),
    stripFinalNewline: true,
  });
  return String(r.stdout).split(' ')[0]!;
}

describe('test vectors agree with openssl dgst -sha256 -hmac', () => {
  const bodies: [string, Buffer][] = [
    ['ASCII', Buffer.from(JSON.stringify(sampleBody('payment.approved')))],
    [
      'UTF-8',
      Buffer.from('{"event":"payment.created","concepto":"Café con ñandú — 日本 🎉"}', 'utf8'),
    ],
    ['empty', Buffer.alloc(0)],
    ['1 MiB', Buffer.alloc(1024 * 1024, 'a')],
    ['binary (not UTF-8)', Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28])],
  ];
  for (const [name, body] of bodies) {
    it(name, async () => {
      const expected = await openssl(SECRET, TS, body);
      expect(expected).toMatch(/^[0-9a-f]{64}$/);
      expect(sign(SECRET, TS, body)).toBe(expected);
      expect(signatureHeader(SECRET, TS, body)).toBe(`sha256=${expected}`);
      expect(
        verify({ secret: SECRET, timestamp: TS, signature: `sha256=${expected}`, body, now: NOW }),
      ).toEqual({ ok: true });
      if (
        body.toString('utf8') === new TextDecoder().decode(body) &&
        Buffer.from(body.toString('utf8')).equals(body)
      ) {
        expect(sign(SECRET, TS, body.toString('utf8'))).toBe(expected);
      }
    });
  }
});

describe('each invalid case has its own reason', () => {
  // A fixed vector (openssl dgst -sha256 -hmac over `1718000000.<body>`), so that
  // building the cases never calls the code under test.
  const body = Buffer.from('{"event":"payment.approved","cobro_id":1}');
  const good = 'sha256=458bb14a9541598236456867a1b01a46109947e99072a3a093d2d01a646a7cc3';
  const cases: [string, Parameters<typeof verify>[0], string][] = [
    [
      'missing signature',
      { secret: SECRET, timestamp: TS, signature: undefined, body, now: NOW },
      'missing_signature',
    ],
    [
      'empty signature',
      { secret: SECRET, timestamp: TS, signature: '', body, now: NOW },
      'missing_signature',
    ],
    [
      'null signature',
      { secret: SECRET, timestamp: TS, signature: null, body, now: NOW },
      'missing_signature',
    ],
    [
      'missing timestamp',
      { secret: SECRET, timestamp: undefined, signature: good, body, now: NOW },
      'missing_timestamp',
    ],
    [
      'null timestamp',
      { secret: SECRET, timestamp: null, signature: good, body, now: NOW },
      'missing_timestamp',
    ],
    [
      'empty timestamp',
      { secret: SECRET, timestamp: '', signature: good, body, now: NOW },
      'missing_timestamp',
    ],
    [
      'hex with something after it',
      { secret: SECRET, timestamp: TS, signature: `${good}00`, body, now: NOW },
      'malformed_signature',
    ],
    [
      'hex with something before it',
      {
        secret: SECRET,
        timestamp: TS,
        signature: good.replace('sha256=', 'sha256=zz'),
        body,
        now: NOW,
      },
      'malformed_signature',
    ],
    [
      'no sha256= prefix',
      { secret: SECRET, timestamp: TS, signature: good.slice(7), body, now: NOW },
      'malformed_signature',
    ],
    [
      'uppercase hex',
      {
        secret: SECRET,
        timestamp: TS,
        signature: good.toUpperCase().replace('SHA256=', 'sha256='),
        body,
        now: NOW,
      },
      'malformed_signature',
    ],
    [
      'short hex',
      { secret: SECRET, timestamp: TS, signature: good.slice(0, 40), body, now: NOW },
      'malformed_signature',
    ],
    [
      'timestamp not integer',
      { secret: SECRET, timestamp: '17e8', signature: good, body, now: NOW },
      'timestamp_not_integer',
    ],
    [
      'timestamp negative',
      { secret: SECRET, timestamp: '-5', signature: good, body, now: NOW },
      'timestamp_not_integer',
    ],
    [
      'too old',
      { secret: SECRET, timestamp: TS, signature: good, body, now: NOW + 301 },
      'timestamp_too_old',
    ],
    [
      'in the future',
      { secret: SECRET, timestamp: TS, signature: good, body, now: NOW - 301 },
      'timestamp_in_future',
    ],
    [
      'body changed',
      {
        secret: SECRET,
        timestamp: TS,
        signature: good,
        body: Buffer.concat([body, Buffer.from(' ')]),
        now: NOW,
      },
      'signature_mismatch',
    ],
    [
      'other secret',
      { secret: 'other', timestamp: TS, signature: good, body, now: NOW },
      'signature_mismatch',
    ],
    [
      'timestamp changed',
      { secret: SECRET, timestamp: String(NOW + 1), signature: good, body, now: NOW },
      'signature_mismatch',
    ],
  ];
  for (const [name, input, reason] of cases) {
    it(name, () => {
      const r = verify(input);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.reason).toBe(reason);
        expect(r.message.length).toBeGreaterThan(5);
      }
    });
  }
  it('the tolerance edge is inclusive both ways, and 0 turns it off', () => {
    expect(
      verify({ secret: SECRET, timestamp: TS, signature: good, body, now: NOW + 300 }).ok,
    ).toBe(true);
    expect(
      verify({ secret: SECRET, timestamp: TS, signature: good, body, now: NOW - 300 }).ok,
    ).toBe(true);
    expect(
      verify({
        secret: SECRET,
        timestamp: TS,
        signature: good,
        body,
        now: NOW + 10_000_000,
        toleranceSeconds: 0,
      }).ok,
    ).toBe(true);
  });
  it('the fixed vector verifies; headers are read trimmed, as a proxy may pad them', () => {
    expect(verify({ secret: SECRET, timestamp: TS, signature: good, body, now: NOW })).toEqual({
      ok: true,
    });
    expect(signatureHeader(SECRET, TS, body)).toBe(good);
    expect(
      verify({ secret: SECRET, timestamp: ` ${TS} `, signature: ` ${good}\t`, body, now: NOW }),
    ).toEqual({ ok: true });
  });
  it('the messages say how far off the timestamp is, and show a bad one printable and short', () => {
    expect(
      verify({ secret: SECRET, timestamp: TS, signature: good, body, now: NOW + 301 }),
    ).toMatchObject({ message: 'timestamp demasiado viejo: 301 s, la tolerancia es 300 s' });
    expect(
      verify({ secret: SECRET, timestamp: TS, signature: good, body, now: NOW - 301 }),
    ).toMatchObject({ message: 'timestamp 301 s en el futuro, la tolerancia es 300 s' });
    expect(
      verify({ secret: SECRET, timestamp: '12\u001b[2Jx', signature: good, body, now: NOW }),
    ).toMatchObject({ message: 'X-Svc-Timestamp no es un entero: "12?[2Jx"' });
    expect(
      verify({ secret: SECRET, timestamp: 'x'.repeat(40), signature: good, body, now: NOW }),
    ).toMatchObject({ message: `X-Svc-Timestamp no es un entero: "${'x'.repeat(40)}"` });
    expect(
      verify({ secret: SECRET, timestamp: 'x'.repeat(41), signature: good, body, now: NOW }),
    ).toMatchObject({ message: `X-Svc-Timestamp no es un entero: "${'x'.repeat(40)}…"` });
  });
  it('without `now`, the window is around the real clock (seconds, not milliseconds)', () => {
    const ts = Math.floor(Date.now() / 1000);
    expect(
      verify({
        secret: SECRET,
        timestamp: String(ts),
        signature: signatureHeader(SECRET, ts, body),
        body,
      }),
    ).toEqual({ ok: true });
    expect(
      verify({
        secret: SECRET,
        timestamp: String(ts - 3600),
        signature: signatureHeader(SECRET, ts - 3600, body),
        body,
      }),
    ).toMatchObject({ reason: 'timestamp_too_old' });
    const headers = notificationHeaders(SECRET, 'payment.approved', body);
    expect(Object.keys(headers)).toEqual([
      'Content-Type',
      'X-Svc-Event',
      'X-Svc-Timestamp',
      'X-Svc-Signature',
    ]);
    expect(headers['Content-Type']).toBe('application/json');
    expect(headers['X-Svc-Event']).toBe('payment.approved');
    expect(Math.abs(Number(headers['X-Svc-Timestamp']) - ts)).toBeLessThanOrEqual(60);
    expect(headers['X-Svc-Signature']).toBe(
      signatureHeader(SECRET, headers['X-Svc-Timestamp']!, body),
    );
  });
  it('the raw bytes are verified, not a re-serialised JSON', () => {
    const pretty = Buffer.from(JSON.stringify(JSON.parse(body.toString()), null, 2));
    expect(
      verify({ secret: SECRET, timestamp: TS, signature: good, body: pretty, now: NOW }).ok,
    ).toBe(false);
  });
});

describe('properties', () => {
  it('verify never throws, whatever arrives', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.option(fc.string(), { nil: undefined }),
        fc.option(
          fc.oneof(
            fc.string(),
            fc.stringMatching(/^[0-9a-fA-F]{0,70}$/).map((h) => `sha256=${h}`),
          ),
          { nil: undefined },
        ),
        fc.uint8Array({ maxLength: 512 }),
        fc.integer({ min: 0, max: 5_000_000_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        (secret, timestamp, signature, body, now, tolerance) => {
          const r = verify({
            secret,
            timestamp,
            signature,
            body,
            now,
            toleranceSeconds: tolerance,
          });
          expect(typeof r.ok).toBe('boolean');
        },
      ),
      { numRuns: 500 },
    );
  });

  it('accepts exactly what sign produced, and nothing with one byte changed', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.integer({ min: 0, max: 99_999_999_999 }),
        fc.uint8Array({ maxLength: 2048 }),
        fc.nat(),
        (secret, ts, body, flip) => {
          const sig = signatureHeader(secret, ts, body);
          expect(verify({ secret, timestamp: String(ts), signature: sig, body, now: ts })).toEqual({
            ok: true,
          });
          const headers = notificationHeaders(secret, 'payment.approved', body, ts);
          expect(
            verify({
              secret,
              timestamp: headers['X-Svc-Timestamp'],
              signature: headers['X-Svc-Signature'],
              body,
              now: ts,
            }).ok,
          ).toBe(true);
          if (body.length) {
            const changed = Uint8Array.from(body);
            changed[flip % body.length] = changed[flip % body.length]! ^ 0x01;
            const r = verify({
              secret,
              timestamp: String(ts),
              signature: sig,
              body: changed,
              now: ts,
            });
            expect(r.ok === false && r.reason).toBe('signature_mismatch');
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('summarize never throws and parseRawRequest only throws its own error', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        summarize(bytes);
        try {
          parseRawRequest(bytes);
        } catch (err) {
          expect(err).toBeInstanceOf(RawRequestError);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('parseRawRequest', () => {
  const body = '{"event":"payment.approved","cobro_id":42}';
  const head = [
    'POST /webhooks HTTP/1.1',
    'Host: example.com',
    'content-type: application/json',
    'X-SVC-Timestamp: 1718000000',
    'x-svc-signature: sha256=ab',
  ];

  it('CRLF with a request line', () => {
    const r = parseRawRequest(Buffer.from(`${head.join('\r\n')}\r\n\r\n${body}`));
    expect(r.method).toBe('POST');
    expect(r.target).toBe('/webhooks');
    expect(r.headers['x-svc-timestamp']).toBe('1718000000');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.body.toString()).toBe(body);
  });

  it('LF without a request line; body bytes kept exactly, CRLF inside included', () => {
    const raw = `${head.slice(1).join('\n')}\n\n${body}\r\n  \n`;
    const r = parseRawRequest(Buffer.from(raw));
    expect(r.method).toBeNull();
    expect(r.headers['x-svc-signature']).toBe('sha256=ab');
    expect(r.body.toString()).toBe(`${body}\r\n  \n`);
  });

  it('Content-Length trims what an editor appended, and warns', () => {
    const r = parseRawRequest(Buffer.from(`Content-Length: ${body.length}\n\n${body}\n`));
    expect(r.body.toString()).toBe(body);
    expect(r.warnings.length).toBe(1);
  });

  it('a non-UTF-8 body is kept byte for byte', () => {
    const bin = Buffer.from([0xff, 0x00, 0xfe, 0x0a, 0x0a, 0x80]);
    const r = parseRawRequest(Buffer.concat([Buffer.from('X-Svc-Timestamp: 1\r\n\r\n'), bin]));
    expect(r.body.equals(bin)).toBe(true);
  });

  it('chunked bodies are decoded', () => {
    const r = parseRawRequest(
      Buffer.from('Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n'),
    );
    expect(r.body.toString()).toBe('hello world');
  });

  it('a line that is not a header says so', () => {
    expect(() => parseRawRequest(Buffer.from('X-Svc-Timestamp: 1\n{"event":1}'))).toThrow(
      /línea en blanco/,
    );
    expect(() => parseRawRequest(Buffer.from(''))).toThrow(RawRequestError);
  });
});

describe('sample bodies', () => {
  it('one per event, with the estado of the interface and the field order of the service', () => {
    for (const e of EVENTOS) {
      const b = sampleBody(e, { monto: '1000.01' });
      expect(Object.keys(b)).toEqual([
        'event',
        'cobro_id',
        'codigo',
        'estado',
        'monto',
        'monto_cobrado',
        'transaccion_id',
      ]);
      expect(b.estado).toBe(ESTADO_OF[e]);
      expect(b.monto).toBe('1000.01');
      expect(typeof b.monto_cobrado).toBe('string');
    }
    expect(sampleBody('payment.partially_paid', { monto: '1000.01' }).monto_cobrado).toBe('500.01');
    expect(sampleBody('payment.created').transaccion_id).toBeNull();
  });
});
