// Words (#25.8): the small fixes a Spanish-speaking person meets, in-process against a
// sandbox and on a terminal: fees as percentages, "acción … no es válida", a state
// typed short gets its suggestion, and the words people type for commands and flags
// svc names otherwise are answered with the name.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { percent } from '../../src/cli/commands/cargos/cargos.js';
import { svc } from '../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';
import { hasScript, svcTty, NO_SCRIPT } from '../helpers/tty.js';
import { skipBecause } from '../helpers/skips.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.stop());

describe('words', () => {
  it.skipIf(skipBecause(import.meta.url, !hasScript() && NO_SCRIPT))(
    "cargos on a terminal shows each fee as a percentage (0.80 %); piped, the service's number",
    async () => {
      const r = await svcTty(['cargos'], sb.env, [], 30_000, { cols: 80, rows: 40 });
      expect(r.exitCode, r.screen).toBe(0);
      expect(r.screen).toMatch(/^transferencia +Transferencia bancaria +0\.80 %$/m);
      const piped = await svc(['cargos'], { env: sb.env });
      expect(piped.stdout).toMatch(/^transferencia\tTransferencia bancaria\t0\.8000$/m);
      expect(['0.8000', '4.39', '1.2345', '2'].map(percent)).toEqual([
        '0.80 %',
        '4.39 %',
        '1.2345 %',
        '2.00 %',
      ]);
    },
  );

  it.each<[string[], RegExp]>([
    [
      ['sandbox', 'fallas', 'foo'],
      /^error: acción "foo" no es válida; valores posibles: agregar, listar, borrar$/m,
    ],
    [
      ['cobro', 'listar', '--estado', 'PAGADA_PARCIAL'],
      /\(¿quisiste decir PAGADA_PARCIALMENTE\?\)/,
    ],
    [
      ['webhook', 'listar'],
      /^error: svc webhook listar no existe \(¿quisiste decir svc webhook eventos\?\)$/m,
    ],
    [
      ['sandbox', 'pago', '1'],
      /^error: svc sandbox pago no existe \(¿quisiste decir svc sandbox pagar\?\)$/m,
    ],
    [
      ['caso', '--ref', 'pedido-1042'],
      /^error: opción desconocida '--ref' \(¿quisiste decir --referencia\?\)$/m,
    ],
  ])('%j: exit 2, %s', async (args, said) => {
    const r = await svc(args, { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(said);
  });
});
