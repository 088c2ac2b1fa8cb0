// Requests older than the journal (no event about them, unchanged since its first one)
// are counted apart by `webhook conciliar`: on a terminal in a note, with --json in one
// JSON line on stderr (stdout keeps one difference a line), and in svc mcp's
// webhook_conciliar as `anteriores`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/cli.js';
import { svc } from '../../helpers/inproc.js';
import { journalEntryAs } from '../../helpers/journal.js';
import { startMcpInProcess } from '../../helpers/mcp.js';
import { startSandbox, type InProcessSandbox } from '../../helpers/sandbox.js';

let sb: InProcessSandbox;
const data = tempDir('svc-anteriores-');
const journal = join(data, 'webhooks.jsonl');
let paid: number;
// The listener's first event comes after every request below was made or changed.
const inicio = new Date(Date.now() + 3_600_000).toISOString();

beforeAll(async () => {
  sb = await startSandbox();
  const ids: number[] = [];
  for (const monto of ['10.00', '20.00', '30.00']) ids.push((await sb.cobro({ monto })).id);
  paid = ids[0]!;
  expect((await sb.api('POST', `/_sandbox/cobros/${paid}/pagar`, {})).status).toBe(200);
  // The app heard of the first request as PENDIENTE only; of the other two, nothing.
  const entry = journalEntryAs('evt_00000000000a', {
    event: 'payment.created',
    cobro_id: paid,
    estado: 'PENDIENTE',
    received_at: inicio,
    outcome: 'forwarded',
    target: 'http://127.0.0.1:4242/webhooks',
    status: 200,
    answered: 200,
    latency_ms: 4,
  });
  writeFileSync(journal, `${JSON.stringify({ ...entry, source: 'listen' })}\n`);
});
afterAll(() => sb?.close());

/** The JSON lines of stderr. */
const jsonLines = (stderr: string) =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('webhook conciliar: requests older than the journal', () => {
  it('--json: stdout one difference a line; stderr counts them, apart from the error', async () => {
    const r = await svc(['webhook', 'conciliar', '--journal', journal, '--json'], {
      env: sb.env,
    });
    expect(r.exitCode, r.stderr).toBe(1);
    const lines = r.stdout.trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { cobro_id: number }).cobro_id)).toEqual([paid]);
    const [counts, error] = jsonLines(r.stderr);
    expect(counts).toEqual({
      cobros: 3,
      juzgados: 1,
      diferencias: 1,
      anteriores: 2,
      journal_desde: inicio,
    });
    expect(error).toMatchObject({ error: 'mismatch' });
    // --anteriores judges them too: none left apart.
    const all = await svc(
      ['webhook', 'conciliar', '--journal', journal, '--json', '--anteriores'],
      { env: sb.env },
    );
    expect(all.exitCode, all.stderr).toBe(1);
    expect(jsonLines(all.stderr)[0]).toMatchObject({ juzgados: 3, diferencias: 3, anteriores: 0 });
  });

  it('svc mcp webhook_conciliar says how many were not judged, in its data and its line', async () => {
    const mcp = await startMcpInProcess([], { ...sb.env, SVC_DATA_DIR: data });
    try {
      const r = await mcp.client.callTool({ name: 'webhook_conciliar', arguments: {} });
      const out = r.structuredContent as Record<string, unknown>;
      expect(r.isError, JSON.stringify(out)).toBeFalsy();
      expect(out).toMatchObject({ cantidad: 1, anteriores: 2, journal_desde: inicio });
      expect((r.content as { text: string }[])[0]!.text).toBe(
        '1 diferencia entre el journal y el servicio; 2 cobros anteriores al journal, sin juzgar',
      );
    } finally {
      await mcp.close();
    }
  });

  it('a journal that does not know the app’s address: the one command for all carries --forward-to', async () => {
    // The listener ran without --forward-to: it answered the service and kept no address.
    const blind = join(data, 'sin-direccion.jsonl');
    const entry = journalEntryAs('evt_00000000000c', {
      event: 'payment.created',
      cobro_id: paid,
      estado: 'PENDIENTE',
      received_at: inicio,
      outcome: 'received',
      target: null,
      status: null,
      answered: 200,
    });
    writeFileSync(blind, `${JSON.stringify({ ...entry, source: 'listen' })}\n`);
    const r = await svc(['webhook', 'conciliar', '--journal', blind], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toContain(
      `→ todo de una vez: svc webhook conciliar --forward-to URL_DE_TU_APP --journal ${blind} --plan conciliar.json, y después --aplicar conciliar.json`,
    );
    // Run as printed with the app's address in its place, it writes the plan.
    const plan = join(data, 'conciliar.json');
    const planned = await svc(
      [
        'webhook',
        'conciliar',
        '--forward-to',
        'http://127.0.0.1:4242/webhooks',
        '--journal',
        blind,
        '--plan',
        plan,
      ],
      { env: sb.env },
    );
    expect(planned.stderr).toMatch(/^plan escrito en /m);
  });
});
