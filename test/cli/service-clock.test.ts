// Date words count from the service's today: against a sandbox whose clock was moved on
// (`svc sandbox reloj avanzar 30d`), "mañana" is the sandbox's tomorrow and "hoy" its
// today, not this machine's.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dependsOnToday } from '../../src/cli/shared/service-clock.js';
import { tempDir } from '../helpers/cli.js';
import { svc } from '../helpers/inproc.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';

let sb: InProcessSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb?.close());

const nextDay = (day: string) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

describe("date words follow the sandbox's moved clock", () => {
  it('after reloj avanzar 30d: --vencimiento mañana is its tomorrow, --desde hoy its today', async () => {
    const before = await sb.cobro();
    const moved = await sb.api('POST', '/_sandbox/reloj', { avanzar: '30d' });
    expect(moved.status).toBe(200);
    const today = ((await sb.api('GET', '/_sandbox/reloj')).body.data.ahora as string).slice(0, 10);
    const made = await svc(
      [
        'cobro',
        'crear',
        '--concepto',
        'Reloj',
        '--monto',
        '10',
        '--vencimiento',
        'mañana',
        '--json',
      ],
      { env: sb.env },
    );
    expect(made.exitCode, made.stderr).toBe(0);
    const after = JSON.parse(made.stdout);
    expect(after.vencimiento).toBe(`${nextDay(today)} 23:59:59`);
    const listed = await svc(['cobro', 'listar', '--desde', 'hoy', '--json'], { env: sb.env });
    expect(listed.exitCode, listed.stderr).toBe(0);
    const ids = (JSON.parse(listed.stdout) as { id: number }[]).map((c) => c.id);
    expect(ids).toContain(after.id);
    expect(ids).not.toContain(before.id);
  });

  it("a batch row's vencimiento mañana is the moved sandbox's tomorrow too", async () => {
    await sb.api('POST', '/_sandbox/reloj', { avanzar: '30d' });
    const today = ((await sb.api('GET', '/_sandbox/reloj')).body.data.ahora as string).slice(0, 10);
    const file = join(tempDir('svc-reloj-'), 'lote.csv');
    writeFileSync(file, 'concepto,monto,referencia,vencimiento\nCuota,10.00,reloj-lote-1,mañana\n');
    const r = await svc(['cobro', 'crear', '--lote', file, '--json'], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const made = (await sb.api('GET', '/v1/cobros?q=reloj-lote-1')).body.data as {
      referencia: string;
      vencimiento: string;
    }[];
    expect(made.find((c) => c.referencia === 'reloj-lote-1')?.vencimiento).toBe(
      `${nextDay(today)} 23:59:59`,
    );
  });

  it('only what depends on today asks the service for its clock', () => {
    expect(['hoy', 'mañana', '7d', '+3d', 'esta-semana', '24/12'].map(dependsOnToday)).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['2026-12-24', '2026-12-24 18:00', '24/12/2026'].map(dependsOnToday)).toEqual([
      false,
      false,
      false,
    ]);
  });
});
