// The sandbox's dashboard over HTTP, against an in-process sandbox on 127.0.0.1:
// the page and its security headers, served only on loopback; the script never
// writes HTML; the control routes it reads (one request whole, totals, keys); the
// live stream (an event when a request is created, log lines, delivery attempts,
// ended when the sandbox stops); and a resend of a notification.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PANEL_DATA, panelScript } from '../../../src/sandbox/panel/script.js';
import { MAX_STREAMS } from '../../../src/sandbox/hub.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import { expectPolicy, inlineParts, sha256Source } from '../../helpers/policy.js';

/** The dashboard's script as `npm run build` bundled it (dist/panel/panel.js). */
const SCRIPT = panelScript();

/** GET with a chosen Host header (fetch would not send another one). */
function getWithHost(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Reads server-sent events from a response until `until` says stop; returns what came. */
async function readEvents(
  res: Response,
  until: (events: { event: string; data: any }[]) => boolean,
): Promise<{ event: string; data: any }[]> {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  const got: { event: string; data: any }[] = [];
  let buf = '';
  while (!until(got)) {
    const r = await reader.read();
    if (r.done) break;
    buf += dec.decode(r.value, { stream: true });
    let i;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event && data) got.push({ event, data: JSON.parse(data) });
    }
  }
  reader.releaseLock();
  return got;
}

/** A receiver on loopback that answers 200 and keeps each body. */
async function startReceiver(): Promise<{ server: Server; url: string; bodies: string[] }> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let b = '';
    req.on('data', (c) => (b += c));
    req.on('end', () => {
      bodies.push(b);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, bodies };
}

/** Polls `probe` until it gives a value; fails naming `what` after 15 s (room for a loaded machine, not a measure of speed). */
function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  return vi.waitFor(
    async () => {
      const v = await probe();
      if (v === undefined) throw new Error(`${what}: not seen within 15 s`);
      return v;
    },
    { timeout: 15_000, interval: 20 },
  );
}

describe('the dashboard over HTTP', () => {
  let sb: RunningSandbox;
  const call = async (method: string, path: string, body?: unknown, key = sb.apiKey) => {
    const res = await fetch(sb.baseUrl + path, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };
  const crear = async (extra: Record<string, unknown> = {}) =>
    (await call('POST', '/v1/cobros', { concepto: 'Pedido', monto: '100.00', ...extra })).body.data;

  beforeAll(async () => {
    sb = await startSandbox({ readyDelayMs: 0 });
  });
  afterAll(async () => {
    await sb?.close();
  });

  it('serves the page at / and /_sandbox/panel with a strict CSP, no framing, no caching', async () => {
    for (const path of ['/', '/_sandbox/panel']) {
      const res = await fetch(sb.baseUrl + path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const html = await res.text();
      const { style, script } = inlineParts(html);
      expect(script).toBe(SCRIPT);
      expectPolicy(
        path,
        res.headers,
        {
          'default-src': ["'none'"],
          'style-src': [sha256Source(style)],
          'script-src': [sha256Source(script)],
          'connect-src': ["'self'"],
          'img-src': ['data:'],
          'form-action': ["'none'"],
          'base-uri': ["'none'"],
          'frame-ancestors': ["'none'"],
        },
        {
          'x-frame-options': 'DENY',
          'referrer-policy': 'no-referrer',
          'x-content-type-options': 'nosniff',
          'cache-control': 'no-store',
        },
      );
      expect(html).toContain('<div class="banner" role="note"><strong>SANDBOX</strong>');
      // One script, the hashed one, and the data it reads (JSON, which no browser runs);
      // no handler attributes, nothing loaded from elsewhere.
      expect(html.match(/<script/g)).toHaveLength(2);
      const data = /<script type="application\/json" id="panel-datos">([^<]*)<\/script>/.exec(html);
      expect(JSON.parse(data![1]!)).toEqual(PANEL_DATA);
      expect(html).toContain(`<script>${SCRIPT}</script>`);
      expect(html).not.toMatch(/\son[a-z]+=/i);
      expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i);
    }
    // The page is no endpoint of the service: HEAD works, POST is no route.
    expect((await fetch(sb.baseUrl + '/', { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(sb.baseUrl + '/', { method: 'POST' })).status).toBe(404);
  });

  it('the script shows what the sandbox says as text, never as HTML', () => {
    for (const sink of [
      'innerHTML',
      'outerHTML',
      'insertAdjacentHTML',
      'document.write',
      'eval(',
      'new Function',
      "setAttribute('on",
      'srcdoc',
    ]) {
      expect(SCRIPT, sink).not.toContain(sink);
    }
    // The key is read from and kept in this tab's sessionStorage only.
    expect(SCRIPT).toContain('sessionStorage');
    expect(SCRIPT).not.toContain('localStorage');
    expect(SCRIPT).not.toContain('document.cookie');
  });

  it('answers the page only to a loopback Host, and not at all on a non-loopback bind', async () => {
    expect((await getWithHost(sb.baseUrl + '/', 'localhost')).status).toBe(200);
    const rebound = await getWithHost(sb.baseUrl + '/', 'panel.attacker.example');
    expect(rebound.status).toBe(404);
    expect(JSON.parse(rebound.body).error).toBe('not_found');
    // The API itself does not care about Host.
    expect((await getWithHost(sb.baseUrl + '/v1/salud', 'api.example')).status).toBe(200);

    const wide = await startSandbox({ readyDelayMs: 0 });
    try {
      // As if it listened on every interface (tests bind 127.0.0.1 only).
      wide.app.setBaseUrl(wide.baseUrl.replace('127.0.0.1', '0.0.0.0'));
      for (const path of ['/', '/_sandbox/panel'])
        expect((await fetch(wide.baseUrl + path)).status, path).toBe(404);
    } finally {
      await wide.close();
    }
  });

  it('a fault on every path leaves the page and its own calls alone', async () => {
    expect(
      (
        await call('POST', '/_sandbox/fallas', {
          path: '/*',
          count: 3,
          action: 'respond',
          status: 500,
        })
      ).status,
    ).toBe(201);
    expect((await fetch(sb.baseUrl + '/')).status).toBe(200);
    const marked = await fetch(sb.baseUrl + '/v1/cobros', {
      headers: { authorization: `Bearer ${sb.apiKey}`, 'x-svc-panel': '1' },
    });
    expect(marked.status).toBe(200);
    expect((await call('GET', '/v1/cobros')).status).toBe(500);
    expect((await call('DELETE', '/_sandbox/fallas')).body.data.borradas).toBe(1);
  });

  it('one request whole, settlement totals by date, and the keys only with a key', async () => {
    const c = await crear({ concepto: 'Pedido <b>1</b>', monto: '100.00' });
    expect(
      (
        await call('POST', `/_sandbox/cobros/${c.id}/pagar`, {
          monto: '40.00',
          medio: 'transferencia',
        })
      ).status,
    ).toBe(200);
    expect((await call('POST', `/_sandbox/cobros/${c.id}/pagar`, { medio: 'qr' })).status).toBe(
      200,
    );
    expect((await call('POST', `/v1/cobros/${c.id}/devoluciones`, { monto: '25.50' })).status).toBe(
      201,
    );
    const d = (await call('GET', `/_sandbox/cobros/${c.id}`)).body.data;
    expect(d.cobro).toMatchObject({
      id: c.id,
      concepto: 'Pedido <b>1</b>',
      estado: 'DEVUELTA_PARCIALMENTE',
      monto_cobrado: '100.00',
    });
    expect(d.queda_por_devolver).toBe('74.50');
    expect(d.transacciones.map((t: any) => [t.medio, t.monto])).toEqual([
      ['qr', '60.00'],
      ['transferencia', '40.00'],
    ]);
    expect(d.devoluciones.map((x: any) => x.monto)).toEqual(['25.50']);
    expect(d.liquidaciones).toHaveLength(2);
    expect(d.eventos.map((e: any) => e.body.event)).toEqual([
      'payment.partially_refunded',
      'payment.approved',
      'payment.partially_paid',
      'payment.created',
    ]);
    expect(d.entregas).toEqual([]);
    expect((await call('GET', '/_sandbox/cobros/999999')).status).toBe(404);
    expect(
      (await call('GET', `/_sandbox/cobros/${c.id}`, undefined, sb.apiKeyNoListo)).status,
    ).toBe(404);

    const open = await crear();
    expect((await call('GET', `/_sandbox/cobros/${open.id}`)).body.data.queda_por_devolver).toBe(
      '0.00',
    );

    // Totals by the day the money is expected: the sum of the list, by date.
    const liqs = (await call('GET', '/v1/liquidaciones')).body.data as any[];
    const totals = (await call('GET', '/_sandbox/liquidaciones/totales')).body.data as any[];
    expect(totals.reduce((n, t) => n + t.cantidad, 0)).toBe(liqs.length);
    for (const t of totals) {
      const day = liqs.filter((l) => l.fecha_estimada.startsWith(t.fecha));
      const sum = (k: string) => day.reduce((s, l) => s + BigInt(l[k].replace('.', '')), 0n);
      for (const k of ['bruto', 'te_queda', 'te_cobramos'])
        expect(BigInt(t[k].replace('.', '')), k).toBe(sum(k));
    }
    expect(totals.map((t) => t.fecha)).toEqual(
      totals.map((t) => t.fecha).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
    );

    const keys = await call('GET', '/_sandbox/claves');
    expect(keys.headers.get('cache-control')).toBe('no-store');
    expect(keys.body.data.webhook_secret).toBe(sb.webhookSecret);
    expect(keys.body.data.claves.map((k: any) => k.clave)).toContain(sb.apiKey);
    expect((await fetch(sb.baseUrl + '/_sandbox/claves')).status).toBe(401);
    // The log never holds a key or the secret.
    const log = JSON.stringify((await call('GET', '/_sandbox/log')).body.data);
    expect(log).not.toContain(sb.apiKey);
    expect(log).not.toContain(sb.webhookSecret);
  });

  it('the stream sends an event when a request is created, and its log line; only with a key', async () => {
    expect((await fetch(sb.baseUrl + '/_sandbox/stream')).status).toBe(401);
    const ctl = new AbortController();
    const res = await fetch(sb.baseUrl + '/_sandbox/stream', {
      headers: { authorization: `Bearer ${sb.apiKey}` },
      signal: ctl.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    // Another merchant's request is not this stream's event.
    const other = await call(
      'POST',
      '/v1/cobros',
      { concepto: 'Otro', monto: '1.00' },
      sb.apiKeyLive!,
    );
    expect(other.status).toBe(201);
    const c = await crear({ concepto: 'En vivo' });
    const got = await readEvents(
      res,
      (evs) =>
        evs.some((e) => e.event === 'evento' && e.data.body.cobro_id === c.id) &&
        evs.some((e) => e.event === 'log' && e.data.path === '/v1/cobros' && e.data.comercio === 1),
    );
    const created = got.filter((e) => e.event === 'evento');
    expect(created.map((e) => e.data.body.cobro_id)).toEqual([c.id]);
    expect(created[0]!.data.body).toMatchObject({
      event: 'payment.created',
      codigo: c.codigo,
      estado: 'PENDIENTE',
      monto: '100.00',
    });
    const events = (await call('GET', '/_sandbox/eventos')).body.data as any[];
    expect(events.find((e) => e.body.cobro_id === c.id)).toEqual(created[0]!.data);
    const line = got.find(
      (e) => e.event === 'log' && e.data.path === '/v1/cobros' && e.data.comercio === 1,
    )!.data;
    expect(line).toMatchObject({ method: 'POST', status: 201 });
    expect(JSON.stringify(got)).not.toContain(sb.apiKey);
    ctl.abort();
  });

  it('resends a notification: new attempts of the same event, marked, streamed; refused without a URL', async () => {
    const c0 = await crear();
    const first = (await call('GET', '/_sandbox/eventos')).body.data.find(
      (e: any) => e.body.cobro_id === c0.id,
    );
    const none = await call('POST', `/_sandbox/eventos/${first.id}/reenviar`, {});
    expect(none.status).toBe(400);
    expect(none.body.message).toBe(
      'no hay URL de notificaciones: definila con svc sandbox webhook URL (o POST /_sandbox/webhook {"url"})',
    );

    const receiver = await startReceiver();
    try {
      expect((await call('POST', '/_sandbox/webhook', { url: receiver.url })).status).toBe(200);
      const ctl = new AbortController();
      const res = await fetch(sb.baseUrl + '/_sandbox/stream', {
        headers: { authorization: `Bearer ${sb.apiKey}` },
        signal: ctl.signal,
      });
      const c = await crear({ concepto: 'Para reenviar' });
      const attempts = () =>
        call('GET', '/_sandbox/entregas').then((r) =>
          (r.body.data as any[]).filter((e) => e.cobro_id === c.id),
        );
      const [sent] = await until(
        'the delivery of the new request in /_sandbox/entregas',
        async () => {
          const a = await attempts();
          return a.length ? a : undefined;
        },
      );
      expect(sent).toMatchObject({
        event: 'payment.created',
        ok: true,
        status: 200,
        reenvio: false,
      });
      const again = await call('POST', `/_sandbox/eventos/${sent.evento_id}/reenviar`, {});
      expect(again.status).toBe(202);
      expect(again.body.data).toMatchObject({
        evento_id: sent.evento_id,
        event: 'payment.created',
        cobro_id: c.id,
        url: receiver.url,
      });
      const all = await until(
        'the resent notification as a second attempt in /_sandbox/entregas',
        async () => {
          const a = await attempts();
          return a.length === 2 ? a : undefined;
        },
      );
      expect(all[1]).toMatchObject({
        evento_id: sent.evento_id,
        event: 'payment.created',
        intento: 1,
        ok: true,
        reenvio: true,
      });
      const mine = receiver.bodies.filter((b) => JSON.parse(b).cobro_id === c.id);
      expect(mine).toHaveLength(2);
      expect(mine[1]).toBe(mine[0]);
      // No new event: the request's events are the one it had.
      expect((await call('GET', `/_sandbox/cobros/${c.id}`)).body.data.eventos).toHaveLength(1);
      const streamed = await readEvents(
        res,
        (evs) => evs.filter((e) => e.event === 'entrega' && e.data.cobro_id === c.id).length === 2,
      );
      expect(streamed.filter((e) => e.event === 'entrega').map((e) => e.data.reenvio)).toEqual([
        false,
        true,
      ]);
      ctl.abort();
      expect((await call('POST', '/_sandbox/eventos/999999/reenviar', {})).status).toBe(404);
      expect(
        (await call('POST', `/_sandbox/eventos/${sent.evento_id}/reenviar`, {}, sb.apiKeyLive!))
          .status,
      ).toBe(404);
    } finally {
      await call('POST', '/_sandbox/webhook', { url: null });
      await new Promise((r) => receiver.server.close(r));
    }
  });

  it('the cap of live streams is per merchant: the not-ready key holding all of its own leaves the main dashboard its stream', async () => {
    const own = await startSandbox({ readyDelayMs: 0 });
    const ctl = new AbortController();
    const open = (key: string) =>
      fetch(own.baseUrl + '/_sandbox/stream', {
        headers: { authorization: `Bearer ${key}` },
        signal: ctl.signal,
      });
    try {
      const held = await Promise.all(
        Array.from({ length: MAX_STREAMS }, () => open(own.apiKeyNoListo)),
      );
      expect(held.map((r) => r.status)).toEqual(Array(MAX_STREAMS).fill(200));
      const readers = held.map((r) => r.body!.getReader());
      for (const r of readers) await r.read();
      const over = await open(own.apiKeyNoListo);
      expect(over.status).toBe(429);
      expect(((await over.json()) as { error: string }).error).toBe('too_many_streams');
      // The main merchant's dashboard still gets its stream, and its events.
      const main = await open(own.apiKey);
      expect(main.status).toBe(200);
      const created = await fetch(own.baseUrl + '/v1/cobros', {
        method: 'POST',
        headers: { authorization: `Bearer ${own.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ concepto: 'Con el tope ajeno lleno', monto: '10.00' }),
      });
      expect(created.status).toBe(201);
      const id = ((await created.json()) as { data: { id: number } }).data.id;
      const evs = await readEvents(main, (e) => e.some((x) => x.event === 'evento'));
      expect(evs.find((x) => x.event === 'evento')!.data.body).toMatchObject({
        event: 'payment.created',
        cobro_id: id,
      });
      expect(own.app.deps.hub.size).toBe(MAX_STREAMS + 1);
      // A closed tab gives its place back to its merchant.
      await readers[0]!.cancel();
      for (let i = 0; i < 200 && own.app.deps.hub.size > MAX_STREAMS; i++)
        await new Promise((r) => setTimeout(r, 10));
      expect((await open(own.apiKeyNoListo)).status).toBe(200);
    } finally {
      ctl.abort();
      await own.close();
    }
  });

  it('a stopping sandbox ends the open streams', async () => {
    const own = await startSandbox({ readyDelayMs: 0 });
    const res = await fetch(own.baseUrl + '/_sandbox/stream', {
      headers: { authorization: `Bearer ${own.apiKey}` },
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    await reader.read();
    expect(own.app.deps.hub.size).toBe(1);
    await own.close();
    for (;;) if ((await reader.read()).done) break;
    expect(own.app.deps.hub.size).toBe(0);
  });
});
