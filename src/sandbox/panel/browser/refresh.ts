// Everything the page shows, read again at once (on connecting, after the clock moved,
// when the live stream comes back).
import { loadCobros } from './cobro-list.js';
import { loadEntregas } from './deliveries.js';
import { reloadDetail } from './detail.js';
import { loadFaults } from './faults-form.js';
import { loadLog } from './request-log.js';
import { loadClock } from './sandbox-clock.js';
import { loadLiquidaciones } from './settlements.js';

export async function loadAll(): Promise<void> {
  await Promise.all([
    loadCobros(),
    loadEntregas(),
    loadLog(),
    loadLiquidaciones(),
    loadClock(),
    loadFaults(),
    reloadDetail(),
  ]);
}
