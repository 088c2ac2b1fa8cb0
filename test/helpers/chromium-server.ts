// vitest's globalSetup: one Chromium for every browser test file of a run, instead of
// one launch per file (seconds each on a loaded two-core machine, and as many browsers
// at once as files running). Nothing starts until a file asks: a run without browser
// tests launches nothing. The files ask a small loopback server, whose address is
// `provide`d to them, for the browser's endpoint; the first ask launches it, and each
// file connects with a context of its own (its own storage, routes and viewport).
// A browser that has died is not handed out: the ask fails with what happened, and a
// file whose browser dies under it fails in closeAll (test/helpers/browser.ts).
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserServer } from 'playwright-core';
import type { TestProject } from 'vitest/node';

/**
 * Debian's Chromium without its windowing layers (package chromium-headless-shell,
 * the same Blink; what Playwright itself runs headless) when it is there: the three
 * browser files took 57 s of CPU with the full browser and 32 s with it, in a suite of
 * about 170 s. The full browser (package chromium) runs them where it is all there is.
 */
export const CHROMIUM =
  ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((bin) => existsSync(bin)) ??
  '/usr/bin/chromium';
/**
 * Nothing a page asks for leaves loopback: every other host name resolves to nothing.
 * A route can refuse a page's requests, but not where a redirect leads (Playwright
 * hands a route the first URL of a redirect only): the checkout's 303 to the shop.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
];

declare module 'vitest' {
  export interface ProvidedContext {
    /** The loopback address that answers the shared Chromium's endpoint (see chromium-server.ts). */
    chromiumBroker: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let launched: Promise<BrowserServer> | undefined;
  let died: string | undefined;
  const launch = async (): Promise<BrowserServer> => {
    const { chromium } = await import('playwright-core');
    const server = await chromium.launchServer({
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
    });
    server
      .process()
      .once(
        'exit',
        (code, signal) =>
          (died = `the shared Chromium exited during the run (${signal ?? `code ${code}`})`),
      );
    return server;
  };
  const broker = createServer((_req, res) => {
    const answer = (status: number, body: object) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    launched ??= launch();
    launched.then(
      (server) => (died ? answer(500, { error: died }) : answer(200, { ws: server.wsEndpoint() })),
      (err: unknown) =>
        answer(500, {
          error: `the shared Chromium did not start: ${err instanceof Error ? err.message : String(err)}`,
        }),
    );
  });
  await new Promise<void>((resolve) => broker.listen(0, '127.0.0.1', resolve));
  project.provide('chromiumBroker', `http://127.0.0.1:${(broker.address() as AddressInfo).port}/`);
  return async () => {
    broker.close();
    const server = await launched?.catch(() => undefined);
    await server?.close();
  };
}
