// `cobro crear --lote` on a terminal of 80 and 60 columns: the result's payment links
// stay whole on one line with their row's line and referencia; what leaves the table
// is said below it (--resultado and --json keep every field).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/cli.js';
import { svcOnTerminal } from '../../helpers/inproc.js';
import { startSandbox, type InProcessSandbox } from '../../helpers/sandbox.js';
import { displayWidth } from '../../../src/text.js';

let sb: InProcessSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb?.close());

describe('cobro crear --lote on a narrow terminal', () => {
  it.each([80, 60])('at %i columns every line fits and each link is whole', async (cols) => {
    const dir = tempDir();
    const file = join(dir, 'cuotas.csv');
    writeFileSync(
      file,
      `concepto;monto;referencia\nCuota diciembre;1.500,50;fam-${cols}-1\nCuota diciembre;2000;fam-${cols}-2\n`,
    );
    const r = await svcOnTerminal(['cobro', 'crear', '--lote', file, '--yes'], sb.env, cols);
    expect(r.exitCode, r.screen).toBe(0);
    // The progress line is rewritten in place (\r): each of its states fits too, or it
    // would wrap and leave a line behind at every update.
    const lines = r.screen.split('\n').flatMap((l) => l.split('\r'));
    for (const l of lines) expect(displayWidth(l), l).toBeLessThanOrEqual(cols);
    const links = lines.filter((l) => l.includes('/pagar/'));
    expect(links).toHaveLength(2);
    for (const l of links)
      expect(l).toMatch(new RegExp(`^ +\\d  fam-${cols}-\\d .*${sb.base_url}/pagar/\\w{10}$`));
    if (cols === 60) expect(r.screen).toMatch(/^sin lugar para .*CÓDIGO/m);
  });
});
