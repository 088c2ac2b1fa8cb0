// svc as a library: a script imports the client by the package's name and gets
// { http, data } with the body exactly as the service sent it.
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(async () => {
  await sb?.stop();
});

describe('library', () => {
  it('import { Client } from "svc" works from a script', async () => {
    const script = `
import { Client, ApiError, verify, sign, formatCents, parseAmount } from 'svc';
const client = new Client({ baseUrl: process.env.SVC_BASE_URL, apiKey: process.env.SVC_API_KEY });
const created = await client.crearCobro({ concepto: 'Desde un script', monto: '12.5' });
const missing = await client.verCobro(999999).catch((e) => e);
const ok = verify({ secret: 's', timestamp: '1', signature: 'sha256=' + sign('s', '1', '{}'), body: '{}', toleranceSeconds: 0 }).ok;
console.log(JSON.stringify({ http: created.http, monto: created.data.data.monto, missing: missing instanceof ApiError ? [missing.http, missing.error] : null, ok, cents: formatCents(parseAmount('0.1') + parseAmount('0.2')) }));
`;
    const r = await execa('node', ['--input-type=module', '-e', script], {
      cwd: ROOT,
      env: sb.env,
      reject: false,
    });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({
      http: 201,
      monto: '12.50',
      missing: [404, 'not_found'],
      ok: true,
      cents: '0.30',
    });
  });
});
