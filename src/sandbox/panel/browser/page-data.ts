// What page.ts wrote into the page for the script (data.ts): the service's states and
// rules and the sandbox's named faults, read once when the script starts.
import type { PanelData } from './data.js';

export const DATA = JSON.parse(document.getElementById('panel-datos')!.textContent!) as PanelData;

/** Whether estado is one of list (a list of DATA). */
export const has = (list: readonly string[], estado: string) => list.includes(estado);
