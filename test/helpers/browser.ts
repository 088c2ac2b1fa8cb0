// What the browser tests share (Debian's Chromium through playwright-core): where the
// browser is and whether it must be, a merchant's receiver that verifies every
// signature, and the page checks: named controls, no sideways scroll, no errors.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS } from './chromium-server.js';
import { ROOT } from './cli.js';
import { startReceiver as startAppReceiver } from './receiver.js';
import { startSandbox, type Sandbox, type StartOptions } from './sandbox.js';

export { CHROMIUM };
/** CI sets it: a missing browser then fails instead of skipping. */
export const REQUIRED = process.env.SVC_REQUIRE_BROWSER_TEST === '1';
export const HAVE_BROWSER = existsSync(CHROMIUM);
/** Why the browser tests skip (never when REQUIRED: they fail instead); undefined when they run. */
export const BROWSER_MISSING =
  HAVE_BROWSER || REQUIRED
    ? undefined
    : `no Chromium at ${CHROMIUM} (apt-get install chromium; SVC_REQUIRE_BROWSER_TEST=1 fails instead)`;
const ARTIFACTS = join(ROOT, 'test-artifacts');
/**
 * Screenshots are for a person to look at: no test reads them. A full-page PNG is work
 * for Chromium and for this process (3-5 s of the run's CPU for the seven), so a run
 * takes them only when asked: SVC_TEST_SCREENSHOTS=1 npm test.
 */
const SCREENSHOTS = process.env.SVC_TEST_SCREENSHOTS === '1';

/** The whole page as test-artifacts/NAME.png, when SVC_TEST_SCREENSHOTS=1. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  console.log(`screenshot: ${path}`);
}

/** A notification as the merchant's endpoint saw it: its event header, raw and parsed body, and whether its signature verified. */
export interface Got {
  event: string | undefined;
  raw: string;
  body: {
    event: string;
    cobro_id: number;
    estado: string;
    monto_cobrado: string;
    transaccion_id: number | null;
  };
  verified: boolean;
}

/** The merchant's endpoint on loopback (startReceiver of receiver.ts, checking every signature), its notifications as `got`. */
export async function startReceiver(
  secret: string,
): Promise<{ url: string; readonly got: Got[]; close(): Promise<void> }> {
  const app = await startAppReceiver({ secret });
  return {
    url: `http://127.0.0.1:${app.port}/`,
    get got() {
      return app.received.map((r) => ({
        event: r.headers['x-svc-event'] as string | undefined,
        raw: r.text,
        body: JSON.parse(r.text),
        verified: r.verified === true,
      }));
    },
    close: () => app.close(),
  };
}

export { waitFor } from './wait.js';

const CONTROL_ROLES = 'button|textbox|radio|checkbox|combobox|spinbutton|searchbox|slider|link';

/**
 * Controls as Chromium's accessibility tree names them. Fails on a control without
 * an accessible name, and on a visible input or button missing from the tree.
 */
export async function expectNamedControls(page: Page): Promise<string[]> {
  const snapshot = await page.locator('body').ariaSnapshot();
  const controls = snapshot
    .split('\n')
    .filter((line) => new RegExp(`^\\s*- (${CONTROL_ROLES})\\b`).test(line));
  const unnamed = controls.filter(
    (line) => !new RegExp(`^\\s*- (${CONTROL_ROLES}) "[^"]+"`).test(line),
  );
  expect(unnamed, 'controls without an accessible name').toEqual([]);
  const visible = await page
    .locator('input:visible, button:visible, select:visible, textarea:visible')
    .count();
  const inTree = controls.filter((line) => !/^\s*- link\b/.test(line)).length;
  expect(inTree, snapshot).toBe(visible);
  return controls;
}

/** No horizontal scroll at `width` px. */
export async function expectFitsWidth(page: Page, width = 375): Promise<void> {
  // A string, so this Node-typed file needs no DOM types.
  const scroll = (await page.evaluate(
    '[document.documentElement.scrollWidth, document.body.scrollWidth]',
  )) as number[];
  expect(scroll[0], `horizontal scroll at ${width} px`).toBeLessThanOrEqual(width);
  expect(scroll[1]).toBeLessThanOrEqual(width);
}

/** The windows a page is checked at: a laptop's (1280×800) and a phone's (375×812). */
export const LAPTOP_AND_PHONE = [
  [1280, 800],
  [375, 812],
] as const;

/**
 * Run in the page with page.evaluate (a string: these Node-typed files have no DOM
 * types): each match of `pattern` in the text under `root` (a DOM expression) whose
 * characters land on more than one line, as "$" and "1.500,00" of an amount, or a word.
 */
export function splitAcrossLines(root: string, pattern: RegExp): string {
  return `(() => {
  const out = [];
  const walk = document.createTreeWalker(${root}, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    for (const m of n.data.matchAll(${pattern})) {
      const r = document.createRange();
      r.setStart(n, m.index);
      r.setEnd(n, m.index + m[0].length);
      const tops = new Set([...r.getClientRects()].map((b) => Math.round(b.top)));
      if (tops.size > 1) out.push(m[0]);
    }
  }
  return out;
})()`;
}

/**
 * Console errors (a CSP violation is one), page errors and failed requests of a page,
 * pushed to `problems`; `expected` says which failed requests are not the sandbox's doing.
 */
export function watch(
  page: Page,
  problems: string[],
  expected: (url: string) => boolean = () => false,
): void {
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => {
    if (!expected(r.url()))
      problems.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`);
  });
}

/**
 * A 375 px, es-AR context in headless Chromium: the run's shared browser when
 * vitest's globalSetup (chromium-server.ts) offers one, else a browser of this file's
 * own. Fails clearly when the browser is required and missing, or did not start.
 */
export async function launchBrowser(): Promise<{ browser: Browser; context: BrowserContext }> {
  if (!HAVE_BROWSER)
    throw new Error(
      `SVC_REQUIRE_BROWSER_TEST=1 and ${CHROMIUM} is missing: install it with apt-get install -y chromium-headless-shell (or chromium)`,
    );
  const { chromium } = await import('playwright-core');
  const broker = inject('chromiumBroker');
  let browser: Browser;
  if (broker) {
    const r = await fetch(broker);
    const answer = (await r.json()) as { ws?: string; error?: string };
    if (!answer.ws)
      throw new Error(answer.error ?? `the shared Chromium's broker answered ${r.status}`);
    browser = await chromium.connect(answer.ws);
  } else {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
    });
  }
  const context = await browser.newContext({
    viewport: { width: 375, height: 812 },
    deviceScaleFactor: 1,
    locale: 'es-AR',
  });
  return { browser, context };
}

/**
 * A sandbox in this process (what the pages do is the app's, not the process's; a
 * spawned one cost each file a second to start), whose notifications go to a receiver
 * that verifies them.
 */
export async function sandboxNotifying(
  options: StartOptions = {},
): Promise<{ sb: Sandbox; receiver: Awaited<ReturnType<typeof startReceiver>> }> {
  const sb = await startSandbox(options);
  const receiver = await startReceiver(sb.webhook_secret);
  const set = await sb.api('POST', '/_sandbox/webhook', { url: receiver.url });
  expect(set.status, set.text).toBe(200);
  return { sb, receiver };
}

/** What a browser test works with: a notifying sandbox, the run's browser, and what left loopback. */
export interface BrowserRig {
  sb: Sandbox;
  receiver: Awaited<ReturnType<typeof startReceiver>>;
  browser: Browser;
  context: BrowserContext;
  /** Every request a page made outside the sandbox and outside `answer` (refused). */
  leftLoopback: string[];
  /** Closes all of it (any part may be missing after a failed start). */
  close(): Promise<void>;
}

/**
 * The set-up every browser test file shares, once per file (its cases reuse it): a
 * sandbox whose notifications a verifying receiver gets (sandboxNotifying), a context
 * of the run's Chromium (launchBrowser), and a route that lets the pages reach only
 * the sandbox. `answer` gives the page that stands in for one outside this machine
 * (the shop a checkout sends the payer back to); anything else is refused and listed
 * in `leftLoopback`.
 */
export async function openBrowserRig(
  options: StartOptions = {},
  answer: (url: string) => string | undefined = () => undefined,
): Promise<BrowserRig> {
  const rig = { leftLoopback: [] as string[] } as BrowserRig;
  rig.close = () => closeAll(rig);
  try {
    ({ sb: rig.sb, receiver: rig.receiver } = await sandboxNotifying(options));
    ({ browser: rig.browser, context: rig.context } = await launchBrowser());
    await rig.context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(rig.sb.base_url + '/')) return route.continue();
      const body = answer(url);
      if (body !== undefined) return route.fulfill({ status: 200, contentType: 'text/html', body });
      rig.leftLoopback.push(url);
      return route.abort();
    });
  } catch (err) {
    await rig.close();
    throw err;
  }
  return rig;
}

/**
 * openBrowserRig once for the describe block it is called in: opened before its cases
 * (and before the block's own beforeAll, registered after this call), closed after
 * them, and nothing may have left loopback. The object returned is filled in when the
 * rig opens: read its fields inside hooks and cases, not where this is called.
 */
export function useBrowserRig(
  options: StartOptions = {},
  answer?: (url: string) => string | undefined,
): BrowserRig {
  const rig = {} as BrowserRig;
  let opened: BrowserRig | undefined;
  beforeAll(async () => {
    opened = await openBrowserRig(options, answer);
    Object.assign(rig, opened);
  });
  afterAll(async () => {
    await opened?.close();
    expect(opened?.leftLoopback ?? []).toEqual([]);
  });
  return rig;
}

/** Closes what launchBrowser and sandboxNotifying opened (any of them may be missing after a failed start). */
export async function closeAll(o: {
  context?: BrowserContext;
  browser?: Browser;
  sb?: Sandbox;
  receiver?: { close(): Promise<void> };
}): Promise<void> {
  await o.context?.close();
  await o.browser?.close();
  await o.sb?.stop();
  await o.receiver?.close();
}
