// The payer's checkout page of the sandbox, driven in a real browser (Debian's
// Chromium through playwright-core): create a request with the CLI, open its `url`,
// pay part, pay the rest, reject another, and check the state with the CLI and the
// signed notifications a local receiver got. Also the basics of accessibility: every
// control has an accessible name and nothing scrolls sideways at 375 px.
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  expectFitsWidth,
  expectNamedControls,
  BROWSER_MISSING,
  LAPTOP_AND_PHONE,
  screenshot,
  splitAcrossLines,
  type startReceiver,
  waitFor,
  useBrowserRig,
  watch,
} from '../../helpers/browser.js';
import { svc } from '../../helpers/inproc.js';
import type { Sandbox } from '../../helpers/sandbox.js';
import { skipBecause } from '../../helpers/skips.js';

const SHOP = 'https://tienda.example';

/**
 * Problems of a page. A request for the shop's pages after a redirect fails (nothing
 * leaves loopback): that is not the sandbox's doing.
 */
function watchPage(page: Page): { problems: string[] } {
  const w = { problems: [] as string[] };
  watch(page, w.problems, (url) => url.startsWith(SHOP));
  return w;
}

/**
 * Clicks a submit button and checks the sandbox answered 303 to `location`, and the
 * browser followed: it asked for `location` as the redirect's next step. The shop is
 * not on this machine, and the route cannot answer a redirect's target (see
 * CHROMIUM_ARGS), so the page then lands on the shop or on Chromium's error page.
 */
async function submitRedirects(
  page: Page,
  button: string,
  action: string,
  location: string,
): Promise<void> {
  const [res, followed] = await Promise.all([
    page.waitForResponse(
      (r) => r.request().method() === 'POST' && new URL(r.url()).pathname.endsWith(`/${action}`),
    ),
    page.waitForRequest(location),
    page.getByRole('button', { name: button }).click(),
  ]);
  expect(res.status()).toBe(303);
  expect(res.headers()['location']).toBe(location);
  expect(followed.redirectedFrom()?.url()).toBe(res.url());
  await followed.response();
  await page.waitForURL((url) => url.href === location || url.protocol === 'chrome-error:', {
    waitUntil: 'commit',
  });
}

/** Every amount ("$ 1.500,00") whose "$" and digits land on different lines. */
const BROKEN_AMOUNTS = splitAcrossLines('document.body', /\$\s[0-9.,]+/g);

/** What the page shows of each method's part: the QR, the CVU and its button, the card's line. */
async function shownParts(page: Page): Promise<string[]> {
  const parts: [string, ReturnType<Page['locator']>][] = [
    ['qr', page.getByRole('img', { name: /Código QR para pagar/ })],
    ['cvu', page.getByRole('textbox', { name: 'CVU para transferir' })],
    ['copiar', page.getByRole('button', { name: 'Copiar CVU' })],
    ['tarjeta', page.getByRole('heading', { name: 'Pagar con tarjeta' })],
  ];
  const shown: string[] = [];
  for (const [name, loc] of parts) if (await loc.isVisible()) shown.push(name);
  return shown;
}

/**
 * Run in the page: every amount written as the API writes it (4800.00) in what the
 * payer reads. The typing example under the amount field shows both spellings the
 * field reads, and is left out.
 */
const API_AMOUNTS = `(() => {
  const main = document.querySelector('main').cloneNode(true);
  main.querySelector('#monto-ayuda')?.remove();
  return main.textContent.match(/(?<![\\d.,])\\d+\\.\\d{2}(?![\\d.,])/g) ?? [];
})()`;

async function crear(sb: Sandbox, args: string[]): Promise<any> {
  const r = await svc(['cobro', 'crear', '--json', ...args], { env: sb.env });
  expect(r.stderr === '' || r.exitCode === 0, r.stderr).toBe(true);
  expect(r.exitCode, r.stderr).toBe(0);
  const j = JSON.parse(r.stdout);
  return j.data ?? j;
}

async function ver(sb: Sandbox, id: number): Promise<any> {
  const r = await svc(['cobro', 'ver', String(id), '--json'], { env: sb.env });
  expect(r.exitCode, r.stderr).toBe(0);
  const j = JSON.parse(r.stdout);
  return j.data ?? j;
}

describe.skipIf(skipBecause(import.meta.url, BROWSER_MISSING))('checkout page in a browser', () => {
  // The shop's pages are https and outside this machine: answered here.
  const rig = useBrowserRig({}, (url) =>
    url.startsWith(SHOP) ? `<title>tienda</title><p>${url}</p>` : undefined,
  );
  let sb: Sandbox;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let context: BrowserContext;
  beforeAll(() => void ({ sb, receiver, context } = rig));

  it('pays part, then the rest: PAGADA, signed partially_paid then approved, redirect to success_url', async () => {
    const concepto = 'Pedido <b id="inyectado">1042</b> & "cía"';
    const c = await crear(sb, [
      '--concepto',
      concepto,
      '--monto',
      '1500.00',
      '--success-url',
      `${SHOP}/gracias`,
      '--error-url',
      `${SHOP}/error`,
    ]);
    expect(c.url).toBe(`${sb.base_url}/pagar/${c.codigo}`);
    const page = await context.newPage();
    const watched = watchPage(page);

    const res = await page.goto(c.url);
    expect(res?.status()).toBe(200);
    await expect.poll(() => page.getByRole('note').textContent()).toContain('SANDBOX');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(concepto);
    expect(await page.locator('#inyectado').count()).toBe(0);
    const body = await page.locator('main').textContent();
    expect(body).toContain('Comercio de Prueba');
    expect(body).toContain('$\u00a01.500,00');
    expect(body).toContain('Vence');
    // The three kinds of method: card types as options, the QR drawn, the CVU to copy.
    for (const name of [
      'Tarjeta de débito',
      'Tarjeta de crédito',
      'Código QR',
      'Transferencia bancaria',
    ]) {
      expect(await page.getByRole('radio', { name }).count(), name).toBe(1);
    }
    // The first method (a transfer) is chosen: its CVU shows, not the QR.
    expect(await page.getByRole('textbox', { name: 'CVU para transferir' }).inputValue()).toBe(
      c.cvu,
    );
    expect(await page.getByRole('button', { name: 'Copiar CVU' }).isVisible()).toBe(true);
    await page.getByRole('radio', { name: 'Código QR' }).check();
    expect(
      await page
        .getByRole('img', { name: /Código QR para pagar/ })
        .locator('path')
        .count(),
    ).toBe(1);
    await page.getByRole('radio', { name: 'Transferencia bancaria' }).check();
    const controls = await expectNamedControls(page);
    expect(controls.length).toBe(12);
    await expectFitsWidth(page);
    await screenshot(page, 'checkout');

    // An amount above what is owed is refused on the page, nothing changes.
    await page.getByRole('textbox', { name: 'Monto a pagar ahora' }).fill('5000');
    await page.getByRole('button', { name: 'Pagar este monto' }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toContain('supera lo que queda por pagar');
    // Emptied for retyping; the refusal says what was read.
    expect(await page.getByRole('textbox', { name: 'Monto a pagar ahora' }).inputValue()).toBe('');
    // The refusal is a 400 page, which Chromium reports; nothing else went wrong so far.
    expect(watched.problems).toEqual([expect.stringContaining('status of 400')]);
    watched.problems.length = 0;
    await expectNamedControls(page);
    await expectFitsWidth(page);

    // Part of it, with a debit card, typed the Argentine way.
    await page.getByRole('radio', { name: 'Tarjeta de débito' }).check();
    await page.getByRole('textbox', { name: 'Monto a pagar ahora' }).fill('600,00');
    await page.getByRole('button', { name: 'Pagar este monto' }).click();
    await page.waitForURL(/\?tx=\d+$/);
    expect(await page.getByRole('status').first().textContent()).toContain(
      'Quedan $\u00a0900,00 por pagar',
    );
    // "Ya pagado $ 600,00 de $ 1.500,00" at 375 px: each amount whole on its line.
    expect(await page.locator('main').textContent()).toContain('$\u00a0600,00 de $\u00a01.500,00');
    expect(await page.evaluate(BROKEN_AMOUNTS)).toEqual([]);
    expect(await page.getByRole('button', { name: 'Simular pago rechazado' }).count()).toBe(0);
    expect((await ver(sb, c.id)).estado).toBe('PAGADA_PARCIALMENTE');

    // The rest, by QR: back to the shop.
    await page.getByRole('radio', { name: 'Código QR' }).check();
    await submitRedirects(page, 'Pagar el total ($ 900,00)', 'pagar', `${SHOP}/gracias`);

    const after = await ver(sb, c.id);
    expect(after.estado).toBe('PAGADA');
    expect(after.monto_cobrado).toBe('1500.00');

    const events = await waitFor('payment.approved', () => {
      const mine = receiver.got.filter((g) => g.body.cobro_id === c.id);
      return mine.some((g) => g.event === 'payment.approved') ? mine : undefined;
    });
    expect(events.every((g) => g.verified)).toBe(true);
    const names = events.map((g) => g.event);
    expect(names.indexOf('payment.partially_paid')).toBeGreaterThanOrEqual(0);
    expect(names.indexOf('payment.partially_paid')).toBeLessThan(names.indexOf('payment.approved'));
    const partial = events.find((g) => g.event === 'payment.partially_paid')!.body;
    expect(partial).toMatchObject({ estado: 'PAGADA_PARCIALMENTE', monto_cobrado: '600.00' });
    expect(events.find((g) => g.event === 'payment.approved')!.body).toMatchObject({
      estado: 'PAGADA',
      monto_cobrado: '1500.00',
    });

    // The link now shows the state instead of the buttons, and a receipt.
    await page.goto(c.url);
    expect(await page.getByRole('status').textContent()).toContain('ya está pagado');
    expect(await page.getByRole('button').count()).toBe(0);
    await page.getByRole('link', { name: 'Ver el comprobante' }).click();
    const receipt = await page.locator('main').textContent();
    expect(receipt).toContain('$\u00a0600,00');
    expect(receipt).toContain('$\u00a0900,00');
    expect(receipt).toContain('Total pagado$\u00a01.500,00');
    await expectFitsWidth(page);
    await screenshot(page, 'checkout-recibo');
    expect(watched.problems).toEqual([]);
    await page.close();
  });

  it('rejecting sends the payer to error_url and cancels the request', async () => {
    const c = await crear(sb, [
      '--concepto',
      'Seña',
      '--monto',
      '2000',
      '--no-qr',
      '--success-url',
      `${SHOP}/gracias`,
      '--error-url',
      `${SHOP}/error`,
    ]);
    const page = await context.newPage();
    const watched = watchPage(page);
    await page.goto(c.url);
    expect(await page.getByRole('radio', { name: 'Código QR' }).count()).toBe(0);
    expect(await page.getByRole('img').count()).toBe(0);
    await page.getByRole('radio', { name: 'Tarjeta de crédito' }).check();
    await submitRedirects(page, 'Simular pago rechazado', 'rechazar', `${SHOP}/error`);
    expect((await ver(sb, c.id)).estado).toBe('CANCELADO');
    const rejected = await waitFor('payment.rejected', () =>
      receiver.got.find((g) => g.body.cobro_id === c.id && g.event === 'payment.rejected'),
    );
    expect(rejected.verified).toBe(true);

    await page.goto(c.url);
    expect(await page.getByRole('status').textContent()).toContain('fue cancelado');
    expect(await page.getByRole('button').count()).toBe(0);
    expect(watched.problems).toEqual([]);
    await page.close();
  });

  it('an unknown code is a 404 page, escaped', async () => {
    const page = await context.newPage();
    const res = await page.goto(`${sb.base_url}/pagar/NO%3Cb%3EEXISTE`);
    expect(res?.status()).toBe(404);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
      'No encontramos este cobro',
    );
    expect(await page.locator('main').textContent()).toContain('NO<b>EXISTE');
    expect(await page.getByRole('note').textContent()).toContain('SANDBOX');
    await expectFitsWidth(page);
    await page.close();
  });
  it('shows only what the chosen method needs, at 1280 and 375 px', async () => {
    const c = await crear(sb, ['--concepto', 'Pedido 77', '--monto', '185000.50']);
    const page = await context.newPage();
    const watched = watchPage(page);
    for (const [width, height] of LAPTOP_AND_PHONE) {
      await page.setViewportSize({ width, height });
      await page.goto(c.url);
      for (const [name, parts] of [
        ['Transferencia bancaria', ['cvu', 'copiar']],
        ['Código QR', ['qr']],
        ['Tarjeta de débito', ['tarjeta']],
        ['Tarjeta de crédito', ['tarjeta']],
        ['Tarjeta prepaga', ['tarjeta']],
        ['Transferencia bancaria', ['cvu', 'copiar']],
      ] as const) {
        await page.getByRole('radio', { name }).check();
        expect(await shownParts(page), `${name} at ${width} px`).toEqual(parts);
        await expectFitsWidth(page, width);
      }
      expect(await page.evaluate(API_AMOUNTS), `at ${width} px`).toEqual([]);
      expect(await page.locator('main').textContent()).toContain('$\u00a0185.000,50');
      await page.getByRole('radio', { name: 'Código QR' }).check();
      // The QR whole inside the window.
      const qr = (await page.getByRole('img', { name: /Código QR para pagar/ }).boundingBox())!;
      expect(qr.x).toBeGreaterThanOrEqual(0);
      expect(qr.x + qr.width, `the QR at ${width} px`).toBeLessThanOrEqual(width);
      await expectNamedControls(page);
      await screenshot(page, `checkout-qr-${width}`);
    }
    expect(watched.problems).toEqual([]);
    await page.close();
  });

  it('a refused amount is emptied, with the focus, so what is typed next is the amount, at 1280 and 375 px', async () => {
    for (const [width, height] of LAPTOP_AND_PHONE) {
      const c = await crear(sb, ['--concepto', `Cuota ${width}`, '--monto', '5000']);
      const page = await context.newPage();
      const watched = watchPage(page);
      await page.setViewportSize({ width, height });
      await page.goto(c.url);
      const field = page.getByRole('textbox', { name: 'Monto a pagar ahora' });
      await field.fill('4.800');
      await page.getByRole('button', { name: 'Pagar este monto' }).click();
      // Said in the payer's notation, as every amount of the page.
      await expect
        .poll(() => page.getByRole('alert').textContent())
        .toBe('"4.800" puede ser $\u00a04.800,00 o $\u00a04,80: escribí 4.800,00 o 4,80');
      expect(await page.evaluate(API_AMOUNTS), `at ${width} px`).toEqual([]);
      expect(await field.inputValue(), `at ${width} px`).toBe('');
      expect(await page.evaluate('document.activeElement.id'), `at ${width} px`).toBe('monto');
      // The person taps the field, as on a phone, and types the amount again.
      await field.click();
      await page.keyboard.type('4.800,00');
      expect(await field.inputValue(), `at ${width} px`).toBe('4.800,00');
      await page.getByRole('button', { name: 'Pagar este monto' }).click();
      await page.waitForURL(/\?tx=\d+$/);
      expect(await page.getByRole('status').first().textContent()).toContain(
        'Pago de $\u00a04.800,00 acreditado',
      );
      expect((await ver(sb, c.id)).monto_cobrado).toBe('4800.00');
      expect(await page.evaluate(API_AMOUNTS), `at ${width} px`).toEqual([]);
      await expectFitsWidth(page, width);
      expect(watched.problems).toEqual([expect.stringContaining('status of 400')]);
      await page.close();
    }
  });
});
