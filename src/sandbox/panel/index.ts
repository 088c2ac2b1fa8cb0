// The dashboard of the sandbox, the merchant's side as a page: GET / and
// GET /_sandbox/panel (router.ts marks both loopback-only). The page is a static
// shell whose script asks for the merchant's test key once and drives everything
// through the sandbox's own routes (/v1/… and /_sandbox/…), so an action changes
// state exactly as the same request from svc would. Live updates: ../hub.ts.
import type { ControlHandler } from '../control.js';
import { PANEL_HEADERS, panelPage } from './page.js';

const PAGE = panelPage();

export const pagina: ControlHandler = () => ({ status: 200, body: PAGE, contentType: 'text/html; charset=utf-8', headers: PANEL_HEADERS });
