// The sandbox's messages are the service's words svc quotes after the code: a
// Spanish-speaking person reads them in the CLI, the dashboard and the checkout, so
// they are Spanish; the codes stay the seed's (a script reads those).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svc } from '../../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../../helpers/sandbox.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
}, 30_000);
afterAll(() => sb?.stop());

describe("the sandbox's words, as svc shows them", () => {
  it('a method the request does not take: code bad_request, the reason in Spanish', async () => {
    const made = await svc(
      ['cobro', 'crear', '--concepto', 'Sin tarjeta', '--monto', '10', '--no-tarjeta', '--json'],
      { env: sb.env },
    );
    expect(made.exitCode, made.stderr).toBe(0);
    const { id } = JSON.parse(made.stdout) as { id: number };
    const r = await svc(['sandbox', 'pagar', String(id), '--medio', 'credito'], { env: sb.env });
    expect(r.exitCode).toBe(1);
    expect(r.stderr.split('\n')[0]).toBe(
      'error: bad_request (HTTP 400): "medio: este cobro no acepta credito (acepta transferencia, qr)"',
    );
  });

  it.each([
    [
      'a date past the limit',
      ['-f', 'vencimiento=2099-01-01T00:00:00-03:00'],
      'vencimiento: como mucho 365 días adelante',
    ],
    [
      'an amount written the Spanish way',
      ['-f', 'monto=1,5'],
      'monto: "1,5" no es un monto decimal como "1500.00"',
    ],
    [
      'a date that passed',
      ['-f', 'vencimiento=2020-01-01T00:00:00-03:00'],
      'vencimiento: "2020-01-01T00:00:00-03:00" ya pasó',
    ],
  ])('%s: create_failed with its reason in Spanish', async (_name, fields, message) => {
    const base = fields.some((f) => f.startsWith('monto='))
      ? ['-f', 'concepto=x']
      : ['-f', 'concepto=x', '-f', 'monto=1'];
    const r = await svc(['api', 'POST', '/v1/cobros', ...base, ...fields], { env: sb.env });
    expect(r.exitCode).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({ error: 'create_failed', message });
  });

  it('an unknown key: code unauthorized, the reason in Spanish', async () => {
    const r = await svc(['api', '/v1/cuenta'], {
      env: { ...sb.env, SVC_API_KEY: 'svc_test_otra' },
    });
    expect(r.exitCode).toBe(3);
    expect(JSON.parse(r.stdout)).toEqual({ error: 'unauthorized', message: 'clave desconocida' });
  });
});
