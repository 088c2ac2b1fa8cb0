// The payer page without a browser: formatting and parsing of what the payer reads
// and types, escaping of every value the page interpolates, and the routes over HTTP
// against an in-process sandbox (redirects, refusals, states, events).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AmountError, TYPED_AMOUNT_HINT } from '../../../src/domain/money.js';
import { esc, fecha, parseTyped, pesos } from '../../../src/sandbox/checkout/format.js';
import {
  checkoutPage,
  notFoundPage,
  receiptPage,
  type CheckoutView,
} from '../../../src/sandbox/checkout/page.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import { expectPolicy, inlineParts, sha256Source } from '../../helpers/policy.js';

describe('format', () => {
  it('shows amounts the Argentine way without floats', () => {
    expect(pesos(0n)).toBe('$\u00a00,00');
    expect(pesos(150050n)).toBe('$\u00a01.500,50');
    expect(pesos(99_999_999_999n)).toBe('$\u00a0999.999.999,99');
    expect(pesos(-5n)).toBe('-$\u00a00,05');
  });

  it('reads what a payer types, with comma or dot', () => {
    expect(parseTyped('600,00')).toBe(60000n);
    expect(parseTyped('1.500,5')).toBe(150050n);
    expect(parseTyped('1500.50')).toBe(150050n);
    expect(parseTyped(' $ 12 ')).toBe(1200n);
    for (const bad of [
      '',
      '0',
      '0,00',
      '-5',
      '1,2,3',
      '1.50,00',
      '12,345',
      'abc',
      '1e3',
      '1.500',
    ]) {
      expect(() => parseTyped(bad), bad).toThrow(AmountError);
    }
  });

  it('escapes markup and quotes, and formats dates', () => {
    expect(esc(`<a href="x" title='y'>&</a>`)).toBe(
      '&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;',
    );
    expect(fecha('2026-12-24 18:05:00')).toBe('24/12/2026 18:05');
  });
});

describe('page', () => {
  const evil = `"><script>alert(1)</script><img src=x onerror=alert(2)>'`;
  const view: CheckoutView = {
    codigo: evil,
    comercio: evil,
    concepto: evil,
    estado: 'PENDIENTE',
    monto: 150000n,
    cobrado: 0n,
    devuelto: 0n,
    vencimiento: `2026-12-24 18:00:00${evil}`,
    medios: [
      { medio: 'qr', label: 'Código QR' },
      { medio: 'transferencia', label: 'Transferencia bancaria' },
    ],
    cvu: evil,
    qr: evil,
    canPay: true,
    canCancel: true,
    version: evil,
    notice: evil,
    error: evil,
    typed: { monto: evil, medio: evil },
  };

  it('escapes every interpolated value', () => {
    const pages = [
      checkoutPage(view),
      receiptPage(view, [{ codigo: evil, medio: evil, monto: 1n, fecha: evil }]),
      notFoundPage(evil),
    ];
    for (const html of pages) {
      // Only the page's own script tag, and no attribute broken out of.
      expect(html.match(/<script/g)).toHaveLength(1);
      expect(html).not.toContain('<img');
      expect(html).not.toContain('"><script');
      expect(html).not.toContain("'><script");
      expect(html).toContain('SANDBOX');
    }
  });

  it('shows the state instead of the buttons when no payment is admitted', () => {
    for (const estado of ['PAGADA', 'CANCELADO', 'DEVUELTA', 'DEVUELTA_PARCIALMENTE'] as const) {
      const html = checkoutPage({
        ...view,
        estado,
        canPay: false,
        canCancel: false,
        error: undefined,
        notice: undefined,
      });
      expect(html, estado).not.toContain('<button type="submit"');
      expect(html, estado).toContain('class="msg state"');
    }
    const partly = checkoutPage({
      ...view,
      estado: 'PAGADA_PARCIALMENTE',
      cobrado: 50000n,
      canCancel: false,
    });
    expect(partly).toContain('Pagar el total ($\u00a01.000,00)');
    expect(partly).not.toContain('rechazar');
  });
});

describe('routes', () => {
  let sb: RunningSandbox;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(sb.baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${sb.apiKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await res.json()) as { data: any };
  };
  const post = (path: string, form: Record<string, string>) =>
    fetch(sb.baseUrl + path, {
      method: 'POST',
      body: new URLSearchParams(form),
      redirect: 'manual',
    });
  const crear = async (extra: Record<string, unknown> = {}) =>
    (await api('POST', '/v1/cobros', { concepto: 'Pedido', monto: '100.00', ...extra })).data;

  beforeAll(async () => {
    sb = await startSandbox({ readyDelayMs: 0 });
  });
  afterAll(async () => {
    await sb?.close();
  });

  it('serves the page publicly with its CSP, and a 404 page for unknown codes', async () => {
    const c = await crear();
    const res = await fetch(c.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    expect(html).toContain('Comercio de Prueba');
    const { style, script } = inlineParts(html);
    expectPolicy(
      'checkout page',
      res.headers,
      {
        'default-src': ["'none'"],
        'style-src': [sha256Source(style)],
        'script-src': [sha256Source(script)],
        'img-src': ['data:'],
        // The payer's form posts here; the redirect after paying may go to the merchant's https success_url.
        'form-action': ["'self'", 'https:'],
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
    const missing = await fetch(`${sb.baseUrl}/pagar/NOEXISTE`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('No encontramos este cobro');
    expect((await post('/pagar/NOEXISTE/pagar', { modo: 'total' })).status).toBe(404);
  });

  it('pays without success_url: receipt; events match the control plane', async () => {
    const c = await crear();
    const part = await post(`/pagar/${c.codigo}/pagar`, {
      modo: 'parcial',
      monto: '40',
      medio: 'transferencia',
    });
    expect(part.status).toBe(303);
    expect(part.headers.get('location')).toMatch(new RegExp(`^/pagar/${c.codigo}\\?tx=\\d+$`));
    const rest = await post(`/pagar/${c.codigo}/pagar`, { modo: 'total', medio: 'debito' });
    expect(rest.status).toBe(303);
    expect(rest.headers.get('location')).toBe(`/pagar/${c.codigo}/recibo`);
    const after = (await api('GET', `/v1/cobros/${c.id}`)).data;
    expect(after).toMatchObject({ estado: 'PAGADA', monto_cobrado: '100.00' });
    const txs = (await api('GET', '/v1/transacciones')).data.filter(
      (t: any) => t.cobro_id === c.id,
    );
    expect(txs.map((t: any) => [t.medio, t.monto]).sort()).toEqual([
      ['debito', '60.00'],
      ['transferencia', '40.00'],
    ]);
    const liqs = (await api('GET', '/v1/liquidaciones')).data.filter(
      (l: any) => l.cobro_id === c.id,
    );
    expect(liqs).toHaveLength(2);
    const events = (await api('GET', '/_sandbox/eventos')).data.filter(
      (e: any) => e.body.cobro_id === c.id,
    );
    expect(events.map((e: any) => [e.body.event, e.body.monto_cobrado])).toEqual([
      ['payment.created', '0.00'],
      ['payment.partially_paid', '40.00'],
      ['payment.approved', '100.00'],
    ]);
    const receipt = await (await fetch(`${sb.baseUrl}/pagar/${c.codigo}/recibo`)).text();
    expect(receipt).toContain('$\u00a040,00');
    expect(receipt).toContain('$\u00a060,00');
    // Paid: a further payment is refused with the state, nothing changes.
    const again = await post(`/pagar/${c.codigo}/pagar`, { modo: 'total' });
    expect(again.status).toBe(409);
    expect(await again.text()).toContain('ya no admite');
  });

  it('a second submit of the same page does not pay twice', async () => {
    const c = await crear();
    const html = await (await fetch(c.url)).text();
    const version = /name="version" value="([^"]+)"/.exec(html)![1]!;
    const form = { modo: 'parcial', monto: '30', medio: 'qr', version };
    expect((await post(`/pagar/${c.codigo}/pagar`, form)).status).toBe(303);
    const twice = await post(`/pagar/${c.codigo}/pagar`, form);
    expect(twice.status).toBe(409);
    expect(await twice.text()).toContain('cambió desde que abriste la página');
    expect((await api('GET', `/v1/cobros/${c.id}`)).data.monto_cobrado).toBe('30.00');
  });

  it('refuses bad amounts and methods the request does not take, in Spanish, emptying the amount', async () => {
    const c = await crear({ qr: false });
    const over = await post(`/pagar/${c.codigo}/pagar`, { modo: 'parcial', monto: '100,01' });
    expect(over.status).toBe(400);
    const text = await over.text();
    expect(text).toContain('supera lo que queda por pagar ($\u00a0100,00)');
    // The amount field is emptied, with the focus, for retyping (the refusal says what was read).
    expect(text).toContain(
      '<input type="text" id="monto" name="monto" inputmode="decimal" autocomplete="off" aria-describedby="error monto-ayuda" autofocus value="">',
    );
    expect((await post(`/pagar/${c.codigo}/pagar`, { modo: 'parcial', monto: '' })).status).toBe(
      400,
    );
    // Read as svc's prompts and the dashboard read it (money.ts): 1.500 reads two ways and is refused naming both.
    const ambiguous = await post(`/pagar/${c.codigo}/pagar`, { modo: 'parcial', monto: '1.500' });
    expect(ambiguous.status).toBe(400);
    const page = await ambiguous.text();
    // In the payer's notation, as every amount of the page (format.ts typedRefusal).
    expect(page).toContain(
      '&#34;1.500&#34; puede ser $\u00a01.500,00 o $\u00a01,50: escribí 1.500,00 o 1,50',
    );
    const huge = await post(`/pagar/${c.codigo}/pagar`, {
      modo: 'parcial',
      monto: '1.000.000.000',
    });
    expect(await huge.text()).toContain('supera el máximo de $\u00a0999.999.999,99');
    expect(page).toContain(`escribí el monto (${TYPED_AMOUNT_HINT})`);
    expect((await post(`/pagar/${c.codigo}/pagar`, { modo: 'otro' })).status).toBe(400);
    const qr = await post(`/pagar/${c.codigo}/pagar`, { modo: 'total', medio: 'qr' });
    expect(qr.status).toBe(400);
    expect((await api('GET', `/v1/cobros/${c.id}`)).data).toMatchObject({
      estado: 'PENDIENTE',
      monto_cobrado: '0.00',
    });
  });

  it('expires and rejects through the control plane, back to the page or error_url', async () => {
    const a = await crear();
    const exp = await post(`/pagar/${a.codigo}/expirar`, {});
    expect(exp.status).toBe(303);
    expect(exp.headers.get('location')).toBe(`/pagar/${a.codigo}`);
    expect((await api('GET', `/v1/cobros/${a.id}`)).data.estado).toBe('CANCELADO');
    expect(await (await fetch(a.url)).text()).toContain('fue cancelado');

    const b = await crear({ error_url: 'https://tienda.example/error' });
    const rej = await post(`/pagar/${b.codigo}/rechazar`, { medio: 'credito' });
    expect(rej.headers.get('location')).toBe('https://tienda.example/error');
    const tx = (await api('GET', '/v1/transacciones?estado=RECHAZADO')).data.find(
      (t: any) => t.cobro_id === b.id,
    );
    expect(tx).toMatchObject({ medio: 'credito', estado: 'RECHAZADO', monto: '100.00' });
    expect((await post(`/pagar/${b.codigo}/rechazar`, {})).status).toBe(409);
  });

  it('non-ASCII success_url/error_url: stored normalised, and the payer is redirected there (no 500 after paying)', async () => {
    const ok = 'https://a.example/€?pedido=ñ#fin é';
    const err = 'https://a.example/error/\u2028línea';
    const c = await crear({ success_url: ok, error_url: err });
    // What `svc cobro ver` shows is what the redirect will use.
    expect(c.success_url).toBe(new URL(ok).href);
    expect(c.error_url).toBe(new URL(err).href);
    expect(c.success_url).toBe('https://a.example/%E2%82%AC?pedido=%C3%B1#fin%20%C3%A9');
    expect(c.error_url).toBe('https://a.example/error/%E2%80%A8l%C3%ADnea');
    expect((await api('GET', `/v1/cobros/${c.id}`)).data).toMatchObject({
      success_url: c.success_url,
      error_url: c.error_url,
    });
    const paid = await post(`/pagar/${c.codigo}/pagar`, { modo: 'total', medio: 'debito' });
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(c.success_url);
    expect((await api('GET', `/v1/cobros/${c.id}`)).data.estado).toBe('PAGADA');

    const r = await crear({ error_url: err });
    const rej = await post(`/pagar/${r.codigo}/rechazar`, { medio: 'credito' });
    expect(rej.status).toBe(303);
    expect(rej.headers.get('location')).toBe(new URL(err).href);

    // A request stored raw (a data file written before normalising) still redirects.
    const legacy = await crear();
    const rec = sb.app.deps.store.codigos.get(legacy.codigo)!;
    rec.wire.success_url = ok;
    const old = await post(`/pagar/${legacy.codigo}/pagar`, { modo: 'total' });
    expect(old.status).toBe(303);
    expect(old.headers.get('location')).toBe(new URL(ok).href);
  });
});
