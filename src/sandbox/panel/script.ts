// The dashboard's script and the data it reads. The script is browser/panel.ts,
// type-checked with the DOM's types and bundled by `npm run build`
// (src/build/bundle.mjs) into dist/panel/panel.js; the page serves it inline,
// allowed by its hash. Read once, when the page is first asked for.
import { readFileSync } from 'node:fs';
import { ESTADOS_COBRO } from '../../api/enums.js';
import { REFUNDABLE } from '../../domain/rules.js';
import { NAMED_FAULTS, namedFault } from '../faults.js';
import { OPEN, PAYABLE } from '../state.js';
import type { PanelData } from './browser/data.js';

export const PANEL_DATA: PanelData = {
  estados: ESTADOS_COBRO,
  refundable: REFUNDABLE,
  payable: PAYABLE,
  open: OPEN,
  fallas: Object.fromEntries(NAMED_FAULTS.map((n) => [n, namedFault(n, 5000)])),
};

/** PANEL_DATA as the page holds it: JSON with `<` escaped, so no text in it can close its element. */
export function panelDataJson(): string {
  return JSON.stringify(PANEL_DATA).replace(/</g, '\\u003c');
}

/**
 * Where the built script is from dist/chunks/ (the bundled CLI), dist/sandbox/panel/
 * (tsc's output) and src/sandbox/panel/ (tests run from the source), in that order.
 */
const PLACES = ['../panel/panel.js', '../../panel/panel.js', '../../../dist/panel/panel.js'];

let script: string | undefined;

/** The bundled script; throws when svc was not built (`npm run build` makes it). */
export function panelScript(): string {
  if (script !== undefined) return script;
  for (const up of PLACES) {
    try {
      script = readFileSync(new URL(up, import.meta.url), 'utf8');
      return script;
    } catch {
      // Not at this level: the next one.
    }
  }
  throw new Error('falta el script del panel (dist/panel/panel.js): corré npm run build');
}
