// svc mcp and live mode (money): test mode unless started with --live, and in live
// mode crear_cobro creates nothing the person did not confirm through the client
// (MCP elicitation); a client that cannot ask gets a refusal. The server runs in
// this process (test/helpers/mcp.ts) against a sandbox's rehearsal live key.
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcSpawned } from '../helpers/cli.js';
import { startMcpInProcess, type InProcessMcp } from '../helpers/mcp.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';

let sb: Sandbox;
let env: Record<string, string>;
let asking: InProcessMcp;
let answer: ElicitResult = { action: 'decline' };
const asked: string[] = [];

type Result = {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, any>;
  isError?: boolean;
};
const cobros = async () =>
  (await sb.api('GET', '/v1/cobros', undefined, sb.api_key_live!)).body.data as unknown[];

beforeAll(async () => {
  sb = await startSandbox();
  env = { ...sb.env, SVC_API_KEY: sb.api_key_live! };
  asking = await startMcpInProcess(['--live'], env, {
    capabilities: { elicitation: { form: {} } },
  });
  asking.client.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.params.message);
    return answer;
  });
}, 60_000);

afterAll(async () => {
  await asking?.close();
  await sb?.stop();
});

describe('svc mcp in live mode', () => {
  it('a live key without --live: svc mcp does not start (exit 2, one line)', async () => {
    const r = await svcSpawned(['mcp'], { env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(
      'error: la clave en uso es live (svc_live_…) y svc mcp trabaja en modo test: para operar con dinero real, svc mcp --live\n' +
        '→ en la entrada del cliente MCP: una clave svc_test_… en "env" (SVC_API_KEY) para modo test, o "args": ["mcp", "--live"] para dinero real (cada cobro lo confirma la persona)\n',
    );
    expect(r.stdout).toBe('');
  });

  it('crear_cobro asks the person; declined or unanswered, nothing is created', async () => {
    const call = (args: Record<string, unknown>) =>
      asking.client.callTool({ name: 'crear_cobro', arguments: args }) as Promise<Result>;
    answer = { action: 'decline' };
    const declined = await call({ concepto: 'Pedido 9', monto: '75.00' });
    expect(declined.isError).toBe(true);
    expect(JSON.parse(declined.content[0]!.text)).toEqual({
      error: 'cancelled',
      message: 'cancelado: la persona no confirmó el cobro live; no se creó nada',
    });
    expect(asked).toEqual(['MODO LIVE (dinero real): ¿crear un cobro de 75.00 por "Pedido 9"?']);
    answer = { action: 'accept', content: { confirmar: false } };
    expect((await call({ concepto: 'Pedido 9', monto: '75.00' })).isError).toBe(true);
    expect(await cobros()).toEqual([]);

    answer = { action: 'accept', content: { confirmar: true } };
    const created = await call({ concepto: 'Pedido 9', monto: '75.00' });
    expect(created.isError, created.content[0]!.text).toBeFalsy();
    expect(created.structuredContent!.monto).toBe('75.00');
    expect(await cobros()).toHaveLength(1);
  });

  it('a client that cannot ask the person: live crear_cobro is refused, read tools work', async () => {
    const mute = await startMcpInProcess(['--live'], env);
    try {
      const r = (await mute.client.callTool({
        name: 'crear_cobro',
        arguments: { concepto: 'Pedido 10', monto: '5' },
      })) as Result;
      expect(r.isError).toBe(true);
      expect(JSON.parse(r.content[0]!.text).error).toBe('usage');
      expect(await cobros()).toHaveLength(1);
      const listed = (await mute.client.callTool({
        name: 'listar_cobros',
        arguments: {},
      })) as Result;
      expect(listed.structuredContent!.cantidad).toBe(1);
      // Refund plans in live mode are plans too, for the live profile.
      const { tools } = await mute.client.listTools();
      expect(tools.map((t) => t.name)).toContain('preparar_devolucion');
    } finally {
      expect(await mute.close()).toBe(0);
    }
  });
});
