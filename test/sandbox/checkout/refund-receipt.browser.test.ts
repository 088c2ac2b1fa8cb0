// A request the merchant refunded in part, as the payer sees it in a browser at 1280
// and 375 px: the receipt and the checkout say how much was refunded and how much
// stays paid, in the payer's notation, nothing cut or scrolling sideways.
import { describe, expect, it } from 'vitest';
import {
  BROWSER_MISSING,
  expectFitsWidth,
  screenshot,
  useBrowserRig,
  watch,
} from '../../helpers/browser.js';
import { svc } from '../../helpers/inproc.js';
import { skipBecause } from '../../helpers/skips.js';

const WIDTHS = [
  [1280, 800],
  [375, 812],
] as const;

/** Run in the page: each `dt` of the card with its `dd`, as the payer reads them. */
const ROWS = `(() => [...document.querySelectorAll('main dl > div')].map((d) =>
  [d.querySelector('dt').textContent, d.querySelector('dd').textContent]))()`;

/** Run in the page: every amount ("$ 1.000,00") whose "$" and digits land on different lines. */
const BROKEN_AMOUNTS = `(() => {
  const out = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    for (const m of n.data.matchAll(/\\$\\s[0-9.,]+/g)) {
      const r = document.createRange();
      r.setStart(n, m.index);
      r.setEnd(n, m.index + m[0].length);
      if (new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size > 1) out.push(m[0]);
    }
  }
  return out;
})()`;

describe.skipIf(skipBecause(import.meta.url, BROWSER_MISSING))(
  'a partly refunded request, in a browser',
  () => {
    const rig = useBrowserRig();

    it('the receipt and the checkout say what was refunded and what stays paid, at 1280 and 375 px', async () => {
      const { sb, context } = rig;
      const c = await sb.cobro({ concepto: 'Clases de cerámica, noviembre', monto: '4800.00' });
      expect((await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, {})).status).toBe(200);
      const refund = await svc(['devolver', String(c.id), '--monto', '1000.00', '--yes'], {
        env: sb.env,
      });
      expect(refund.exitCode, refund.stderr).toBe(0);
      const page = await context.newPage();
      const problems: string[] = [];
      watch(page, problems);
      for (const [width, height] of WIDTHS) {
        await page.setViewportSize({ width, height });
        await page.goto(`${sb.base_url}/pagar/${c.codigo}/recibo`);
        expect(await page.evaluate(ROWS), `the receipt at ${width} px`).toEqual([
          ['Total pagado', '$\u00a04.800,00'],
          ['Devuelto', '$\u00a01.000,00'],
          ['Queda pagado', '$\u00a03.800,00'],
          ['Monto del cobro', '$\u00a04.800,00'],
          ['Estado', 'Devuelto en parte'],
          ['Código del cobro', c.codigo],
        ]);
        expect(await page.evaluate(BROKEN_AMOUNTS), `at ${width} px`).toEqual([]);
        await expectFitsWidth(page, width);
        await screenshot(page, `recibo-devuelto-${width}`);

        await page.goto(c.url!);
        expect(await page.evaluate(ROWS), `the checkout at ${width} px`).toEqual([
          ['Monto', '$\u00a04.800,00'],
          ['Ya pagado', '$\u00a04.800,00 de $\u00a04.800,00'],
          ['Devuelto', '$\u00a01.000,00'],
          ['Queda pagado', '$\u00a03.800,00'],
          ['Estado', 'Devuelto en parte'],
        ]);
        expect(await page.getByRole('status').first().textContent()).toBe(
          'Este cobro se pagó y el comercio devolvió $\u00a01.000,00 de los $\u00a04.800,00 pagados: quedan $\u00a03.800,00 pagados.',
        );
        expect(await page.evaluate(BROKEN_AMOUNTS), `at ${width} px`).toEqual([]);
        await expectFitsWidth(page, width);
        await screenshot(page, `checkout-devuelto-${width}`);
      }
      expect(problems).toEqual([]);
      await page.close();
    });
  },
);
