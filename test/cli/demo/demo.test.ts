// svc demo: the whole flow against its own sandbox and listener, ending cleanly.
import { describe, expect, it } from 'vitest';
import { expectNoStack, svc } from '../../helpers/cli.js';

describe('svc demo', () => {
  it('--json prints one line per step, every step ok, and the verified notifications', async () => {
    const r = await svc(['demo', '--json'], { timeout: 60_000 });
    expect(r.exitCode).toBe(0);
    expectNoStack(r.stderr);
    const steps = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(steps.map((s) => s.paso)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(steps.every((s) => s.codigo === 0 && typeof s.comando === 'string' && s.comando.startsWith('svc '))).toBe(true);
    expect(steps[0].salida.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/pagar\/\w+$/);
    expect(steps[2].salida.estado).toBe('PAGADA');
    expect(steps[5].salida).toMatchObject({ monto: '200.00', estado: 'DEVUELTA_PARCIALMENTE' });
    const events = steps[8].salida as { event: string; verification?: unknown }[];
    const names = JSON.stringify(events);
    for (const e of ['payment.created', 'payment.partially_paid', 'payment.approved', 'payment.partially_refunded']) expect(names).toContain(e);
  });

  it('prints the command before each step for a person', async () => {
    const r = await svc(['demo'], { timeout: 60_000 });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('$ svc cobro crear --concepto "Demo: pedido 1042" --monto 1500.00');
    expect(r.stdout).toContain('$ svc devolver 1 --monto 200.00 --yes');
    expect(r.stdout).toMatch(/link de pago: http:\/\/127\.0\.0\.1:\d+\/pagar\//);
    expect(r.stdout).toContain('✓ listo');
  });
});
