// The dashboard's request log at 1280 and 375 px: a long line breaks after a "/" or
// before a "?" or "&" of its path, or at a space, never inside a word of it
// (/v1/cobros/12/devolu|ciones).
import { describe, expect, it } from 'vitest';
import {
  BROWSER_MISSING,
  expectFitsWidth,
  screenshot,
  useBrowserRig,
  watch,
} from '../../helpers/browser.js';
import { skipBecause } from '../../helpers/skips.js';

const WIDTHS = [
  [1280, 800],
  [375, 812],
] as const;

/** Run in the page: the words of the log's lines (between blanks, "/", "?" and "&") split across lines. */
const SPLIT_WORDS = `(() => {
  const out = [];
  const walk = document.createTreeWalker(document.getElementById('log'), NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    for (const m of n.data.matchAll(/[^\\s\\/?&]+/g)) {
      const r = document.createRange();
      r.setStart(n, m.index);
      r.setEnd(n, m.index + m[0].length);
      if (new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size > 1) out.push(m[0]);
    }
  }
  return out;
})()`;

/** Run in the page: how many lines the tallest log entry takes. */
const MOST_LINES = `Math.max(...[...document.querySelectorAll('#log li')].map((li) => {
  const r = document.createRange();
  r.selectNodeContents(li);
  return new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size;
}))`;

describe.skipIf(skipBecause(import.meta.url, BROWSER_MISSING))(
  'the request log at 1280 and 375 px',
  () => {
    const rig = useBrowserRig();

    it('breaks a long line at a slash or a space, never inside a word of the path', async () => {
      const { sb, context } = rig;
      const c = await sb.cobro({ monto: '2000.00', referencia: 'ref-1' });
      expect((await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, {})).status).toBe(200);
      expect(
        (await sb.api('POST', `/v1/cobros/${c.id}/devoluciones`, { monto: '500.00' })).status,
      ).toBe(201);
      // The log keeps paths, not queries. A script that puts a referencia where the id
      // goes makes a path longer than a phone's line (47 characters).
      const wrong = '/v1/cobros/pedido_2026_0042_ibanez/devoluciones';
      expect((await sb.api('GET', wrong)).status).toBeGreaterThanOrEqual(400);
      expect((await sb.raw('GET', `/pagar/${c.codigo}/recibo`)).status).toBe(200);
      const page = await context.newPage();
      const problems: string[] = [];
      watch(page, problems, (url) => url.endsWith('/_sandbox/stream'));
      await page.goto(`${sb.base_url}/`);
      await page.getByRole('textbox', { name: 'Clave de API de test' }).fill(sb.api_key);
      await page.getByRole('button', { name: 'Conectar' }).click();
      await expect.poll(() => page.locator('#log').textContent()).toContain('devoluciones');
      await expect.poll(() => page.locator('#log').textContent()).toContain(wrong);
      for (const [width, height] of WIDTHS) {
        await page.setViewportSize({ width, height });
        await page.locator('#log').scrollIntoViewIfNeeded();
        expect(await page.evaluate(SPLIT_WORDS), `at ${width} px`).toEqual([]);
        await expectFitsWidth(page, width);
        await screenshot(page, `panel-registro-${width}`);
      }
      // At 375 px the long line did wrap: what was checked is a line that breaks.
      expect(await page.evaluate(MOST_LINES)).toBeGreaterThan(1);
      expect(problems).toEqual([]);
      await page.close();
    });
  },
);
