// The dashboard as a page a person works in, on a laptop (1280×800) and a phone
// (375×812), with enough requests and notifications to fill it: every section one
// click away from anywhere (the navigation bar stays on screen), long lists paged,
// every button inside the screen and inside any box that scrolls, no sideways
// scroll, a state badge on one line, and a form's error beside that form, on screen.
// Amounts typed the Spanish way (1.500,50) are read as svc's prompts read them, said
// back in the API's notation, and 1.500 is refused naming both readings, in the same
// words. One page load, resized once; screenshots in test-artifacts/ when
// SVC_TEST_SCREENSHOTS=1 (helpers/browser.ts).
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  expectFitsWidth,
  BROWSER_MISSING,
  LAPTOP_AND_PHONE,
  screenshot,
  splitAcrossLines,
  useBrowserRig,
  watch,
} from '../../helpers/browser.js';
import type { Sandbox } from '../../helpers/sandbox.js';
import { parseTypedAmount } from '../../../src/domain/money.js';
import { skipBecause } from '../../helpers/skips.js';

const NO_BROWSER = skipBecause(import.meta.url, BROWSER_MISSING);

const REQUESTS = 30;

/** What svc's prompts and the checkout answer to an amount that reads two ways: the dashboard says the same. */
function refusalOf(typed: string): string {
  try {
    parseTypedAmount(typed);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`${typed} was read`);
}

/**
 * Run in the page (a string, as this Node-typed file has no DOM types): every visible
 * button or link that is cut by the window's width or by a box that scrolls or clips,
 * and every state badge whose text takes more than one line.
 */
const PROBLEMS = `(() => {
  const out = [];
  const W = document.documentElement.clientWidth;
  const name = (e) => (e.getAttribute('aria-label') || e.textContent || e.id).trim().slice(0, 60);
  for (const e of document.querySelectorAll('main button, main a[href], nav a[href]')) {
    const r = e.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    if (r.left < 0 || r.right > W + 0.5) out.push('outside the window: ' + name(e) + ' ' + Math.round(r.left) + '..' + Math.round(r.right));
    for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (s.overflowX === 'visible') continue;
      const b = p.getBoundingClientRect();
      if (r.left < b.left - 0.5 || r.right > b.right + 0.5) out.push('cut by a box (' + s.overflowX + '): ' + name(e) + ' ' + Math.round(r.right) + ' > ' + Math.round(b.right));
    }
  }
  for (const e of document.querySelectorAll('.estado')) {
    if (e.getClientRects().length === 0) continue;
    const range = document.createRange();
    range.selectNodeContents(e);
    const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
    if (tops.size > 1) out.push('badge on ' + tops.size + ' lines: ' + e.textContent);
  }
  return out;
})()`;

/**
 * Run in the page: what is cut at this width. A box that scrolls sideways (a table at
 * 375 px cut its amounts at the box's edge: "1831." of 1831.50), and a field whose
 * hint does not fit in it ("ej. 1500,50 o 150").
 */
const CUT = `(() => {
  const out = [];
  for (const b of document.querySelectorAll('.scroll')) {
    if (b.getClientRects().length === 0) continue;
    if (b.scrollWidth > b.clientWidth + 1)
      out.push('scrolls sideways: ' + b.getAttribute('aria-labelledby') + ' ' + b.scrollWidth + ' > ' + b.clientWidth);
  }
  const ctx = document.createElement('canvas').getContext('2d');
  for (const i of document.querySelectorAll('input[placeholder]')) {
    if (i.getClientRects().length === 0) continue;
    const s = getComputedStyle(i);
    ctx.font = s.font;
    const room = i.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
    const need = ctx.measureText(i.placeholder).width;
    if (need > room) out.push('hint cut: ' + i.id + ' ' + Math.round(need) + ' > ' + Math.round(room));
  }
  return out;
})()`;

/** The words of the sandbox's time and zone that are split across lines (Argenti|na). */
const SPLIT_WORDS = splitAcrossLines("document.getElementById('reloj-ahora')", /[^\s/()]+/g);

interface Box {
  top: number;
  bottom: number;
}

async function box(page: Page, selector: string): Promise<Box> {
  const b = await page.locator(selector).boundingBox();
  expect(b, selector).not.toBeNull();
  return { top: b!.y, bottom: b!.y + b!.height };
}

/** A new page at `width`, connected with `key`, its stream up; the caller closes it. */
async function connected(
  context: BrowserContext,
  base: string,
  key: string,
  width: number,
  height: number,
  problems: string[],
): Promise<Page> {
  const page = await context.newPage();
  watch(page, problems, (url) => url.endsWith('/_sandbox/stream'));
  await page.setViewportSize({ width, height });
  await page.goto(`${base}/`);
  await page.getByRole('textbox', { name: 'Clave de API de test' }).fill(key);
  await page.getByRole('button', { name: 'Conectar' }).click();
  await expect.poll(() => page.locator('#conexion').textContent()).toContain('se actualiza solo');
  return page;
}

describe.skipIf(NO_BROWSER)('the dashboard at 1280 and 375 px', () => {
  const rig = useBrowserRig({ retrySchedule: [] });
  let sb: Sandbox;
  let context: BrowserContext;
  beforeAll(async () => {
    ({ sb, context } = rig);
    const ids: number[] = [];
    for (let i = 1; i <= REQUESTS; i++) {
      const r = await sb.api('POST', '/v1/cobros', {
        concepto: `Pedido ${i} de la semana, dos unidades`,
        monto: '2000.00',
        referencia: `ref-${i}`,
      });
      expect(r.status, r.text).toBe(201);
      ids.push(r.body.data.id);
    }
    // The longest badges: one partly refunded, one partly paid.
    const [last, before] = [ids[REQUESTS - 1], ids[REQUESTS - 2]];
    expect(
      (await sb.api('POST', `/_sandbox/cobros/${last}/pagar`, { medio: 'transferencia' })).status,
    ).toBe(200);
    expect(
      (await sb.api('POST', `/v1/cobros/${last}/devoluciones`, { monto: '500.00' })).status,
    ).toBe(201);
    expect(
      (
        await sb.api('POST', `/_sandbox/cobros/${before}/pagar`, {
          medio: 'transferencia',
          monto: '500.00',
        })
      ).status,
    ).toBe(200);
  }, 60_000);

  // One long walk through a page on a machine that may be busy: it waits on what the page shows, never on time.
  it('reaches every section, pages long lists, keeps buttons on screen and errors beside their form', async () => {
    const problems: string[] = [];
    const page = await context.newPage();
    watch(page, problems, (url) => url.endsWith('/_sandbox/stream'));
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${sb.base_url}/`);
    await page.getByRole('textbox', { name: 'Clave de API de test' }).fill(sb.api_key);
    await page.getByRole('button', { name: 'Conectar' }).click();
    await expect.poll(() => page.locator('#conexion').textContent()).toContain('se actualiza solo');

    // An amount typed the Spanish way is read as svc's prompts read it and said back
    // in the API's notation, as they say it, before it is sent.
    await page.locator('#crear-concepto').fill('Seña en pesos');
    await page.locator('#crear-monto').fill('1.500,50');
    await expect
      .poll(() => page.locator('#crear-monto-lectura').textContent())
      .toBe('1.500,50 → 1500.50');
    await page.getByRole('button', { name: 'Crear cobro' }).click();
    await expect
      .poll(() => page.locator('#detalle-aviso').textContent())
      .toMatch(/^Cobro \d+ creado \(\w+\): 1500\.50, PENDIENTE\.$/);
    const [nuevo] = (await sb.api('GET', '/v1/cobros')).body.data;
    expect(nuevo).toMatchObject({ concepto: 'Seña en pesos', monto: '1500.50' });
    expect(await page.locator('#crear-monto-lectura').textContent()).toBe('');

    await page.locator('#lista-cobros button', { hasText: 'DEVUELTA_PARCIALMENTE' }).click();
    await expect
      .poll(() => page.locator('#detalle-datos').textContent())
      .toContain('DEVUELTA_PARCIALMENTE');
    await expect
      .poll(async () => (await page.locator('#t-notif').textContent()) ?? '')
      .toContain('payment.partially_refunded');

    for (const [width, height] of LAPTOP_AND_PHONE) {
      await page.setViewportSize({ width, height });
      await page.evaluate('window.scrollTo(0, 0)');
      await expectFitsWidth(page, width);
      expect(await page.evaluate(PROBLEMS), `at ${width} px`).toEqual([]);

      // Long lists come a page at a time: the requests and the notifications.
      expect(await page.locator('#lista-cobros > li').count()).toBeLessThanOrEqual(20);
      expect(await page.locator('#t-notif > tr, #t-notif > li').count()).toBeLessThanOrEqual(20);
      const notif = await box(page, '#notificaciones');
      expect(notif.bottom - notif.top, `the notifications at ${width} px`).toBeLessThan(
        2.5 * height,
      );

      // Every section one click away, from the bottom of the page too: the bar stays on screen.
      await page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
      const nav = page.getByRole('navigation', { name: 'Secciones del panel' });
      const links = await nav.getByRole('link').all();
      expect(links.length).toBe(7);
      for (const link of links) {
        const bar = await nav.boundingBox();
        expect(bar!.y, `the bar at ${width} px`).toBeGreaterThanOrEqual(-0.5);
        expect(bar!.y + bar!.height).toBeLessThanOrEqual(height);
        const target = (await link.getAttribute('href'))!;
        await link.click();
        // Its heading on screen, below the bar (the last one cannot scroll higher than the page's end).
        await expect
          .poll(async () => (await box(page, target)).top, { message: `${target} at ${width} px` })
          .toBeLessThan(height - 80);
        expect((await box(page, target)).top, `${target} at ${width} px`).toBeGreaterThanOrEqual(
          bar!.height - 1,
        );
      }

      // The next page of requests, then back.
      await page.getByRole('link', { name: 'Cobros' }).click();
      await page.getByRole('button', { name: 'Cobros más viejos' }).click();
      await expect
        .poll(() => page.locator('#cobros-pagina').textContent())
        .toBe(`16–30 de ${REQUESTS + 1}`);
      expect(await page.locator('#lista-cobros').textContent()).toContain('Pedido 2 de la semana');
      expect(await page.evaluate(PROBLEMS), `at ${width} px, second page`).toEqual([]);
      await page.getByRole('button', { name: 'Cobros más nuevos' }).click();
      await expect
        .poll(() => page.locator('#lista-cobros').textContent())
        .toContain(`Pedido ${REQUESTS} de la semana`);

      // A refusal is shown beside the form that was sent, where the person is looking.
      for (const [form, fill, button] of [
        ['#form-falla', ['#falla-ruta', 'cobros'], 'Agregar falla'],
        ['#form-crear', ['#crear-monto', '1.500'], 'Crear cobro'],
      ] as const) {
        await page.locator(form).scrollIntoViewIfNeeded();
        if (form === '#form-crear') await page.locator('#crear-concepto').fill('Prueba');
        await page.locator(fill[0]).fill(fill[1]);
        await page.getByRole('button', { name: button }).click();
        // Its zone's alert (the previous form's may still show until this answer arrives), then the only one.
        const alert = page.locator(`[data-zona]:has(${form}) [role=alert]`);
        await expect
          .poll(() => alert.textContent(), { message: `${form}'s error at ${width} px` })
          .not.toBe('');
        expect(await page.getByRole('alert').filter({ hasText: /\S/ }).count()).toBe(1);
        // 1.500 reads two ways: refused before sending, naming both, in svc's words.
        if (form === '#form-crear') expect(await alert.textContent()).toBe(refusalOf('1.500'));
        if (form === '#form-crear')
          expect(refusalOf('1.500')).toContain('puede ser 1500.00 o 1.50');
        const f = await box(page, form);
        const a = (await alert.boundingBox())!;
        expect(a.y, `${form}'s error at ${width} px`).toBeGreaterThanOrEqual(f.top);
        expect(a.y - f.bottom, `${form}'s error at ${width} px`).toBeLessThan(80);
        expect(a.y).toBeGreaterThanOrEqual(0);
        expect(a.y + a.height).toBeLessThanOrEqual(height);
        expect(await page.locator('#error').textContent()).toBe('');
      }
      await page.locator('#falla-ruta').fill('/v1/cobros*');

      await page.evaluate('window.scrollTo(0, 0)');
      await screenshot(page, `panel-layout-${width}`);
    }
    // Each refusal is a 400 Chromium reports; nothing else.
    expect(problems.filter((p) => !p.includes('status of 400'))).toEqual([]);
    await page.close();
  }, 180_000);
  // "en vivo" read as svc's live mode (real money): the stream says what it does, the mode is said apart.
  it('says the mode and that the page updates itself, never "en vivo", at 1280 and 375 px', async () => {
    const problems: string[] = [];
    for (const [key, mode] of [
      [sb.api_key, 'modo test'],
      [sb.api_key_live!, 'modo live de ensayo, sin dinero real'],
    ] as const) {
      const page = await connected(context, sb.base_url, key, ...LAPTOP_AND_PHONE[0], problems);
      for (const [width, height] of LAPTOP_AND_PHONE) {
        await page.setViewportSize({ width, height });
        const status = (await page.locator('#conexion').textContent())!;
        expect(status, `at ${width} px`).toMatch(
          new RegExp(
            `^Conectado como .+ \\(comercio \\d+\\) · ${mode} · el panel se actualiza solo$`,
          ),
        );
        const shown = await page.locator('body').innerText();
        expect(shown, `at ${width} px`).not.toMatch(/en vivo/i);
        expect(shown).not.toContain(key);
        expect(await page.content()).not.toContain(key);
        // Amounts as svc and the API write them (2000.00), never as the payer's page does.
        if (key === sb.api_key)
          await expect
            .poll(() => page.locator('#lista-cobros').innerText())
            .toMatch(/\b2000\.00\b/);
        const app = await page.locator('#app').innerText();
        expect(app.match(/\$|\d,\d{2}(?!\d)/g), `at ${width} px`).toBeNull();
        // Whole on screen: not cut by the window.
        const b = (await page.locator('#conexion').boundingBox())!;
        expect(b.x).toBeGreaterThanOrEqual(0);
        expect(b.x + b.width, `at ${width} px`).toBeLessThanOrEqual(width);
        await expectFitsWidth(page, width);
        await screenshot(page, `panel-conexion-${width}`);
      }
      await page.close();
    }
    expect(problems).toEqual([]);
  });
  // 4.800 refused, then 4.800,00 typed after a click at the field's end made 4.8004.800,00.
  it('empties a refused amount, with the focus, so what is typed next is the amount, at 1280 and 375 px', async () => {
    const problems: string[] = [];
    const page = await connected(
      context,
      sb.base_url,
      sb.api_key,
      ...LAPTOP_AND_PHONE[0],
      problems,
    );
    await page.locator('#lista-cobros button', { hasText: 'DEVUELTA_PARCIALMENTE' }).click();
    await expect
      .poll(() => page.locator('#detalle-datos').textContent())
      .toContain('DEVUELTA_PARCIALMENTE');
    for (const [width, height] of LAPTOP_AND_PHONE) {
      await page.setViewportSize({ width, height });
      for (const [form, field, button, retyped, read] of [
        ['#form-crear', '#crear-monto', 'Crear cobro', '4.800,00', '4.800,00 → 4800.00'],
        [
          '#form-devolver',
          '#devolver-monto',
          'Revisar devolución',
          '1.500,00',
          '1.500,00 → 1500.00',
        ],
      ] as const) {
        if (form === '#form-crear') await page.locator('#crear-concepto').fill('Prueba');
        const typed = retyped.slice(0, 5);
        await page.locator(field).fill(typed);
        await page.getByRole('button', { name: button }).click();
        const alert = page.locator(`[data-zona]:has(${form}) [role=alert]`);
        await expect
          .poll(() => alert.textContent(), { message: `${form} at ${width} px` })
          .toBe(refusalOf(typed));
        expect(await page.locator(field).inputValue(), `${form} at ${width} px`).toBe('');
        expect(await page.evaluate('document.activeElement.id')).toBe(field.slice(1));
        // The person clicks the field and types the amount again.
        await page.locator(field).click();
        await page.keyboard.type(retyped);
        expect(await page.locator(field).inputValue(), `${form} at ${width} px`).toBe(retyped);
        expect(await page.locator(`${field}-lectura`).textContent()).toBe(read);
        await page.locator(field).fill('');
      }
    }
    // Each refusal happened on the page: nothing was sent, nothing failed.
    expect(problems).toEqual([]);
    await page.close();
  });
  it('shows every table and field whole, nothing to scroll sideways, at 1280 and 375 px', async () => {
    const problems: string[] = [];
    const page = await connected(
      context,
      sb.base_url,
      sb.api_key,
      ...LAPTOP_AND_PHONE[0],
      problems,
    );
    await page.locator('#lista-cobros button', { hasText: 'DEVUELTA_PARCIALMENTE' }).click();
    await expect.poll(() => page.locator('#t-dev').textContent()).toContain('500.00');
    await expect.poll(() => page.locator('#t-tot').textContent()).toContain('2500.00');
    await expect
      .poll(() => page.locator('#reloj-ahora').textContent())
      .toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(America\/Argentina\/Buenos_Aires\)$/);
    for (const [width, height] of LAPTOP_AND_PHONE) {
      await page.setViewportSize({ width, height });
      expect(await page.evaluate(CUT), `at ${width} px`).toEqual([]);
      expect(await page.evaluate(SPLIT_WORDS), `the clock at ${width} px`).toEqual([]);
      expect(await page.evaluate(PROBLEMS), `at ${width} px`).toEqual([]);
      await expectFitsWidth(page, width);
      await screenshot(page, `panel-tablas-${width}`);
    }
    // At 375 px a row is a list, each cell saying its column: the refund's amount.
    const label = (await page.evaluate(
      `(() => { const td = document.querySelectorAll('#t-dev td')[1]; return [td.dataset.label, getComputedStyle(td, '::before').content]; })()`,
    )) as string[];
    expect(label).toEqual(['Monto', '"Monto"']);
    expect(problems).toEqual([]);
    await page.close();
  });
  it('shows each key whole when asked, and nowhere in the page text, at 1280 and 375 px', async () => {
    const problems: string[] = [];
    const page = await connected(
      context,
      sb.base_url,
      sb.api_key,
      ...LAPTOP_AND_PHONE[0],
      problems,
    );
    await page.getByRole('button', { name: 'Mostrar claves y secreto' }).click();
    const secret = page.getByRole('textbox', { name: 'Secreto de notificaciones' });
    expect(await secret.inputValue()).toBe(sb.webhook_secret);
    for (const [width, height] of LAPTOP_AND_PHONE) {
      await page.setViewportSize({ width, height });
      // Each key's field shows all of it: nothing hidden past its edge (a 375 px input
      // showed svc_test_020c5c097d24d8d5b7bbd263ad7 of a 41-character key).
      const cut =
        await page.evaluate(`[...document.querySelectorAll('#claves-datos textarea, #claves-datos input')]
        .filter((f) => f.scrollWidth > f.clientWidth + 1 || f.scrollHeight > f.clientHeight + 1)
        .map((f) => f.id + ' ' + f.scrollWidth + 'x' + f.scrollHeight + ' in ' + f.clientWidth + 'x' + f.clientHeight)`);
      expect(cut, `at ${width} px`).toEqual([]);
      expect(await page.locator('#claves-datos').getByRole('textbox').count()).toBe(4);
      expect(await page.evaluate(PROBLEMS), `at ${width} px`).toEqual([]);
      await expectFitsWidth(page, width);
      // In fields, to copy; never in the page's text.
      const shown = await page.locator('body').innerText();
      for (const key of [sb.api_key, sb.api_key_live!, sb.webhook_secret])
        expect(shown.includes(key), `at ${width} px`).toBe(false);
      await screenshot(page, `panel-claves-${width}`);
    }
    await page.getByRole('button', { name: 'Ocultar claves y secreto' }).click();
    expect(await page.content()).not.toContain(sb.webhook_secret);
    expect(problems).toEqual([]);
    await page.close();
  });
});
