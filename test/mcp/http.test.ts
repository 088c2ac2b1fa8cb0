// svc mcp --http: Streamable HTTP on loopback, with the MCP SDK's own client, against
// a service that is not a sandbox (no sandbox tools), and DNS-rebinding protection:
// a request under a name that is not loopback (Host) or from a page that is not
// (Origin) is refused with 403 before it reaches the MCP server.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { execa, type Options, type ResultPromise } from 'execa';
import { createServer, request, type Server } from 'node:http';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, tempDir } from '../helpers/cli.js';

let service: Server;
let proc: ResultPromise;
let url: URL;

beforeAll(async () => {
  // A service that answers its health as the real one would: not a sandbox.
  service = createServer((req, res) => {
    res.writeHead(req.url === '/v1/salud' ? 200 : 404, { 'content-type': 'application/json' });
    res.end(
      req.url === '/v1/salud'
        ? JSON.stringify({ ok: true, name: 'svc-api', version: 'v1' })
        : JSON.stringify({ error: 'not_found', message: 'resource not found' }),
    );
  });
  await new Promise<void>((done) => service.listen(0, '127.0.0.1', done));
  const base = `http://127.0.0.1:${(service.address() as { port: number }).port}`;
  const options: Options = {
    cwd: ROOT,
    env: {
      SVC_BASE_URL: base,
      SVC_API_KEY: 'svc_test_0123456789abcdef0123456789abcdef',
      SVC_CONFIG_DIR: tempDir(),
      SVC_DATA_DIR: tempDir(),
      SVC_KEYRING: 'off',
    },
    extendEnv: false,
    reject: false,
    buffer: false,
    stdin: 'ignore',
  };
  proc = execa('node', [BIN, 'mcp', '--http', '0', '--json'], options);
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).once('line', resolve);
    proc.once('exit', (code) => reject(new Error(`svc mcp --http exited with ${code}`)));
  });
  const ready = JSON.parse(line) as { url: string; modo: string; sandbox: boolean };
  expect(ready).toMatchObject({ modo: 'test', sandbox: false });
  url = new URL(ready.url);
}, 60_000);

afterAll(async () => {
  proc?.kill('SIGTERM');
  const r = await proc;
  expect(r.exitCode).toBe(0);
  service?.close();
});

/** A raw POST of initialize with the given Host and Origin headers (fetch cannot set Host). */
function post(headers: Record<string, string>): Promise<number> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 't', version: '1' },
    },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode!);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('svc mcp --http', () => {
  it('serves the tools on 127.0.0.1 to the SDK’s client; no sandbox tools when the address is not a sandbox', async () => {
    const client = new Client({ name: 'svc-tests', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('listar_cobros');
    expect(tools.filter((t) => t.name.startsWith('sandbox_'))).toEqual([]);
    const r = (await client.callTool({ name: 'salud', arguments: {} })) as {
      content: { text: string }[];
      structuredContent: unknown;
    };
    expect(r.content[0]!.text).toBe('el servicio responde: ok');
    expect(r.structuredContent).toEqual({ ok: true, name: 'svc-api', version: 'v1' });
    await client.close();
  });

  it('DNS-rebinding protection: a Host or an Origin that is not loopback gets 403', async () => {
    const port = url.port;
    expect(await post({ host: `evil.example:${port}` })).toBe(403);
    expect(await post({ host: `127.0.0.1:${port}`, origin: 'http://evil.example' })).toBe(403);
    expect(await post({ host: `localhost:${port}`, origin: `http://localhost:${port}` })).toBe(200);
    expect(await post({ host: `[::1]:${port}` })).toBe(200);
  });
});
