// svc mcp as an assistant's client starts it: what every tool needs (the service's
// address, a key of the mode asked) is checked before serving. A configuration that
// could only fail does not start: its exit code, and on stderr what to put in the
// client's entry. The configurations a client is given (env, a profile, the sandbox)
// start through the MCP SDK's own stdio client and answer a call.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, configWith, tempDir } from '../helpers/cli.js';
import { svc } from '../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';

let sb: Sandbox;

beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(async () => {
  await sb?.stop();
});

const ENV_FIX =
  '→ en la entrada del cliente MCP, "env": {"SVC_BASE_URL": "https://…", "SVC_API_KEY": "svc_test_…"} (con el sandbox: la dirección y la clave que imprime svc sandbox), o un perfil: "args": ["--profile", "NOMBRE", "mcp"] (lo crea svc login --profile NOMBRE)\n';

describe('svc mcp checks at start what every tool needs', () => {
  it.each([
    {
      what: 'nothing configured (no env, no profile)',
      argv: ['mcp'],
      env: () => ({}),
      exit: 2,
      stderr:
        'error: svc mcp no arranca: no hay dirección del servicio configurada para el perfil "default"\n' +
        ENV_FIX,
    },
    {
      what: 'an address and no key',
      argv: ['mcp'],
      env: () => ({ SVC_BASE_URL: sb.base_url }),
      exit: 3,
      stderr:
        'error: svc mcp no arranca: no hay clave configurada para el perfil "default"\n' + ENV_FIX,
    },
    {
      what: 'a profile holding only a live key, without --live',
      argv: ['--profile', 'tienda', 'mcp'],
      env: () => ({
        SVC_CONFIG_DIR: configWith({
          tienda: { base_url: sb.base_url, live_key: sb.api_key_live! },
        }),
      }),
      exit: 2,
      stderr:
        'error: svc mcp no arranca: el perfil "tienda" tiene solo una clave live: agregá --live para usarla\n' +
        '→ para modo test, una clave svc_test_… en el perfil (svc login --profile tienda) o en "env" (SVC_API_KEY); para dinero real, "args": ["--profile", "tienda", "mcp", "--live"] (cada cobro lo confirma la persona)\n',
    },
    {
      what: 'a profile that does not exist',
      argv: ['--profile', 'tienda', 'mcp'],
      env: () => ({}),
      exit: 2,
      stderr:
        'error: svc mcp no arranca: el perfil "tienda" no existe (todavía no hay ninguno)\n' +
        '→ svc perfil listar muestra los que hay y svc login --profile tienda lo crea; o, sin perfil, en la entrada del cliente MCP, "env": {"SVC_BASE_URL": "https://…", "SVC_API_KEY": "svc_test_…"} (con el sandbox: la dirección y la clave que imprime svc sandbox)\n',
    },
    {
      what: 'a key that is not svc_test_… or svc_live_…',
      argv: ['mcp'],
      env: () => ({ SVC_BASE_URL: sb.base_url, SVC_API_KEY: 'sk_test_123' }),
      exit: 2,
      stderr:
        'error: svc mcp no arranca: la clave de SVC_API_KEY no tiene el formato svc_test_… / svc_live_…\n' +
        '→ revisá SVC_API_KEY en "env" de la entrada del cliente MCP (svc_test_… o svc_live_…), o corré svc login\n',
    },
    {
      what: '--live with a test key',
      argv: ['mcp', '--live'],
      env: () => ({ SVC_BASE_URL: sb.base_url, SVC_API_KEY: sb.api_key }),
      exit: 2,
      stderr:
        'error: svc mcp no arranca: --live pide modo live pero la clave es de test (svc_test_…)\n' +
        '→ sin --live en "args" para modo test, o una clave svc_live_… en "env" (SVC_API_KEY) o en el perfil\n',
    },
  ])('$what: does not start (exit $exit), saying what to put in the client’s entry', async (c) => {
    const r = await svc(c.argv, { env: c.env() });
    expect(r.stderr).toBe(c.stderr);
    expect(r.exitCode).toBe(c.exit);
    expect(r.stdout).toBe('');
  });

  it('a service that does not answer at start: it starts, and says so on stderr', async () => {
    const r = await svc(['mcp'], {
      env: { SVC_BASE_URL: 'http://127.0.0.1:9', SVC_API_KEY: sb.api_key },
    });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(
      /^svc mcp: aviso: el servicio no respondió al arrancar \(no se pudo conectar con 127\.0\.0\.1:9 .*\); las herramientas fallarán hasta que responda\nsvc mcp: listo por stdio, modo test\n$/,
    );
  });
});

/** An entry of a client's mcpServers, started as the client starts it: the SDK's stdio client. */
async function startEntry(entry: {
  command: string;
  args: string[];
  env?: Record<string, string>;
}): Promise<{ client: Client; stderr: () => string }> {
  expect(entry.command).toBe('svc');
  let stderr = '';
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, ...entry.args],
    cwd: ROOT,
    // What a client passes: its own few variables and the entry's env (folders of the test's own).
    env: {
      SVC_CONFIG_DIR: tempDir('svc-config-'),
      SVC_DATA_DIR: tempDir('svc-data-'),
      SVC_KEYRING: 'off',
      ...entry.env,
    },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (d) => (stderr += String(d)));
  const client = new Client({ name: 'svc-tests', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

describe('the configurations a client is given start and answer', () => {
  it('with env: the address and a test key', async () => {
    const { client, stderr } = await startEntry({
      command: 'svc',
      args: ['mcp'],
      env: { SVC_BASE_URL: sb.base_url, SVC_API_KEY: sb.api_key },
    });
    const r = (await client.callTool({ name: 'cuenta', arguments: {} })) as { isError?: boolean };
    expect(r.isError).toBeFalsy();
    expect(stderr()).toContain('svc mcp: listo por stdio, modo test, contra un sandbox\n');
    await client.close();
  }, 30_000);

  it('with a profile made by svc login', async () => {
    const config = configWith({ tienda: { base_url: sb.base_url, test_key: sb.api_key } });
    const { client } = await startEntry({
      command: 'svc',
      args: ['--profile', 'tienda', 'mcp'],
      env: { SVC_CONFIG_DIR: config },
    });
    const r = (await client.callTool({ name: 'listar_cobros', arguments: {} })) as {
      isError?: boolean;
    };
    expect(r.isError).toBeFalsy();
    await client.close();
  }, 30_000);
});
