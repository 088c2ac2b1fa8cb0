// svc mcp as an assistant's client starts it: what every tool needs (the service's
// address, a key of the mode asked) is checked before serving. A configuration that
// could only fail does not start: its exit code, and on stderr what to put in the
// client's entry. Every entry the docs give a client (env, a profile, the sandbox, VS
// Code's, HTTP) starts as that client starts it, through the MCP SDK's own client, and
// answers a call.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { execa } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, configWith, tempDir } from '../helpers/cli.js';
import { svc } from '../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';

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

/** A client's entry for svc, as the docs show it. */
interface Entry {
  type?: string;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  headers?: Record<string, string>;
}

/** Every entry the docs give a client: the JSON blocks with mcpServers (VS Code's: servers). */
function documentedEntries(): { where: string; name: string; entry: Entry }[] {
  const found: { where: string; name: string; entry: Entry }[] = [];
  for (const file of ['README.md', 'docs/agentes.md']) {
    const path = join(ROOT, file);
    if (!existsSync(path)) continue;
    for (const m of readFileSync(path, 'utf8').matchAll(/```json\n([\s\S]*?)```/g)) {
      if (!/"(mcpServers|servers)"/.test(m[1]!)) continue;
      const block = JSON.parse(m[1]!) as Record<string, Record<string, Entry>>;
      for (const [name, entry] of Object.entries(block.mcpServers ?? block.servers ?? {}))
        found.push({ where: file, name, entry });
    }
  }
  return found;
}

/**
 * An entry started as its client starts it, against the test's sandbox: its placeholders
 * (the address, the key, a profile's name, a file) made real, nothing else changed.
 */
async function startDocumented(
  entry: Entry,
): Promise<{ client: Client; stop: () => Promise<void> }> {
  const client = new Client({ name: 'svc-tests', version: '1.0.0' });
  if (entry.type === 'http') {
    const tokenFile = join(tempDir('svc-mcp-token-'), 'token');
    const p = execa('node', [BIN, 'mcp', '--http', '0', '--json', '--token-archivo', tokenFile], {
      cwd: ROOT,
      env: {
        ...sb.env,
        SVC_CONFIG_DIR: tempDir('svc-config-'),
        SVC_DATA_DIR: tempDir('svc-data-'),
        SVC_KEYRING: 'off',
      },
      reject: false,
      buffer: false,
      stdin: 'ignore',
    });
    const ready = JSON.parse(
      await new Promise<string>((resolve) =>
        createInterface({ input: p.stdout! }).once('line', resolve),
      ),
    ) as { url: string };
    const token = readFileSync(tokenFile, 'utf8').trim();
    const url = new URL(entry.url!);
    url.port = new URL(ready.url).port;
    const headers = Object.fromEntries(
      Object.entries(entry.headers ?? {}).map(([k, v]) => [k, v.replace('TOKEN', token)]),
    );
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    return {
      client,
      stop: async () => {
        await client.close();
        p.kill('SIGTERM');
        await p;
      },
    };
  }
  expect(entry.command).toBe('svc');
  const args = [...(entry.args ?? [])];
  const env: Record<string, string> = {
    SVC_CONFIG_DIR: tempDir('svc-config-'),
    SVC_DATA_DIR: tempDir('svc-data-'),
    SVC_KEYRING: 'off',
  };
  const profile = args.indexOf('--profile');
  if (profile >= 0)
    env.SVC_CONFIG_DIR = configWith({
      [args[profile + 1]!]: { base_url: sb.base_url, test_key: sb.api_key },
    });
  const registro = args.indexOf('--registro');
  if (registro >= 0) args[registro + 1] = join(tempDir('svc-mcp-'), 'registro.jsonl');
  for (const [k, v] of Object.entries(entry.env ?? {})) {
    if (k === 'SVC_BASE_URL') {
      expect(v).toMatch(/^https?:\/\//);
      env[k] = sb.base_url;
    } else if (k === 'SVC_API_KEY') {
      expect(v).toMatch(/^svc_test_/);
      env[k] = sb.api_key;
    } else env[k] = v;
  }
  let stderr = '';
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, ...args],
    cwd: ROOT,
    env,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (d) => (stderr += String(d)));
  await client.connect(transport).catch((err: Error) => {
    throw new Error(`svc mcp did not start (${err.message}); its stderr:\n${stderr}`);
  });
  await waitFor('the ready line', () => stderr.includes('svc mcp: listo por stdio'));
  expect(stderr).toContain('svc mcp: listo por stdio, modo test, contra un sandbox\n');
  return { client, stop: () => client.close() };
}

describe('every client entry the docs show starts as its client starts it, and answers', () => {
  const entries = documentedEntries();
  it('the docs show entries with env, with a profile, against the sandbox and over HTTP', () => {
    const shown = entries.map((e) => e.entry);
    expect(shown.some((e) => e.env?.SVC_API_KEY)).toBe(true);
    expect(shown.some((e) => e.args?.includes('--profile'))).toBe(true);
    expect(shown.some((e) => e.env?.SVC_BASE_URL?.startsWith('http://127.0.0.1'))).toBe(true);
    expect(shown.some((e) => e.type === 'http')).toBe(true);
  });
  it.each(entries.map((e, i) => ({ ...e, n: `#${i + 1}` })))(
    '$where $n',
    async ({ entry }) => {
      const { client, stop } = await startDocumented(entry);
      try {
        const r = (await client.callTool({ name: 'cuenta', arguments: {} })) as {
          isError?: boolean;
          content: { text: string }[];
        };
        expect(r.isError, r.content[0]?.text).toBeFalsy();
        expect(r.content[0]!.text).toMatch(/^cuenta \d+: /);
      } finally {
        await stop();
      }
    },
    30_000,
  );
});
