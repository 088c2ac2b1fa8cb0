// What `svc mcp` costs an assistant in tokens (run after a build: node test/bench/run.mjs mcp):
// the size of `tools/list` and of each tool's answer on a fixed sandbox scenario (39
// payment requests, every third paid, one refunded, their notifications in a journal),
// through the MCP SDK's own client over stdio. Size is the bytes of the JSON the client
// receives (the result, or the tools list); tokens are given as bytes / 4, a rough rule
// for JSON. Figures only: test/mcp/stdio.test.ts keeps tools/list under its aim.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { createServer } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const bin = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-mcp-'));
const journal = join(dir, 'data', 'webhooks.jsonl');
const N = 39;

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
const firstLine = (child) =>
  new Promise((resolve) => createInterface({ input: child.stdout }).once('line', resolve));

const hookPort = await freePort();
const sandbox = spawn(
  process.execPath,
  [
    bin,
    'sandbox',
    '--port',
    '0',
    '--json',
    '--ready-delay',
    '0',
    '--webhook-url',
    `http://127.0.0.1:${hookPort}/`,
  ],
  { stdio: ['ignore', 'pipe', 'ignore'] },
);
const info = JSON.parse(await firstLine(sandbox));
const env = {
  ...process.env,
  SVC_BASE_URL: info.base_url,
  SVC_API_KEY: info.api_key,
  SVC_WEBHOOK_SECRET: info.webhook_secret,
  SVC_CONFIG_DIR: join(dir, 'config'),
  SVC_DATA_DIR: join(dir, 'data'),
  SVC_KEYRING: 'off',
  NO_COLOR: '1',
};
const listener = spawn(process.execPath, [bin, 'webhook', 'listen', '--port', String(hookPort)], {
  env,
  stdio: ['ignore', 'ignore', 'pipe'],
});
await new Promise((resolve) => {
  let err = '';
  listener.stderr.on('data', (d) => {
    err += d;
    if (err.includes('Listo.')) resolve();
  });
});

const api = async (method, path, body) => {
  const r = await fetch(info.base_url + path, {
    method,
    headers: { authorization: `Bearer ${info.api_key}`, 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  });
  return (await r.json()).data;
};
const created = [];
for (let i = 0; i < N; i++) {
  const c = await api('POST', '/v1/cobros', {
    concepto: `Pedido ${1000 + i}`,
    monto: `${100 + i}.50`,
    referencia: `pedido-${1000 + i}`,
  });
  created.push(c);
  if (i % 3 === 0) await api('POST', `/_sandbox/cobros/${c.id}/pagar`, { medio: 'qr' });
}
await api('POST', `/v1/cobros/${created[0].id}/devoluciones`, { monto: '10.00' });
// Every notification in the journal (bounded: 20 s).
const expected = N + Math.ceil(N / 3) + 1;
for (let t = 0; t < 200; t++) {
  const lines = existsSync(journal) ? readFileSync(journal, 'utf8').trim().split('\n') : [];
  if (lines.length >= expected) break;
  await new Promise((r) => setTimeout(r, 100));
}

const transport = new StdioClientTransport({
  command: process.execPath,
  args: [bin, 'mcp', '--planes', join(dir, 'planes')],
  env,
  stderr: 'ignore',
});
const client = new Client({ name: 'svc-bench', version: '1.0.0' });
await client.connect(transport);
const size = (v) => Buffer.byteLength(JSON.stringify(v));
const row = (name, bytes) =>
  console.log(
    `${name.padEnd(34)} ${String(bytes).padStart(7)} B  ~${Math.round(bytes / 4)} tokens`,
  );

const tools = await client.listTools();
row('tools/list', size(tools));
const paid = created[3];
const eventId = JSON.parse(readFileSync(journal, 'utf8').split('\n')[0]).id;
const calls = [
  ['salud', {}],
  ['cuenta', {}],
  ['cargos', {}],
  ['buscar_cobro', { cobro: String(paid.id) }],
  ['listar_cobros', {}],
  ['listar_transacciones', {}],
  ['listar_devoluciones', {}],
  ['listar_liquidaciones', {}],
  ['caso', { cobro: String(created[0].id) }],
  ['webhook_eventos', {}],
  ['webhook_ver', { id: eventId }],
  ['webhook_conciliar', {}],
  ['crear_cobro', { concepto: 'Pedido 2000', monto: '10.00' }],
  ['preparar_devolucion', { cobro: String(paid.id), monto: '5.00' }],
];
let total = 0;
for (const [name, args] of calls) {
  const r = await client.callTool({ name, arguments: args });
  const bytes = size(r);
  total += bytes;
  row(`${name}${r.isError ? ' (error)' : ''}`, bytes);
}
row(`the ${calls.length} calls above`, total);
await client.close();
listener.kill('SIGTERM');
sandbox.kill('SIGTERM');
await new Promise((r) => listener.once('exit', r));
rmSync(dir, { recursive: true, force: true });
