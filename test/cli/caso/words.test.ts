// svc caso's timeline in words (in-process against a sandbox): a payment reads
// "pago acreditado con tarjeta de crédito", a refund "el cobro quedó devuelto en parte"
// (the tables keep the API's spelling); a request paid in full has no "vencimiento del
// cobro" in its story, an unpaid one does; a settlement's "te quedan" after a refund
// says it is figured on the whole payment.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svc } from '../../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../../helpers/sandbox.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.stop());

/** The timeline's lines of `svc caso <id>` piped: time, tab, what happened. */
async function timelineOf(id: number): Promise<string[]> {
  const r = await svc(['caso', String(id)], { env: sb.env });
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout.slice(r.stdout.indexOf('línea de tiempo')).split('\n').slice(1).filter(Boolean);
}

describe('svc caso tells the story in words', () => {
  it('a paid and partly refunded request: words for method and states, no expiry, the settlement noted', async () => {
    const c = (await sb.api('POST', '/v1/cobros', { concepto: 'Clase', monto: '100.00' })).body
      .data as { id: number };
    expect(
      (await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, { medio: 'credito' })).status,
    ).toBe(200);
    expect(
      (await sb.api('POST', `/v1/cobros/${c.id}/devoluciones`, { monto: '30.00' })).status,
    ).toBe(201);
    const lines = await timelineOf(c.id);
    const text = lines.join('\n');
    expect(text).toMatch(/\tpago acreditado con tarjeta de crédito: 100\.00 \(te queda /);
    expect(text).toMatch(/\tdevolución parcial de 30\.00; el cobro quedó devuelto en parte$/m);
    expect(text).toMatch(
      /\tliquidación estimada de la transacción \d+: te quedan [0-9.]+ \(sobre el pago entero: no descuenta los 30\.00 devueltos\)$/m,
    );
    expect(text).not.toMatch(/ACREDITADO|por credito|DEVUELTA_PARCIALMENTE|vencimiento/);
  });

  it('an unpaid request still shows when it expires', async () => {
    const c = (await sb.api('POST', '/v1/cobros', { concepto: 'Cuota', monto: '50.00' })).body
      .data as { id: number };
    expect((await timelineOf(c.id)).join('\n')).toMatch(/\tvencimiento del cobro$/m);
  });
});
