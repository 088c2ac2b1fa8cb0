// svc demo: the whole flow against its own sandbox and listener, ending cleanly.
import { describe, expect, it } from 'vitest';
import { commandLines } from '../../../src/cli/commands/demo/demo.js';
import { displayWidth } from '../../../src/text.js';
import { expectNoStack } from '../../helpers/cli.js';
import { svc } from '../../helpers/inproc.js';
import { hasScript, svcTty, NO_SCRIPT } from '../../helpers/tty.js';
import { skipBecause } from '../../helpers/skips.js';

const HAVE_SCRIPT = hasScript();

describe('svc demo', () => {
  // In this process (a matrix of steps, not the process's wiring: the terminal run below spawns the binary).
  it('--json prints one line per step, every step ok, and the verified notifications', async () => {
    const r = await svc(['demo', '--json']);
    expect(r.exitCode).toBe(0);
    expectNoStack(r.stderr);
    const steps = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(steps.map((s) => s.paso)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(
      steps.every(
        (s) => s.codigo === 0 && typeof s.comando === 'string' && s.comando.startsWith('svc '),
      ),
    ).toBe(true);
    expect(steps[0].salida.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/pagar\/\w+$/);
    expect(steps[2].salida.estado).toBe('PAGADA');
    expect(steps[5].salida).toMatchObject({ monto: '200.00', estado: 'DEVUELTA_PARCIALMENTE' });
    const events = steps[8].salida as { event: string; verification?: unknown }[];
    const names = JSON.stringify(events);
    for (const e of [
      'payment.created',
      'payment.partially_paid',
      'payment.approved',
      'payment.partially_refunded',
    ])
      expect(names).toContain(e);
  });

  it.skipIf(skipBecause(import.meta.url, !HAVE_SCRIPT && NO_SCRIPT))(
    'prints the command before each step for a person, every line within an 80-column terminal',
    async () => {
      const r = await svcTty(['demo'], {}, [], 60_000, { cols: 80, rows: 40 });
      expect(r.exitCode).toBe(0);
      expectNoStack(r.screen);
      const lines = r.screen.split('\n');
      expect(lines.filter((l) => displayWidth(l) > 80)).toEqual([]);
      // A command longer than the terminal goes on after ` \`, as a shell reads it.
      expect(r.screen).toContain(
        '$ svc cobro crear --concepto "Demo: pedido 1042" --monto 1500.00 \\\n    --referencia demo-1042\n',
      );
      expect(r.screen).toContain('$ svc devolver 1 --monto 200.00 --yes');
      expect(r.screen).toMatch(
        /link de pago: http:\/\/127\.0\.0\.1:\d+\/pagar\/\w+\n\(abrilo en el navegador/,
      );
      expect(r.screen).toContain('✓ listo');
      // Step 5 is titled by what we charge: its table shows that column at 80 columns.
      const step5 = r.screen.slice(
        r.screen.indexOf('5. Las transacciones'),
        r.screen.indexOf('6. '),
      );
      expect(step5).toMatch(/^ID +.*MONTO +TE COBRAMOS +TE QUEDA/m);
      expect(step5).not.toContain('sin lugar para TE COBRAMOS');
    },
  );
});

describe('commandLines: the command a step shows', () => {
  const words = [
    'cobro',
    'crear',
    '--concepto',
    '"Demo: pedido 1042"',
    '--monto',
    '1500.00',
    '--referencia',
    'demo-1042',
  ];
  it('is one line, its note after it, where the terminal has room (or is no terminal)', () => {
    expect(commandLines(words, Infinity, '# ok')).toEqual([
      {
        typed:
          '$ svc cobro crear --concepto "Demo: pedido 1042" --monto 1500.00 --referencia demo-1042',
        note: '# ok',
      },
    ]);
  });
  it('breaks before an option, never between an option and its value, and keeps room for the backslash', () => {
    const lines = commandLines(words, 50);
    expect(lines.map((l) => l.typed)).toEqual([
      '$ svc cobro crear --concepto "Demo: pedido 1042" \\',
      '    --monto 1500.00 --referencia demo-1042',
    ]);
    expect(lines.every((l) => displayWidth(l.typed) <= 50)).toBe(true);
  });
  it('gives a note that does not fit a line of its own', () => {
    expect(
      commandLines(['sandbox', '--port', '0'], 30, '# escuchando en http://127.0.0.1:4010'),
    ).toEqual([
      { typed: '$ svc sandbox --port 0' },
      { typed: '    ', note: '# escuchando en http://127.0.0.1:4010' },
    ]);
  });
});
