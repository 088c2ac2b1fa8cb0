// Hints whose commands run as printed (in-process against a sandbox): a refusal under
// --profile suggests `svc --profile tienda …`, and that command, run as printed with no
// key in the environment, works; the hint after a refund of an unpaid request points to
// a read (`svc cobro ver`), not to `svc sync`, which is a write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runnable } from '../../src/cli/hints.js';
import { tempDir } from '../helpers/cli.js';
import { svc } from '../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';

let sb: Sandbox;
let config: string;
beforeAll(async () => {
  sb = await startSandbox();
  config = tempDir('svc-hints-');
  const login = await svc(
    ['login', '--profile', 'tienda', '--with-key-stdin', '--base-url', sb.base_url],
    { env: { SVC_CONFIG_DIR: config }, input: `${sb.api_key}\n` },
  );
  expect(login.exitCode, login.stderr).toBe(0);
});
afterAll(() => sb.stop());

/** The command of a `→` hint line: from `svc` to the end of the command. */
const commandOf = (stderr: string) =>
  /^→ .*?(svc [^;`]*?)\s*$/m.exec(stderr)?.[1]?.split(' ').slice(1);

describe('hints run as printed', () => {
  it('a refund of an unpaid request under --profile suggests a read that carries the profile, and it runs', async () => {
    const c = (await sb.api('POST', '/v1/cobros', { concepto: 'Sin pagar', monto: '10.00' })).body
      .data as { id: number };
    const env = { SVC_CONFIG_DIR: config };
    const r = await svc(['--profile', 'tienda', 'devolver', String(c.id), '--monto', '1'], {
      env,
    });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(`^→ mirá el cobro con svc --profile tienda cobro ver ${c.id}$`, 'm'),
    );
    expect(r.stderr).not.toMatch(/svc sync/);
    const again = await svc(commandOf(r.stderr)!, { env });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/PENDIENTE/);
  });

  it('carries --live, --profile and --base-url into each service command once, and leaves the rest', () => {
    const flags = { profile: 'tienda', live: true };
    expect(runnable('revisá la clave con `svc login` o la variable SVC_API_KEY', flags)).toBe(
      'revisá la clave con `svc --profile tienda --live login` o la variable SVC_API_KEY',
    );
    expect(
      runnable('para verificar: svc cobro ver 36 --profile tienda --live  o  svc caso 36', flags),
    ).toBe(
      'para verificar: svc cobro ver 36 --profile tienda --live  o  svc --profile tienda --live caso 36',
    );
    expect(runnable('lo que svc ve del cobro; `svc sandbox pagar 3`', flags)).toBe(
      'lo que svc ve del cobro; `svc sandbox pagar 3`',
    );
    expect(runnable('svc cobro listar', {})).toBe('svc cobro listar');
  });
});
