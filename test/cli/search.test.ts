// Searches that find what a support agent types (in-process against a sandbox): --q
// ignores accents and case on svc's side when the service's search finds nothing, and
// says so; --referencia with a dropped zero lists the near ones instead of not_found;
// a code read out in groups in a refund CSV is the request's code, not a referencia.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { svc } from '../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';

let sb: Sandbox;
let ibanez: { id: number; codigo: string };
let pedido: { id: number; codigo: string };
beforeAll(async () => {
  sb = await startSandbox();
  ibanez = (
    await sb.api('POST', '/v1/cobros', { concepto: 'Cuota de María Ibáñez', monto: '120.00' })
  ).body.data;
  pedido = (
    await sb.api('POST', '/v1/cobros', {
      concepto: 'Zapatillas',
      monto: '300.00',
      referencia: 'ped-2026-042',
    })
  ).body.data;
  expect((await sb.api('POST', `/_sandbox/cobros/${pedido.id}/pagar`, {})).status).toBe(200);
});
afterAll(() => sb.stop());

describe('searches that ignore what people do not type', () => {
  it('--q ibanez finds Ibáñez: the service found nothing, svc searched ignoring accents and case and says so', async () => {
    const r = await svc(['cobro', 'listar', '--q', 'IBANEZ'], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^${ibanez.id}\\t`, 'm'));
    expect(r.stdout).not.toMatch(new RegExp(`^${pedido.id}\\t`, 'm'));
    expect(r.stderr).toMatch(
      /la búsqueda del servicio no encontró "IBANEZ" \(distingue acentos\); svc buscó ignorando acentos y mayúsculas: 1 cobro/,
    );
    const json = await svc(['cobro', 'listar', '--q', 'ibanez', '--json'], { env: sb.env });
    expect(json.exitCode).toBe(0);
    expect((JSON.parse(json.stdout) as { id: number }[]).map((c) => c.id)).toEqual([ibanez.id]);
    expect(json.stderr).toBe('');
  });

  it('--referencia ped-2026-42 (a zero dropped) lists ped-2026-042 as near, exit 2, not not_found', async () => {
    const r = await svc(['cobro', 'ver', '--referencia', 'ped-2026-42'], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^${pedido.id}\\t${pedido.codigo}\\tped-2026-042\\t`, 'm'));
    expect(r.stderr).toMatch(/ningún cobro tiene exactamente la referencia "ped-2026-42"/);
    // One letter off is near too; nothing alike stays not found.
    const typo = await svc(['cobro', 'ver', '--referencia', 'pex-2026-042'], { env: sb.env });
    expect(typo.exitCode, typo.stderr).toBe(2);
    const none = await svc(['cobro', 'ver', '--referencia', 'factura-77'], { env: sb.env });
    expect(none.exitCode).toBe(5);
  });

  it('a code read out in groups in a refund CSV is the request it names', async () => {
    const dir = tempDir('svc-lote-code-');
    const c = pedido.codigo;
    const grouped = `${c.slice(0, 4)} ${c.slice(4, 8)} ${c.slice(8)}`.toLowerCase();
    writeFileSync(join(dir, 'lote.csv'), `cobro,monto\n${grouped},10.00\n`);
    const plan = join(dir, 'lote.json');
    const r = await svc(['devolver', '--lote', join(dir, 'lote.csv'), '--plan', plan], {
      env: sb.env,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`línea 2\\tcobro ${pedido.id}\\t10\\.00\\tentra`));
  });
});
