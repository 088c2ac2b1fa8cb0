// svc mcp --http: Streamable HTTP on loopback, with the MCP SDK's own client, against
// a service that is not a sandbox (no sandbox tools), and DNS-rebinding protection:
// a request under a name that is not loopback (Host) or from a page that is not
// (Origin) is refused with 403 before it reaches the MCP server. Loopback is every user
// of the machine: each request carries the token shown at start (401 without it), and
// sessions are capped and closed when idle.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { execa, type Options, type ResultPromise } from 'execa';
import { chmodSync, readFileSync, statSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, tempDir } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';

let service: Server;
let proc: ResultPromise;
let url: URL;
let token: string;
let options: Options;

/** Starts `svc mcp --http 0 --json …` and returns its ready line. */
async function startHttp(
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<{ proc: ResultPromise; ready: Record<string, any> }> {
  const p = execa('node', [BIN, 'mcp', '--http', '0', '--json', ...args], {
    ...options,
    env: { ...options.env, ...env },
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: p.stdout! }).once('line', resolve);
    p.once('exit', (code) => reject(new Error(`svc mcp --http exited with ${code}`)));
  });
  return { proc: p, ready: JSON.parse(line) };
}

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
  options = {
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
  const started = await startHttp();
  proc = started.proc;
  expect(started.ready).toMatchObject({ modo: 'test', sandbox: false });
  expect(started.ready.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  url = new URL(started.ready.url);
  token = started.ready.token;
}, 60_000);

afterAll(async () => {
  proc?.kill('SIGTERM');
  const r = await proc;
  expect(r.exitCode).toBe(0);
  service?.close();
});

/** A raw POST of initialize with the given headers (fetch cannot set Host); the token unless told. */
async function post(headers: Record<string, string>, to = url, bearer = token): Promise<number> {
  return (await send(headers, to, bearer)).status;
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 't', version: '1' },
  },
};

/** A raw POST (initialize unless told): its status and the session it opened. */
function send(
  headers: Record<string, string>,
  to = url,
  bearer = token,
  message: object = INITIALIZE,
): Promise<{ status: number; session?: string }> {
  const body = JSON.stringify(message);
  return new Promise((resolve, reject) => {
    const req = request(
      to,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
          ...headers,
        },
      },
      (res) => {
        res.resume();
        const session = res.headers['mcp-session-id'];
        resolve({
          status: res.statusCode!,
          session: typeof session === 'string' ? session : undefined,
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('svc mcp --http', () => {
  it('serves the tools on 127.0.0.1 to the SDK’s client; no sandbox tools when the address is not a sandbox', async () => {
    const client = new Client({ name: 'svc-tests', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
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

  it('every request carries the token shown at start: without it, or with another, 401 and nothing served', async () => {
    expect(await post({}, url, '')).toBe(401);
    expect(await post({}, url, `${token.slice(0, -1)}x`)).toBe(401);
    expect(await post({ authorization: token })).toBe(401);
    // Another user of this machine, with the SDK's client and no token, gets no tool.
    const stranger = new Client({ name: 'otro', version: '1.0.0' });
    await expect(stranger.connect(new StreamableHTTPClientTransport(url))).rejects.toThrow(
      /falta el token/,
    );
  });

  it('sessions are capped: the 17th initialize is refused while 16 are open', async () => {
    const { proc: p, ready } = await startHttp();
    const at = new URL(ready.url);
    const statuses: number[] = [];
    for (let i = 0; i < 17; i++) statuses.push(await post({}, at, ready.token));
    expect(statuses).toEqual([...Array(16).fill(200), 503]);
    p.kill('SIGTERM');
    expect((await p).exitCode).toBe(0);
  });

  it('a session nobody uses is closed: its id is then unknown (404)', async () => {
    const { proc: p, ready } = await startHttp([], { SVC_MCP_IDLE_MS: '300' });
    const at = new URL(ready.url);
    const opened = await send({}, at, ready.token);
    expect(opened.status).toBe(200);
    const ping = { jsonrpc: '2.0', id: 2, method: 'ping' };
    await waitFor(
      'the idle session to close',
      async () =>
        (await send({ 'mcp-session-id': opened.session! }, at, ready.token, ping)).status === 404,
      15_000,
      // Asked less often than the session's idle time: each request keeps a session open.
      1_000,
    );
    p.kill('SIGTERM');
    expect((await p).exitCode).toBe(0);
  });

  it('--token-archivo: the token is kept in a 0600 file, made when missing, refused when others can read it', async () => {
    const file = join(tempDir(), 'token');
    const { proc: p, ready } = await startHttp(['--token-archivo', file]);
    expect(ready.token).toBeUndefined();
    expect(ready.token_archivo).toBe(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const kept = readFileSync(file, 'utf8').trim();
    expect(await post({}, new URL(ready.url), kept)).toBe(200);
    p.kill('SIGTERM');
    await p;
    chmodSync(file, 0o644);
    const refused = await execa('node', [BIN, 'mcp', '--http', '0', '--token-archivo', file], {
      ...options,
      buffer: true,
    });
    expect(refused.exitCode).toBe(2);
    expect(String(refused.stderr)).toMatch(/^error: .*token/);
  });
});
