// The sandbox's dashboard in a real browser (Debian's Chromium through
// playwright-core), modelled on the checkout's browser test: connect with the test
// key, create a request from the dashboard, pay part of it on its checkout page in
// another tab and see the state and the event appear on the dashboard without a
// reload, resend a notification, refund from the dashboard (svc devolver's checks
// first), move the clock to expire another request, and check each result with
// `svc … --json`. Controls named in Chromium's accessibility tree, no horizontal
// scroll at 375 px, no console errors, no request leaving loopback; screenshots in
// test-artifacts/ when SVC_TEST_SCREENSHOTS=1 (helpers/browser.ts).
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  expectFitsWidth,
  expectNamedControls,
  BROWSER_MISSING,
  screenshot,
  type startReceiver,
  waitFor,
  useBrowserRig,
  watch,
} from '../../helpers/browser.js';
import { svc } from '../../helpers/inproc.js';
import type { Sandbox } from '../../helpers/sandbox.js';
import { skipBecause } from '../../helpers/skips.js';

/** The live stream is cut when its page closes; that is not a failure. */
const streamCut = (url: string) => url.endsWith('/_sandbox/stream');

/** How many delivery attempts the dashboard lists, over all the pages of its list ("1–15 de 33"). */
async function listed(page: Page): Promise<number> {
  const m = /de (\d+)$/.exec((await page.locator('#notif-pagina').textContent()) ?? '');
  return m ? Number(m[1]) : 0;
}

/** Waits until the dashboard lists every delivery attempt the sandbox made (nothing more is on its way). */
async function deliveriesShown(sb: Sandbox, page: Page): Promise<void> {
  await expect
    .poll(async () => {
      const made = (await sb.api('GET', '/_sandbox/entregas')).body.data.length;
      const shown = await listed(page);
      return made === shown ? 'all shown' : `${shown} of ${made}`;
    })
    .toBe('all shown');
}

async function json(sb: Sandbox, args: string[]): Promise<any> {
  const r = await svc([...args, '--json'], { env: sb.env });
  expect(r.exitCode, r.stderr).toBe(0);
  const j = JSON.parse(r.stdout);
  return j.data ?? j;
}

describe.skipIf(skipBecause(import.meta.url, BROWSER_MISSING))('the dashboard in a browser', () => {
  // No retries: once the clock is moved on, the receiver refuses the timestamps, and
  // retries arriving while the accessibility tree is read would change the controls.
  // Only the sandbox: anything else would leave loopback, and is refused and counted.
  const rig = useBrowserRig({ retrySchedule: [] });
  let sb: Sandbox;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let context: BrowserContext;
  const problems: string[] = [];
  let leftLoopback: string[] = [];
  beforeAll(() => void ({ sb, receiver, context, leftLoopback } = rig));

  it('creates, sees a payment arrive live, resends, refunds and expires by the clock, as svc sees it', async () => {
    const page = await context.newPage();
    watch(page, problems, streamCut);
    const res = await page.goto(`${sb.base_url}/`);
    expect(res?.status()).toBe(200);
    expect(await page.getByRole('note').textContent()).toContain('SANDBOX');

    // The key, once; the tab keeps it (sessionStorage), so a reload stays connected.
    await page.getByRole('textbox', { name: 'Clave de API de test' }).fill(sb.api_key);
    await page.getByRole('button', { name: 'Conectar' }).click();
    await expect.poll(() => page.locator('#conexion').textContent()).toContain('se actualiza solo');
    expect(await page.locator('#conexion').textContent()).toContain('Comercio de Prueba');
    await page.reload();
    await expect.poll(() => page.locator('#conexion').textContent()).toContain('se actualiza solo');
    expect(await page.getByRole('button', { name: 'Conectar' }).isVisible()).toBe(false);
    // Everything below happens on this one load of the page.
    await page.evaluate('window.sinRecargar = true');

    // Create a request from the dashboard; its concept holds markup, shown as text.
    const concepto = 'Pedido <b id="inyectado">1042</b> & "cía" <img src=x onerror=alert(1)>';
    await page.getByRole('textbox', { name: 'Concepto' }).fill(concepto);
    await page.getByRole('textbox', { name: 'Monto', exact: true }).fill('1500.00');
    const referencia = '<i id="ref-inyectada">r-1</i>';
    await page.getByRole('textbox', { name: 'Referencia (opcional)' }).fill(referencia);
    await page.getByRole('button', { name: 'Crear cobro' }).click();
    await expect.poll(() => page.locator('#detalle-aviso').textContent()).toContain('creado');
    const [c] = (await json(sb, ['cobro', 'listar'])) as any[];
    expect(c).toMatchObject({ concepto, referencia, monto: '1500.00', estado: 'PENDIENTE' });
    expect(await page.locator('#detalle-aviso').textContent()).toContain(
      `Cobro ${c.id} creado (${c.codigo})`,
    );
    // The list and the detail are fetched, then the notice shows in the detail, where the page took the person.
    await expect
      .poll(() =>
        page.getByRole('heading', { level: 2, name: `Cobro ${c.id} · ${c.codigo}` }).isVisible(),
      )
      .toBe(true);
    await expect.poll(() => page.locator('#detalle-datos').textContent()).toContain(concepto);
    await expect.poll(() => page.locator('#lista-cobros').textContent()).toContain(concepto);
    expect(await page.locator('#detalle-datos').textContent()).toContain(referencia);
    expect(await page.locator('#lista-cobros').textContent()).toContain(referencia);
    expect(await page.locator('#inyectado, #ref-inyectada, main img, main b, main i').count()).toBe(
      0,
    );
    expect(
      await page.getByRole('link', { name: 'Abrir la página de pago' }).getAttribute('href'),
    ).toBe(c.url);

    await deliveriesShown(sb, page);
    const controls = await expectNamedControls(page);
    for (const name of [
      'Pagar',
      'Rechazar pago',
      'Vencer cobro',
      'Adelantar el reloj',
      'Agregar falla',
      'Mostrar claves y secreto',
    ]) {
      expect(
        controls.some((l) => l.includes(`button "${name}"`)),
        name,
      ).toBe(true);
    }
    await expectFitsWidth(page);
    await screenshot(page, 'panel-375');

    // The payer pays part on the checkout page, in another tab.
    const payer = await context.newPage();
    watch(payer, problems, streamCut);
    await payer.goto(c.url);
    await payer.getByRole('radio', { name: 'Transferencia bancaria' }).check();
    await payer.getByRole('textbox', { name: 'Monto a pagar ahora' }).fill('600,00');
    await payer.getByRole('button', { name: 'Pagar este monto' }).click();
    await payer.waitForURL(/\?tx=\d+$/);
    await payer.close();

    // The dashboard shows it by itself: the state, the event, the delivery.
    await expect
      .poll(() => page.locator('#detalle-datos').textContent())
      .toContain('PAGADA_PARCIALMENTE');
    await expect
      .poll(() => page.locator('#t-ev').textContent())
      .toContain('payment.partially_paid');
    await expect
      .poll(() => page.locator('#lista-cobros').textContent())
      .toContain('cobrado 600.00');
    await expect
      .poll(() => page.locator('#t-notif').textContent())
      .toContain('payment.partially_paid');
    await expect
      .poll(() => page.locator('#log').textContent())
      .toContain(`POST /pagar/${c.codigo}/pagar`);
    expect(await page.evaluate('window.sinRecargar')).toBe(true);
    expect(await json(sb, ['cobro', 'ver', String(c.id)])).toMatchObject({
      estado: 'PAGADA_PARCIALMENTE',
      monto_cobrado: '600.00',
    });
    const events = (await sb.api('GET', '/_sandbox/eventos')).body.data.filter(
      (e: any) => e.body.cobro_id === c.id,
    );
    expect(events.map((e: any) => e.body.event)).toEqual([
      'payment.created',
      'payment.partially_paid',
    ]);

    // Resend the partial payment's notification: the receiver gets the same body again.
    const partial = await waitFor('the partial payment delivered', () =>
      receiver.got.find((g) => g.body.cobro_id === c.id && g.event === 'payment.partially_paid'),
    );
    await page
      .getByRole('button', { name: /^Reenviar el evento \d+ \(payment\.partially_paid/ })
      .first()
      .click();
    await expect.poll(() => page.locator('#notif-aviso').textContent()).toContain('reenviado');
    const twice = await waitFor('the resend', () => {
      const got = receiver.got.filter(
        (g) => g.body.cobro_id === c.id && g.event === 'payment.partially_paid',
      );
      return got.length === 2 ? got : undefined;
    });
    expect(twice.every((g) => g.verified)).toBe(true);
    expect(twice[1]!.raw).toBe(partial.raw);
    await expect.poll(() => page.locator('#t-notif').textContent()).toContain('reenvío');

    // Refund: what does not fit is refused on the page (nothing sent), then a confirmed part.
    await page.getByRole('textbox', { name: 'Monto a devolver' }).fill('700');
    await page.getByRole('button', { name: 'Revisar devolución' }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toContain('supera lo que queda por devolver');
    expect(await json(sb, ['devoluciones', 'listar'])).toEqual([]);
    await page.getByRole('textbox', { name: 'Monto a devolver' }).fill('200.5');
    await page.getByRole('button', { name: 'Revisar devolución' }).click();
    await expect
      .poll(() => page.locator('#devolver-pregunta').textContent())
      .toContain(`¿Devolver 200.50 del cobro ${c.id}`);
    await page.getByRole('button', { name: 'Confirmar devolución' }).click();
    await expect
      .poll(() => page.locator('#devolver-aviso').textContent())
      .toContain('devuelto 200.50');
    await expect
      .poll(() => page.locator('#detalle-datos').textContent())
      .toContain('DEVUELTA_PARCIALMENTE');
    await expect
      .poll(() => page.locator('#t-ev').textContent())
      .toContain('payment.partially_refunded');
    const refunds = (await json(sb, ['devoluciones', 'listar'])) as any[];
    expect(refunds.map((d) => [d.cobro_id, d.monto, d.estado])).toEqual([
      [c.id, '200.50', 'DEVUELTA_PARCIALMENTE'],
    ]);
    expect(await json(sb, ['cobro', 'ver', String(c.id)])).toMatchObject({
      estado: 'DEVUELTA_PARCIALMENTE',
    });

    // Another request, made with svc, appears by itself; the clock moved on 8 days expires it.
    const otra = await json(sb, ['cobro', 'crear', '--concepto', 'Seña', '--monto', '2000']);
    await expect.poll(() => page.locator('#lista-cobros').textContent()).toContain(otra.codigo);
    await page.getByRole('combobox', { name: 'Adelantar' }).selectOption('8d');
    await page.getByRole('button', { name: 'Adelantar el reloj' }).click();
    await expect
      .poll(() => page.locator('#reloj-aviso').textContent())
      .toContain(`Vencieron los cobros ${otra.id}`);
    expect(await json(sb, ['cobro', 'ver', String(otra.id)])).toMatchObject({
      estado: 'CANCELADO',
    });
    await page.getByRole('button', { name: new RegExp(otra.codigo) }).click();
    await expect.poll(() => page.locator('#detalle-datos').textContent()).toContain('CANCELADO');
    await expect.poll(() => page.locator('#t-ev').textContent()).toContain('payment.rejected');
    // A partly paid request does not expire.
    expect(await json(sb, ['cobro', 'ver', String(c.id)])).toMatchObject({
      estado: 'DEVUELTA_PARCIALMENTE',
    });
    // Filtering by state, as `q` and `estado` do on the API.
    await page.getByRole('combobox', { name: 'Estado' }).selectOption('CANCELADO');
    await expect.poll(() => page.locator('#cobros-n').textContent()).toBe('1 cobro');
    await page.getByRole('combobox', { name: 'Estado' }).selectOption('');
    await expect.poll(() => page.locator('#cobros-n').textContent()).toBe('2 cobros');
    // The search is sent 250 ms after the last key: wait for its list, not for a count the
    // state filter above already showed.
    await page.getByRole('searchbox', { name: /Buscar/ }).fill('1042');
    await expect.poll(() => page.locator('#lista-cobros').textContent()).not.toContain(otra.codigo);
    expect(await page.locator('#cobros-n').textContent()).toBe('1 cobro');
    expect(await page.locator('#lista-cobros').textContent()).toContain(c.codigo);

    await deliveriesShown(sb, page);
    // The keys and the secret: not on the page until asked.
    expect(await page.content()).not.toContain(sb.webhook_secret);
    await page.getByRole('button', { name: 'Mostrar claves y secreto' }).click();
    expect(
      await page.getByRole('textbox', { name: 'Secreto de notificaciones' }).inputValue(),
    ).toBe(sb.webhook_secret);
    expect(
      await page.getByRole('button', { name: 'Copiar secreto de notificaciones' }).isVisible(),
    ).toBe(true);
    await expectNamedControls(page);
    await page.getByRole('button', { name: 'Ocultar claves y secreto' }).click();
    expect(await page.content()).not.toContain(sb.webhook_secret);

    await expectNamedControls(page);
    await expectFitsWidth(page);
    await screenshot(page, 'panel-375-after');
    await page.setViewportSize({ width: 1440, height: 900 });
    await expectFitsWidth(page, 1440);
    await screenshot(page, 'panel-1440');

    expect(await page.evaluate('window.sinRecargar')).toBe(true);
    // After every live update, still text and nothing else.
    expect(await page.locator('#inyectado, #ref-inyectada, main img, main b, main i').count()).toBe(
      0,
    );
    expect(problems).toEqual([]);
    expect(leftLoopback).toEqual([]);
    await page.close();
  }, 180_000);

  it('a delivery the live stream showed stays when a reload read before it lands afterwards', async () => {
    const page = await context.newPage();
    watch(page, problems, streamCut);
    await page.goto(`${sb.base_url}/`);
    await page.getByRole('textbox', { name: 'Clave de API de test' }).fill(sb.api_key);
    await page.getByRole('button', { name: 'Conectar' }).click();
    await expect.poll(() => page.locator('#conexion').textContent()).toContain('se actualiza solo');
    await sb.api('POST', '/v1/cobros', { concepto: 'Carrera', monto: '10.00' });
    await deliveriesShown(sb, page);
    const buttons = () => listed(page);
    // The next reload of the deliveries is read now, but answered only after a resend
    // made meanwhile has reached the page through the live stream.
    let stale!: () => void;
    const answered = new Promise<void>((resolve) => (stale = resolve));
    let held = 0;
    await page.route('**/_sandbox/entregas', async (route) => {
      if (held++ > 0) return route.continue();
      const response = await route.fetch();
      const before = await buttons();
      const [last] = (
        (await sb.api('GET', '/_sandbox/entregas')).body.data as { evento_id: number }[]
      ).slice(-1);
      expect(
        (await sb.api('POST', `/_sandbox/eventos/${last!.evento_id}/reenviar`, {})).status,
      ).toBe(202);
      await waitFor('the resend shown live', async () =>
        (await buttons()) > before ? true : undefined,
      );
      await route.fulfill({ response });
      stale();
    });
    await page.getByRole('combobox', { name: 'Adelantar' }).selectOption('1h');
    await page.getByRole('button', { name: 'Adelantar el reloj' }).click();
    await answered;
    await page.unrouteAll({ behavior: 'wait' });
    await deliveriesShown(sb, page);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('a wrong key is refused on the page and nothing else shows', async () => {
    const page = await context.newPage();
    watch(page, problems, streamCut);
    await page.goto(`${sb.base_url}/_sandbox/panel`);
    await page.getByRole('textbox', { name: 'Clave de API de test' }).fill('svc_test_noexiste');
    await page.getByRole('button', { name: 'Conectar' }).click();
    await expect
      .poll(() => page.getByRole('alert').first().textContent())
      .toContain('no aceptó la clave');
    expect(await page.getByRole('button', { name: 'Crear cobro' }).isVisible()).toBe(false);
    expect(await page.evaluate("sessionStorage.getItem('svc-panel-clave')")).toBeNull();
    await expectNamedControls(page);
    await expectFitsWidth(page);
    // The 401 is the one error Chromium reports.
    expect(problems).toEqual([expect.stringContaining('status of 401')]);
    problems.length = 0;
    await page.close();
  });
});
