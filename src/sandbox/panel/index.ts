// The dashboard of the sandbox, the merchant's side as a page: GET / and
// GET /_sandbox/panel (router.ts marks both loopback-only). The page is a static
// shell whose script asks for the merchant's test key once and drives everything
// through the sandbox's own routes (/v1/… and /_sandbox/…), so an action changes
// state exactly as the same request from svc would. Live updates: ../hub.ts.
import type { ControlHandler } from '../control.js';
import { panelPage } from './page.js';

export const pagina: ControlHandler = () => {
  const { html, headers } = panelPage();
  return { status: 200, body: html, contentType: 'text/html; charset=utf-8', headers };
};
