// svc webhook conciliar against a real sandbox whose notifications go through the real
// listener to an app written here: exit 0 while the app heard everything; exit 1
// naming the request and `trigger` when the listener missed a payment, and naming the
// journal's event and `replay` when the app refused it.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../../src/webhooks/event-journal.js';
import { reconcile } from '../../../src/webhooks/reconcile.js';
import { startListener, type Listener } from '../../../src/webhooks/listen.js';
import { svcSpawned, tempDir } from '../../helpers/cli.js';
import { svc } from '../../helpers/inproc.js';
import { startReceiver, type Receiver } from '../../helpers/receiver.js';
import { startSandbox, type Sandbox } from '../../helpers/sandbox.js';

let sb: Sandbox;
let app: Receiver;
let listener: Listener;
let journal: string;
let env: Record<string, string>;

/** Waits until `n` events are in the journal (on disk: an event counts as received before its line is written). */
const settle = async (n: number) => {
  const count = () => readJournal(journal).entries.length;
  for (let i = 0; i < 200 && count() < n; i++) await new Promise((r) => setTimeout(r, 50));
  expect(count()).toBeGreaterThanOrEqual(n);
};

beforeAll(async () => {
  // Retries an hour apart: a refused notification stays refused while the test looks.
  sb = await startSandbox({ retrySchedule: [3_600_000] });
  app = await startReceiver();
  journal = join(tempDir('svc-conciliar-'), 'webhooks.jsonl');
  listener = await startListener({
    secret: sb.webhook_secret,
    port: 0,
    journal,
    forwardTo: app.url,
  });
  expect((await sb.api('POST', '/_sandbox/webhook', { url: listener.url })).status).toBe(200);
  env = { ...sb.env, SVC_DATA_DIR: join(journal, '..') };
});
afterAll(async () => {
  await listener?.close();
  await app?.close();
  await sb?.stop();
});

describe('svc webhook conciliar', () => {
  it('exit 0 while the app accepted every change; exit 1 naming the request the listener never heard of, with trigger', async () => {
    const a = (await sb.api('POST', '/v1/cobros', { concepto: 'A', monto: '10.00' })).body.data;
    await sb.api('POST', `/_sandbox/cobros/${a.id}/pagar`, {});
    await settle(2);
    const agree = await svcSpawned(['webhook', 'conciliar'], { env });
    expect(agree.exitCode, agree.stderr).toBe(0);
    expect(agree.stderr).toMatch(/tu app está al día: el cobro coincide con lo que le llegó/);

    // The listener is away while B is paid: its approval never reaches the journal.
    await sb.api('POST', '/_sandbox/webhook', { url: null });
    const b = (await sb.api('POST', '/v1/cobros', { concepto: 'B', monto: '20.00' })).body.data;
    await sb.api('POST', `/_sandbox/cobros/${b.id}/pagar`, { medio: 'qr' });
    await sb.api('POST', '/_sandbox/webhook', { url: listener.url });

    const differ = await svc(['webhook', 'conciliar', '--json', '--forward-to', app.url], { env });
    expect(differ.exitCode).toBe(1);
    expect(
      differ.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      {
        cobro_id: b.id,
        codigo: b.codigo,
        app: null,
        servicio: 'PAGADA',
        arreglo: `svc webhook trigger payment.approved --cobro ${b.id} --forward-to ${app.url}`,
      },
    ]);
    expect(differ.stderr).toMatch(/1 de 2 cobros no coinciden/);
  });

  it('an event the app refused: its state is what the app last accepted, the fix replays the journaled event', async () => {
    const before = readJournal(journal).entries.length;
    const c = (await sb.api('POST', '/v1/cobros', { concepto: 'C', monto: '30.00' })).body.data;
    await settle(before + 1);
    app.answer = () => ({ status: 500, body: 'se rompió' });
    await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, {});
    await settle(before + 2);
    app.answer = () => ({ status: 200, body: 'ok' });
    const r = await svc(['webhook', 'conciliar'], { env });
    expect(r.exitCode).toBe(1);
    const row = r.stdout
      .trim()
      .split('\n')
      .find((l) => l.startsWith(`${c.id}\t`))!;
    expect(row).toMatch(
      new RegExp(`^${c.id}\\t${c.codigo}\\tPENDIENTE\\tPAGADA\\tsvc webhook replay evt_[0-9a-f]+$`),
    );

    // Replaying it, as the row says, brings the app up to date.
    const replay = row.split('\t')[4]!.split(' ').slice(1);
    expect((await svc([...replay, '--forward-to', app.url], { env })).exitCode).toBe(0);
    const after = await svc(['webhook', 'conciliar'], { env });
    expect(after.stdout).not.toMatch(new RegExp(`^${c.id}\\t`, 'm'));
    // --desde leaves out the requests created before it.
    const later = await svc(['webhook', 'conciliar', '--desde', '2999-01-01'], { env });
    expect(later.exitCode).toBe(0);
    expect(later.stderr).toMatch(/no hay cobros desde 2999-01-01 00:00:00: nada que conciliar/);
  });

  it('--desde that is not a date: exit 2', async () => {
    const r = await svc(['webhook', 'conciliar', '--desde', 'ayer'], { env });
    expect(r.exitCode).toBe(2);
  });

  it('reconcile: the last accepted event per request decides; rejected and unverified entries tell nothing', () => {
    const cobro = { id: 1, codigo: 'K7QM3XW9PA', estado: 'PAGADA' } as never;
    const entry = (
      estado: string,
      outcome: string,
      valid = true,
      at = '2026-01-01T00:00:00.000Z',
    ) =>
      ({
        id: `evt_${estado}`,
        cobro_id: 1,
        estado,
        outcome,
        verification: { valid },
        received_at: at,
      }) as never;
    expect(
      reconcile([cobro], [entry('PENDIENTE', 'forwarded'), entry('PAGADA', 'forwarded')]),
    ).toEqual([]);
    expect(reconcile([cobro], [entry('PAGADA', 'forwarded', false)])[0]).toMatchObject({
      app: null,
      arreglo: 'svc webhook trigger payment.approved --cobro 1 --forward-to URL_DE_TU_APP',
    });
  });
});
