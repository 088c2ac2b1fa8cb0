// The sandbox's HTTP edges: text fields refuse C1 and bidi controls as they refuse C0
// (and the CLI's local check agrees), a blank referencia or URL is refused rather than
// nulled, trailing slashes are no route, HEAD answers as GET without a body, a body
// declared over 1 MiB is refused unread, and a client leaving mid-body is a cut, not a 500.
import { execa } from 'execa';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CONCEPTO, MAX_REFERENCIA, textProblem } from '../../src/cli/commands/cobro/crear.js';
import { badWith, text } from '../../src/sandbox/handlers/validate.js';
import { BIN, ROOT, expectNoStack, svcSpawned, tempDir } from '../helpers/cli.js';
import { parseAnswer, unfinishedPost } from '../helpers/raw-http.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
import { eventually } from './helpers.js';

let sb: InProcessSandbox;
const errors: unknown[] = [];
beforeAll(async () => {
  sb = await startSandbox({ onError: (err) => errors.push(err) });
});
afterAll(() => sb.close());

const port = () => Number(new URL(sb.baseUrl).port);

/** Writes raw bytes on a fresh connection; resolves with what came back once the server closes it (or after waitMs). */
function rawExchange(
  head: string,
  opts: { body?: Buffer; destroyAfterWrite?: boolean; waitMs?: number; port?: number } = {},
): Promise<{ text: string; closedByServer: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(opts.port ?? port(), '127.0.0.1');
    let text = '';
    let settled = false;
    const done = (closedByServer: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closedByServer });
    };
    const timer = setTimeout(() => done(false), opts.waitMs ?? 10_000);
    socket.on('data', (d) => (text += d.toString('latin1')));
    socket.on('end', () => done(true));
    socket.on('close', () => done(true));
    socket.on('error', (err) => (text ? done(true) : reject(err)));
    socket.on('connect', () => {
      socket.write(head);
      if (opts.body) socket.write(opts.body);
      if (opts.destroyAfterWrite) {
        // Give the server the headers and part of the body, then vanish.
        setTimeout(() => done(false), 100);
      }
    });
  });
}

const FORBIDDEN: [string, string][] = [
  ['NEL (C1)', '\u0085'],
  ['CSI (C1)', '\u009b'],
  ['APC (C1)', '\u009f'],
  ['PAD (C1)', '\u0080'],
  ['LRE', '\u202a'],
  ['RLE', '\u202b'],
  ['PDF', '\u202c'],
  ['LRO', '\u202d'],
  ['RLO', '\u202e'],
  ['LRI', '\u2066'],
  ['RLI', '\u2067'],
  ['FSI', '\u2068'],
  ['PDI', '\u2069'],
  ['ESC (C0)', '\u001b'],
];

describe('text fields refuse C0, C1 and bidi controls', () => {
  it.each(FORBIDDEN)(
    'POST /v1/cobros refuses %s in concepto, referencia, success_url, error_url',
    async (_name, ch) => {
      const fields: [string, string][] = [
        ['concepto', `Pedido ${ch}1042`],
        ['referencia', `ref${ch}77`],
        ['success_url', `https://tienda.example/ok${ch}`],
        ['error_url', `https://tienda.example/${ch}err`],
      ];
      for (const [field, value] of fields) {
        const r = await sb.api('POST', '/v1/cobros', {
          concepto: 'Pedido',
          monto: '10',
          [field]: value,
        });
        expect(r.status, `${field} ${JSON.stringify(value)}`).toBe(400);
        expect(r.body).toEqual({
          error: 'create_failed',
          message: `${field}: no puede tener caracteres de control (C0, C1 ni controles bidireccionales)`,
        });
      }
    },
  );

  it('POST /_sandbox/webhook refuses them in url', async () => {
    for (const [, ch] of FORBIDDEN) {
      const r = await sb.api('POST', '/_sandbox/webhook', { url: `https://hooks.example/${ch}x` });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({
        error: 'bad_request',
        message: expect.stringMatching(/^url: no puede tener caracteres de control/),
      });
    }
    expect((await sb.api('GET', '/_sandbox/webhook')).body.data.url).toBeNull();
  });

  it('POST /_sandbox/fallas refuses them in path, and header values Node could not send', async () => {
    for (const [, ch] of FORBIDDEN) {
      const r = await sb.api('POST', '/_sandbox/fallas', {
        path: `/v1/cobros${ch}`,
        action: 'cut',
      });
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/^path: no puede tener caracteres de control/);
    }
    for (const value of ['pesos €', 'a\u0085b', 'a\u202eb', 'a\u0000b', 'a\nb']) {
      const r = await sb.api('POST', '/_sandbox/fallas', {
        path: '/v1/cuenta',
        action: 'respond',
        headers: { 'X-Raro': value },
      });
      expect(r.status, JSON.stringify(value)).toBe(400);
      expect(r.body).toEqual({
        error: 'bad_request',
        message:
          'headers: "X-Raro" no es un header válido (un nombre de letras, dígitos y "-", un valor de ASCII imprimible)',
      });
    }
    expect((await sb.api('GET', '/_sandbox/fallas')).body.data).toEqual([]);
    // What is accepted is sent as is.
    expect(
      (
        await sb.api('POST', '/_sandbox/fallas', {
          path: '/v1/cuenta',
          action: 'respond',
          status: 503,
          headers: { 'Retry-After': '1' },
        })
      ).status,
    ).toBe(201);
    const r = await sb.api('GET', '/v1/cuenta');
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('1');
    expect(errors).toEqual([]);
  });

  it('takes other non-ASCII text as it is (accents, emoji, U+2028, LRM)', async () => {
    const concepto = 'Café ☕ 😀 línea\u2028dos \u200e';
    const c = await sb.cobro({ concepto, referencia: 'ñandú-1' });
    expect(c).toMatchObject({ concepto, referencia: 'ñandú-1' });
  });

  it('bytes that are not UTF-8, a charset other than UTF-8 and unpaired surrogates are refused with 400 naming the field; nothing stored (#29.6)', async () => {
    const post = (path: string, body: Buffer, type = 'application/json') =>
      fetch(sb.baseUrl + path, {
        method: 'POST',
        headers: { authorization: `Bearer ${sb.apiKey}`, 'content-type': type },
        body,
      }).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as { error: string; message: string },
      }));
    const cases: [string, Buffer, string, string][] = [
      // Latin-1 "café" in concepto; an overlong "/" in referencia; a CESU-8 surrogate in concepto; a byte cut from a 2-byte sequence.
      [
        '/v1/cobros',
        Buffer.concat([
          Buffer.from('{"concepto":"caf'),
          Buffer.from([0xe9]),
          Buffer.from('","monto":"1.00"}'),
        ]),
        'create_failed',
        'concepto: no es UTF-8 válido',
      ],
      [
        '/v1/cobros',
        Buffer.concat([
          Buffer.from('{"concepto":"ok \ufffd","monto":"1.00","referencia":"a'),
          Buffer.from([0xc0, 0xaf]),
          Buffer.from('"}'),
        ]),
        'create_failed',
        'referencia: no es UTF-8 válido',
      ],
      [
        '/v1/cobros',
        Buffer.concat([
          Buffer.from('{"concepto":"x'),
          Buffer.from([0xed, 0xa0, 0x80]),
          Buffer.from('","monto":"1.00"}'),
        ]),
        'create_failed',
        'concepto: no es UTF-8 válido',
      ],
      [
        '/v1/cobros',
        Buffer.concat([
          Buffer.from('{"monto":"1.00","concepto":"x'),
          Buffer.from([0xc3]),
          Buffer.from('"}'),
        ]),
        'create_failed',
        'concepto: no es UTF-8 válido',
      ],
      [
        '/v1/cobros',
        Buffer.from('{"concepto":"a\\ud800b","monto":"1.00"}'),
        'create_failed',
        'concepto: tiene un surrogate sin par',
      ],
      [
        '/v1/cobros',
        Buffer.from('{"concepto":"ok","monto":"1.00","referencia":"\\udc00"}'),
        'create_failed',
        'referencia: tiene un surrogate sin par',
      ],
      [
        '/v1/cobros',
        Buffer.from('{"concepto":"ok","monto":"1.00","success_url":"https://x/\\ud83d"}'),
        'create_failed',
        'success_url: tiene un surrogate sin par',
      ],
      [
        '/_sandbox/webhook',
        Buffer.from('{"url":"http://127.0.0.1/\\udfff"}'),
        'bad_request',
        'url: tiene un surrogate sin par',
      ],
    ];
    const before = ((await sb.api('GET', '/v1/cobros')).body.data as unknown[]).length;
    for (const [path, body, code, message] of cases) {
      const r = await post(path, body);
      expect(r.status, message).toBe(400);
      expect(r.body.error).toBe(code);
      expect(r.body.message.startsWith(message), r.body.message).toBe(true);
    }
    for (const type of [
      'application/json; charset=latin1',
      'application/json; charset="iso-8859-1"',
      'application/json;charset=utf-16',
    ]) {
      const r = await post(
        '/v1/cobros',
        Buffer.from('{"concepto":"caf\u00e9","monto":"1.00"}', 'latin1'),
        type,
      );
      expect(r.status, type).toBe(400);
      expect(r.body).toMatchObject({
        error: 'create_failed',
        message: expect.stringMatching(/^body: el charset debe ser utf-8, llegó "/),
      });
    }
    // UTF-8 declared (any spelling), a paired surrogate escape and U+FFFD itself are text.
    for (const type of [
      'application/json; charset=utf-8',
      'application/json; charset="UTF-8"',
      'application/json;charset=utf8',
    ]) {
      expect(
        (
          await post(
            '/v1/cobros',
            Buffer.from('{"concepto":"caf\u00e9 \\ud83d\\ude00 \ufffd","monto":"1.00"}'),
            type,
          )
        ).status,
        type,
      ).toBe(201);
    }
    // Only the three accepted ones were stored.
    const after = (await sb.api('GET', '/v1/cobros')).body.data as { concepto: string }[];
    expect(after.length - before).toBe(3);
    expect(after.slice(0, 3).map((c) => c.concepto)).toEqual(
      Array(3).fill('caf\u00e9 \ud83d\ude00 \ufffd'),
    );
  });

  it('the CLI refuses locally exactly what the sandbox refuses', () => {
    const samples = [
      ...FORBIDDEN.map(([, ch]) => `a${ch}b`),
      'a\tb',
      'a\nb',
      'a\u007fb',
      '',
      ' ',
      ' \t ',
      'Pedido 1042',
      'ñandú',
      '😀',
      'a\u2028b',
      'a\u200eb',
      'a\u00a0b',
      'x'.repeat(MAX_REFERENCIA),
      'x'.repeat(MAX_REFERENCIA + 1),
    ];
    for (const s of samples) {
      for (const [field, max] of [
        ['referencia', MAX_REFERENCIA],
        ['concepto', MAX_CONCEPTO],
      ] as const) {
        let sandboxRefuses = false;
        try {
          text(s, field, max, badWith('create_failed'));
        } catch {
          sandboxRefuses = true;
        }
        expect(textProblem(s, max) !== undefined, `${field} ${JSON.stringify(s)}`).toBe(
          sandboxRefuses,
        );
      }
    }
  });

  it('svc cobro crear refuses a bidi override locally: exit 2, nothing sent', async () => {
    const posts = async () =>
      (
        (await sb.api('GET', '/_sandbox/log')).body.data as { method: string; path: string }[]
      ).filter((e) => e.method === 'POST' && e.path === '/v1/cobros').length;
    const before = await posts();
    const env = { SVC_BASE_URL: sb.baseUrl, SVC_API_KEY: sb.apiKey };
    for (const flag of ['--concepto', '--referencia']) {
      const args = [
        'cobro',
        'crear',
        '--concepto',
        'Pedido',
        '--monto',
        '10',
        flag,
        'factura\u202egnp.exe',
      ];
      const r = await svcSpawned(args, { env });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(new RegExp(`${flag} tiene caracteres de control`));
      expectNoStack(r.stderr);
    }
    expect(await posts()).toBe(before);
  });
});

describe('blank values are refused, never turned into null', () => {
  it.each([
    ['referencia', ' ', /^referencia: no puede estar en blanco; omitilo o mandá null$/],
    ['referencia', '', /^referencia: no puede estar en blanco; omitilo o mandá null$/],
    ['referencia', '\t', /^referencia: no puede estar en blanco/],
    ['success_url', '', /^success_url: debe ser una URL https, llegó ""$/],
    ['error_url', '', /^error_url: debe ser una URL https, llegó ""$/],
    ['success_url', '  ', /^success_url: debe ser una URL https/],
  ])('%s %j: 400 create_failed', async (field, value, message) => {
    const r = await sb.api('POST', '/v1/cobros', {
      concepto: 'Pedido',
      monto: '10',
      [field]: value,
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('create_failed');
    expect(r.body.message).toMatch(message);
  });

  it('null or absent stays null', async () => {
    const c = await sb.cobro({ referencia: null, success_url: null });
    expect(c).toMatchObject({ referencia: null, success_url: null, error_url: null });
  });
});

describe('routes', () => {
  it('a trailing slash or an empty id segment is no route: 404 "endpoint does not exist"', async () => {
    for (const [m, p] of [
      ['GET', '/v1/cobros/'],
      ['GET', '/v1/transacciones/'],
      ['GET', '/v1/devoluciones/'],
      ['POST', '/v1/cobros//sync'],
      ['POST', '/v1/cobros//devoluciones'],
      ['POST', '/_sandbox/cobros//pagar'],
      ['GET', '/v1/cuenta/'],
      ['GET', '/pagar/'],
    ] as const) {
      const r = await sb.api(m, p, m === 'POST' ? {} : undefined);
      expect(r.status, `${m} ${p}`).toBe(404);
      expect(r.body, `${m} ${p}`).toEqual({
        error: 'not_found',
        message: 'no existe ese endpoint',
      });
    }
  });

  it('HEAD answers as GET (status, headers, Content-Length) without a body', async () => {
    const c = await sb.cobro({ concepto: 'Para HEAD' });
    await sb.api('POST', '/_sandbox/fallas', { method: 'POST', path: '/v1/nunca', action: 'cut' });
    const paths: [string, string | null][] = [
      ['/v1/salud', null],
      ['/v1/cuenta', sb.apiKey],
      ['/v1/cargos', sb.apiKey],
      ['/v1/cobros', sb.apiKey],
      [`/v1/cobros/${c.id}`, sb.apiKey],
      ['/v1/cobros/999999', sb.apiKey],
      ['/v1/cuenta', null],
      ['/v1/transacciones', sb.apiKey],
      ['/v1/liquidaciones', sb.apiKey],
      ['/_sandbox/webhook', sb.apiKey],
      ['/_sandbox/fallas', sb.apiKey],
      ['/_sandbox/entregas', sb.apiKey],
      [`/pagar/${c.codigo}`, null],
      [`/pagar/${c.codigo}/recibo`, null],
      ['/pagar/NOEXISTE', null],
      ['/v1/nada', sb.apiKey],
    ];
    const skip = new Set(['date', 'connection', 'keep-alive']);
    for (const [path, key] of paths) {
      const get = await fetch(sb.baseUrl + path, {
        headers: key ? { authorization: `Bearer ${key}` } : {},
      });
      const getBody = Buffer.from(await get.arrayBuffer());
      const head = await fetch(sb.baseUrl + path, {
        method: 'HEAD',
        headers: key ? { authorization: `Bearer ${key}` } : {},
      });
      expect(await head.text(), path).toBe('');
      expect(head.status, path).toBe(get.status);
      const headers = (h: Headers) => [...h].filter(([k]) => !skip.has(k));
      expect(headers(head.headers), path).toEqual(headers(get.headers));
      expect(Number(head.headers.get('content-length')), path).toBe(getBody.length);
      expect(getBody.length, path).toBeGreaterThan(0);
    }
    const log = (await sb.api('GET', '/_sandbox/log')).body.data as {
      method: string;
      path: string;
      status: number | null;
    }[];
    expect(log.find((e) => e.method === 'HEAD' && e.path === '/v1/cuenta')?.status).toBe(200);
  });
});

describe('bodies', () => {
  it('a Content-Length over 1 MiB is refused at once with 413, the endpoint code, Connection: close; nothing read', async () => {
    for (const [path, code] of [
      ['/v1/cobros', 'create_failed'],
      ['/v1/cobros/1/devoluciones', 'refund_failed'],
      ['/_sandbox/fallas', 'bad_request'],
    ]) {
      for (const size of [1024 * 1024 + 1, 10 * 1024 * 1024 * 1024]) {
        // Only the headers are sent: an answer proves the body was not waited for.
        const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${sb.apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`;
        const r = await rawExchange(head);
        const [status, ...rest] = r.text.split('\r\n');
        expect(status, `${path} ${size}: ${r.text}`).toBe('HTTP/1.1 413 Payload Too Large');
        expect(rest).toContain('Connection: close');
        const body = JSON.parse(
          Buffer.from(r.text.slice(r.text.indexOf('\r\n\r\n') + 4), 'latin1').toString('utf8'),
        );
        expect(body).toEqual({ error: code, message: 'body: más de 1048576 bytes' });
        expect(r.closedByServer).toBe(true);
      }
    }
    expect(errors).toEqual([]);
  });

  it('a streamed body past 1 MiB is 413 too; exactly 1 MiB is read', async () => {
    const big = await fetch(`${sb.baseUrl}/v1/cobros`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sb.apiKey}`, 'content-type': 'application/json' },
      body: new ReadableStream({
        start(ctrl) {
          ctrl.enqueue(new Uint8Array(1024 * 1024 + 10).fill(0x20));
          ctrl.close();
        },
      }),
      duplex: 'half',
    } as RequestInit).catch((err: Error) => err);
    // The answer may come before the upload ends and the socket be closed under the sender.
    if (!(big instanceof Error)) {
      expect(big.status).toBe(413);
      expect(await big.json()).toEqual({
        error: 'create_failed',
        message: 'body: más de 1048576 bytes',
      });
    }
    const exact = JSON.stringify({ concepto: 'x', monto: '1', pad: 'p'.repeat(1024 * 1024 - 40) });
    const padded = exact + ' '.repeat(1024 * 1024 - Buffer.byteLength(exact));
    expect(Buffer.byteLength(padded)).toBe(1024 * 1024);
    const r = await sb.raw('POST', '/v1/cobros', {
      body: padded,
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(201);
  });

  it('a streamed body past 1 MiB gets a real 413 answer the sender can read, not a cut connection', async () => {
    const r = await unfinishedPost(
      `${sb.baseUrl}/v1/cobros`,
      { Authorization: `Bearer ${sb.apiKey}`, 'Content-Type': 'application/json' },
      1024 * 1024 + 1,
    );
    const answer = parseAnswer(r.text);
    expect(answer.status, r.text.slice(0, 200)).toBe('HTTP/1.1 413 Payload Too Large');
    expect(answer.body).toEqual({ error: 'create_failed', message: 'body: más de 1048576 bytes' });
  });

  it('a request without a known key is answered 401 from its headers; its body is never read (#29.5)', async () => {
    const MiB = 1024 * 1024;
    for (const auth of [
      '',
      'Authorization: Basic x\r\n',
      'Authorization: Bearer svc_test_00000000000000000000000000000000\r\n',
      'Authorization: Bearer svc_live_nope\r\n',
    ]) {
      for (const path of ['/v1/cobros', '/_sandbox/fallas']) {
        // Only the headers of a 1 MiB body are sent: an answer proves the body was not waited for.
        const head = `POST ${path} HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${MiB}\r\n\r\n`;
        const r = await rawExchange(head);
        const [status, ...rest] = r.text.split('\r\n');
        expect(status, `${path} ${auth}: ${r.text}`).toBe('HTTP/1.1 401 Unauthorized');
        expect(rest).toContain('Connection: close');
        expect(
          JSON.parse(
            Buffer.from(r.text.slice(r.text.indexOf('\r\n\r\n') + 4), 'latin1').toString('utf8'),
          ).error,
        ).toBe('unauthorized');
        expect(r.closedByServer).toBe(true);
      }
    }
    expect(errors).toEqual([]);
  });

  it('bodies held at once share a budget: past it 503 with Retry-After before reading; small bodies still get in; a left request gives its share back (#29.5)', async () => {
    const MiB = 1024 * 1024;
    // 4 MiB: large bodies may hold three quarters of it, three bodies of 1 MiB.
    const small = await startSandbox({
      maxBodiesBytes: 4 * MiB,
      onError: (err) => errors.push(err),
    });
    const holders: Socket[] = [];
    try {
      const head = `POST /v1/cobros HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${small.apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${MiB}\r\n\r\n`;
      for (let i = 0; i < 3; i++) {
        const s = connect(Number(new URL(small.baseUrl).port), '127.0.0.1');
        s.on('error', () => undefined);
        s.write(head + ' '.repeat(1000));
        holders.push(s);
      }
      await eventually(() => small.app.inflight() === 3);
      const r = await rawExchange(head, { port: Number(new URL(small.baseUrl).port) });
      const [status, ...rest] = r.text.split('\r\n');
      expect(status, r.text).toBe('HTTP/1.1 503 Service Unavailable');
      expect(rest).toContain('Retry-After: 1');
      expect(rest).toContain('Connection: close');
      expect(
        JSON.parse(
          Buffer.from(r.text.slice(r.text.indexOf('\r\n\r\n') + 4), 'latin1').toString('utf8'),
        ).error,
      ).toBe('unavailable');
      expect(r.closedByServer).toBe(true);
      // A request of the usual size uses the quarter large bodies may not.
      expect(
        (await small.api('POST', '/v1/cobros', { concepto: 'Entra igual', monto: '5.00' })).status,
      ).toBe(201);
      for (const s of holders) s.destroy();
      await eventually(() => small.app.inflight() === 0);
      const exact = JSON.stringify({ concepto: 'x', monto: '1', pad: 'p'.repeat(MiB - 40) });
      const padded = exact + ' '.repeat(MiB - Buffer.byteLength(exact));
      expect(
        (
          await small.raw('POST', '/v1/cobros', {
            body: padded,
            headers: { 'content-type': 'application/json' },
          })
        ).status,
      ).toBe(201);
    } finally {
      for (const s of holders) s.destroy();
      await small.close();
    }
    expect(errors).toEqual([]);
  });

  it('a request that does not arrive whole within the request timeout is cut (#29.5)', async () => {
    const quick = await startSandbox({
      requestTimeoutMs: 1000,
      onError: (err) => errors.push(err),
    });
    try {
      const head = `POST /v1/cobros HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${quick.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`;
      const r = await rawExchange(head, {
        body: Buffer.from('{"concepto": "lento'),
        port: Number(new URL(quick.baseUrl).port),
        waitMs: 20_000,
      });
      expect(r.closedByServer, r.text).toBe(true);
      expect(await quick.api('GET', '/v1/cobros?q=lento')).toMatchObject({
        status: 200,
        body: { data: [] },
      });
    } finally {
      await quick.close();
    }
    expect(errors).toEqual([]);
  });

  it('a client that leaves mid-body is logged as a cut (status null), not as a 500 or an internal error', async () => {
    const path = '/v1/cobros';
    const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${sb.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`;
    const before = (await sb.api('GET', '/_sandbox/log')).body.data.length as number;
    await rawExchange(head, {
      body: Buffer.from('{"concepto": "Pedido a medias", "mon'),
      destroyAfterWrite: true,
    });
    const entry = await eventually(async () => {
      const log = (await sb.api('GET', '/_sandbox/log')).body.data as {
        method: string;
        path: string;
        status: number | null;
      }[];
      return log.slice(before).find((e) => e.method === 'POST' && e.path === path);
    });
    expect(entry.status).toBeNull();
    expect(errors).toEqual([]);
    // Nothing was created from half a body.
    const list = (await sb.api('GET', '/v1/cobros?q=a medias')).body.data;
    expect(list).toEqual([]);
  });

  it('svc sandbox prints such a request as "cortada", never as "error interno del sandbox"', async () => {
    const proc = execa('node', [BIN, 'sandbox', '--port', '0'], {
      cwd: ROOT,
      env: { SVC_CONFIG_DIR: tempDir('svc-config-'), NO_COLOR: '1' },
      reject: false,
      stdin: 'ignore',
    });
    let stdout = '';
    let stderr = '';
    proc.stdout!.on('data', (d) => (stdout += String(d)));
    proc.stderr!.on('data', (d) => (stderr += String(d)));
    try {
      const base = await eventually(() => /escuchando en (http:\/\/\S+)/.exec(stdout)?.[1], 20_000);
      // The key is checked before the body is read: only a known merchant's request gets as far as a cut.
      const key = await eventually(() => /SVC_API_KEY=(\S+)/.exec(stdout)?.[1], 20_000);
      const head = `POST /v1/cobros HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`;
      await rawExchange(head, {
        body: Buffer.from('{"concepto": "a med'),
        destroyAfterWrite: true,
        port: Number(new URL(base).port),
      });
      await eventually(() => /POST\s+\/v1\/cobros\s+cortada/.test(stderr), 10_000);
    } finally {
      proc.kill('SIGTERM');
      await proc;
    }
    expect(stderr).not.toMatch(/error interno|aborted|\b500\b/);
    expectNoStack(stderr);
  });
});
