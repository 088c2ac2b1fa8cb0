// svc mcp never hands out the key, the signing secret or a signature, even when they
// are in the data its tools read: planted in a payment request's concepto, in the body
// of a notification in the journal, and in the error messages of a service that
// echoes what it was sent. Every tool is called; no result (text or structured), no
// stderr line and no audit line in --registro may hold any of them.
import { createServer, type Server } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleBody } from '../../src/webhooks/events.js';
import { startListener } from '../../src/webhooks/listen.js';
import { notificationHeaders, signatureHeader } from '../../src/webhooks/signature.js';
import { tempDir } from '../helpers/cli.js';
import { startMcpInProcess } from '../helpers/mcp.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';

let sb: Sandbox;
let echo: Server;
let echoUrl = '';
let signature = '';
const data = tempDir('svc-mcp-secrets-');

/** The three values that must never leave, as text to plant. */
const planted = () => `clave ${sb.api_key} secreto ${sb.webhook_secret} firma ${signature}`;

/** Every place a value could leak through: what was given must not hold key, secret or signature digest. */
function expectClean(where: string, text: string): void {
  const digest = signature.split('=')[1]!;
  for (const [name, value] of [
    ['the API key', sb.api_key],
    ['the signing secret', sb.webhook_secret],
    ['the signature', digest],
  ] as const)
    expect(text.includes(value), `${where} holds ${name}`).toBe(false);
}

beforeAll(async () => {
  sb = await startSandbox();
  const body = JSON.stringify({ ...sampleBody('payment.approved', { cobro_id: 1 }) });
  signature = signatureHeader(sb.webhook_secret, Math.floor(Date.now() / 1000), body);
  // A notification whose body carries all three, in the journal the tools read.
  const listener = await startListener({
    secret: sb.webhook_secret,
    port: 0,
    journal: join(data, 'webhooks.jsonl'),
  });
  const noted = JSON.stringify({
    ...sampleBody('payment.approved', { cobro_id: 1 }),
    nota: planted(),
  });
  const r = await fetch(listener.url, {
    method: 'POST',
    headers: notificationHeaders(sb.webhook_secret, 'payment.approved', noted),
    body: noted,
  });
  expect(r.status).toBe(200);
  await listener.close();
  // A service that answers every request with an error echoing what it got: the
  // Authorization header, the body, and the secret and signature for good measure.
  echo = createServer((req, res) => {
    let got = '';
    req.on('data', (d) => (got += String(d)));
    req.on('end', () => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: 'bad_request',
          message: `rechazado: ${req.headers.authorization} ${got} ${sb.webhook_secret} ${signature}`,
        }),
      );
    });
  });
  await new Promise<void>((done) => echo.listen(0, '127.0.0.1', done));
  const addr = echo.address() as { port: number };
  echoUrl = `http://127.0.0.1:${addr.port}`;
});

afterAll(async () => {
  echo?.close();
  await sb?.stop();
});

describe('svc mcp keeps the key, the signing secret and signatures out of every output', () => {
  it('planted in a concepto, a journal body and the service’s error messages, none comes out', async () => {
    // A payment request whose concepto holds all three (the sandbox keeps it as written).
    const made = await sb.api('POST', '/v1/cobros', { concepto: planted(), monto: '100.00' });
    expect(made.status).toBe(201);
    const id = String(made.body.data.id);
    const csv = join(data, 'lote.csv');
    writeFileSync(csv, `cobro,monto,motivo\n${id},10.00,${planted()}\n`);
    const outputs: string[] = [];
    const registros: string[] = [];
    const stderrs: string[] = [];

    for (const [base, env] of [
      ['the sandbox', sb.env],
      ['a service echoing what it got', { ...sb.env, SVC_BASE_URL: echoUrl }],
    ] as const) {
      const registro = join(tempDir('svc-mcp-registro-'), 'registro.jsonl');
      const mcp = await startMcpInProcess(
        ['--registro', registro, '--planes', join(tempDir('svc-mcp-planes-'), 'planes')],
        { ...env, SVC_DATA_DIR: data },
      );
      try {
        const { tools } = await mcp.client.listTools();
        expect(tools.length).toBeGreaterThan(10);
        const evento = JSON.parse(
          readFileSync(join(data, 'webhooks.jsonl'), 'utf8').split('\n')[0]!,
        ).id as string;
        // Each tool with what it needs, and the planted text wherever it takes free text.
        const args: Record<string, Record<string, unknown>> = {
          buscar_cobro: { cobro: id },
          caso: { cobro: id },
          webhook_ver: { id: evento },
          crear_cobro: { concepto: planted().slice(0, 200), monto: '5.00' },
          preparar_devolucion: { cobro: id, monto: '1', motivo: planted() },
          preparar_lote: { lote: csv, motivo: planted() },
          sandbox_pagar: { id },
          sandbox_rechazar: { id },
          sandbox_expirar: { id },
          sandbox_fallas: { accion: 'listar' },
        };
        for (const tool of tools) {
          const r = await mcp.client.callTool({
            name: tool.name,
            arguments: args[tool.name] ?? {},
          });
          outputs.push(`${base} ${tool.name}: ${JSON.stringify(r)}`);
        }
      } finally {
        await mcp.close();
      }
      stderrs.push(mcp.stderr());
      registros.push(readFileSync(registro, 'utf8'));
    }
    // The planted text did reach the tools: the concepto and the journal body came back, hidden.
    const hidden = 'clave [oculto] secreto [oculto] firma [oculto]';
    for (const tool of ['buscar_cobro', 'webhook_ver'])
      expect(
        outputs.find((o) => o.startsWith(`the sandbox ${tool}:`)),
        `${tool} shows what it read`,
      ).toContain(hidden);
    expect(
      outputs.some((o) => o.includes('rechazado:')),
      'the echoing service’s message came back',
    ).toBe(true);
    for (const o of outputs) expectClean(o.slice(0, 80), o);
    for (const e of stderrs) expectClean('stderr', e);
    for (const a of registros) expectClean('the audit file', a);
  });
});
