// svc webhook conciliar against a real sandbox whose notifications go through the real
// listener to an app written here: exit 0 while the app heard everything; exit 1
// naming the request and `trigger` when the listener missed a payment, and naming the
// journal's event and `replay` when the app refused it; the journal's app address filled
// in, requests older than the journal counted apart, a terminal's view grouped by what to
// do at 80 and 60 columns, and every fix planned then applied in one command.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../../src/webhooks/event-journal.js';
import { reconcile } from '../../../src/webhooks/reconcile.js';
import { startListener, type Listener } from '../../../src/webhooks/listen.js';
import { svcSpawned, tempDir } from '../../helpers/cli.js';
import { svc, svcOnTerminal } from '../../helpers/inproc.js';
import { startReceiver, type Receiver } from '../../helpers/receiver.js';
import { startSandbox, type Sandbox } from '../../helpers/sandbox.js';

let sb: Sandbox;
let app: Receiver;
let listener: Listener;
let journal: string;
let env: Record<string, string>;
/** Requests made before the listener ever ran: the journal cannot know whether the app heard of them. */
let old: number[];

/** Waits until the service's clock (seconds) has moved past now: dates before and after are then apart. */
const nextSecond = async () => {
  const start = Math.floor(Date.now() / 1000);
  for (let i = 0; i < 30 && Math.floor(Date.now() / 1000) === start; i++)
    await new Promise((r) => setTimeout(r, 50));
};

/** Waits until `n` events are in the journal (on disk: an event counts as received before its line is written). */
const settle = async (n: number) => {
  const count = () => readJournal(journal).entries.length;
  for (let i = 0; i < 200 && count() < n; i++) await new Promise((r) => setTimeout(r, 50));
  expect(count()).toBeGreaterThanOrEqual(n);
};

beforeAll(async () => {
  // Retries an hour apart: a refused notification stays refused while the test looks.
  sb = await startSandbox({ retrySchedule: [3_600_000] });
  app = await startReceiver({ secret: sb.webhook_secret });
  journal = join(tempDir('svc-conciliar-'), 'webhooks.jsonl');
  old = [];
  for (const monto of ['5.00', '6.00']) {
    const c = (await sb.api('POST', '/v1/cobros', { concepto: 'Viejo', monto })).body.data;
    old.push(c.id);
  }
  await sb.api('POST', `/_sandbox/cobros/${old[0]}/pagar`, {});
  await nextSecond();
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
    // The two requests made before the listener ran are not called missing: counted apart.
    expect(agree.stdout).toBe('');
    expect(agree.stderr).toMatch(
      /2 cobros de 3 sin cambios desde antes del journal \(empieza \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\): no se sabe si tu app los oyó, no se juzgan/,
    );
    await nextSecond();

    // The listener is away while B is paid: its approval never reaches the journal.
    await sb.api('POST', '/_sandbox/webhook', { url: null });
    const b = (await sb.api('POST', '/v1/cobros', { concepto: 'B', monto: '20.00' })).body.data;
    await sb.api('POST', `/_sandbox/cobros/${b.id}/pagar`, { medio: 'qr' });
    await sb.api('POST', '/_sandbox/webhook', { url: listener.url });

    const differ = await svc(['webhook', 'conciliar', '--json', '--forward-to', app.url], { env });
    expect(differ.exitCode).toBe(1);
    const missing = {
      cobro_id: b.id,
      codigo: b.codigo,
      app: null,
      servicio: 'PAGADA',
      accion: 'trigger',
      evento: 'payment.approved',
      evento_id: null,
      forward_to: app.url,
      arreglo: `svc webhook trigger payment.approved --cobro ${b.id} --forward-to ${app.url}`,
    };
    expect(
      differ.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([missing]);
    expect(differ.stderr).toMatch(/1 de 2 cobros no coinciden/);
    // Without --forward-to the journal's own knowledge of the app's address fills it in.
    const known = await svc(['webhook', 'conciliar', '--json'], { env });
    expect(JSON.parse(known.stdout.trim())).toEqual(missing);
    expect(known.stdout).not.toContain('URL_DE_TU_APP');
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

  it('on a terminal, at 80 and 60 columns: grouped by what to do, the app address said once, the older requests counted, one command for all', async () => {
    const before = readJournal(journal).entries.length;
    const d = (await sb.api('POST', '/v1/cobros', { concepto: 'D', monto: '40.00' })).body.data;
    await settle(before + 1);
    app.answer = () => ({ status: 503, body: 'mantenimiento' });
    await sb.api('POST', `/_sandbox/cobros/${d.id}/pagar`, {});
    await settle(before + 2);
    app.answer = () => ({ status: 200, body: 'ok' });
    for (const cols of [80, 60]) {
      const r = await svcOnTerminal(['webhook', 'conciliar'], env, cols);
      expect(r.exitCode).toBe(1);
      const lines = r.screen.split('\n');
      expect(
        lines.filter((l) => [...l].length > cols),
        `${cols}`,
      ).toEqual([]);
      const flat = r.screen.replace(/\s+/g, ' ');
      expect(flat).toContain('tu app no aceptó (1): svc webhook replay EVENTO');
      expect(flat).toContain('nunca llegó al listener (1): svc webhook trigger EVENTO --cobro N');
      expect(flat).toMatch(new RegExp(`\\b${d.id} .*PENDIENTE PAGADA evt_[0-9a-f]{12}`));
      expect(flat).toMatch(/\bPAGADA payment\.approved\b/);
      expect(flat).toContain(`a ${app.url} (adonde el listener reenvió por última vez)`);
      expect(flat).toMatch(/2 cobros de \d+ sin cambios desde antes del journal/);
      expect(flat).toContain(
        'todo de una vez: svc webhook conciliar --plan conciliar.json, y después --aplicar conciliar.json',
      );
      expect(flat).not.toContain('URL_DE_TU_APP');
    }
  });

  it('--plan writes every fix and sends nothing; --aplicar sends what is still missing, signed now and journaled; a second apply sends nothing', async () => {
    const dir = join(journal, '..');
    const before = await svc(['webhook', 'conciliar', '--json'], { env });
    const rows = before.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { cobro_id: number; accion: string; evento_id: string });
    expect(rows.map((r) => r.accion).sort()).toEqual(['replay', 'trigger']);
    const heard = app.received.length;
    const plan = join(dir, 'conciliar.json');
    const planned = await svc(['webhook', 'conciliar', '--plan', plan], { env });
    expect(planned.exitCode, planned.stderr).toBe(0);
    expect(planned.stderr).toContain(
      `plan escrito en ${plan} (nada se envió): 2 notificaciones, 1 desde el journal y 1 nueva; lo aplica svc webhook conciliar --aplicar ${plan}`,
    );
    expect(app.received.length).toBe(heard);
    // A plan is never written over.
    expect((await svc(['webhook', 'conciliar', '--plan', plan], { env })).exitCode).toBe(2);

    // An edited plan (another address) is refused before anything is sent.
    const edited = join(dir, 'editado.json');
    writeFileSync(edited, readFileSync(plan, 'utf8').replaceAll(app.url, 'http://127.0.0.1:9/x'));
    const refused = await svc(['--json', 'webhook', 'conciliar', '--aplicar', edited], { env });
    expect([refused.exitCode, JSON.parse(refused.stderr).error]).toEqual([1, 'plan_refused']);
    expect(app.received.length).toBe(heard);

    const apply = await svcSpawned(['webhook', 'conciliar', '--aplicar', plan], { env });
    expect(apply.exitCode, apply.stderr).toBe(0);
    const replayed = rows.find((r) => r.accion === 'replay')!;
    const triggered = rows.find((r) => r.accion === 'trigger')!;
    expect(apply.stdout).toContain(
      `✓ cobro ${replayed.cobro_id} payment.approved (replay ${replayed.evento_id}) → ${app.url} 200`,
    );
    expect(apply.stdout).toContain(
      `✓ cobro ${triggered.cobro_id} payment.approved (trigger) → ${app.url} 200`,
    );
    expect(apply.stderr).toContain('2 notificaciones enviadas, 2 aceptadas por tu app');
    const sent = app.received.slice(heard);
    expect(
      sent.map((r) => [r.verified, JSON.parse(r.text).cobro_id, JSON.parse(r.text).estado]),
    ).toEqual([
      [true, replayed.cobro_id, 'PAGADA'],
      [true, triggered.cobro_id, 'PAGADA'],
    ]);
    // The replay is the journal's own bytes, signed again.
    const original = readJournal(journal).entries.find((e) => e.id === replayed.evento_id)!;
    expect(sent[0]!.text).toBe(original.body);

    const now = await svc(['webhook', 'conciliar'], { env });
    expect(now.exitCode, now.stdout).toBe(0);
    expect(now.stderr).toMatch(/tu app está al día/);
    const again = await svc(['webhook', 'conciliar', '--aplicar', plan], { env });
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toContain('0 notificaciones enviadas; 2 ya estaban al día');
    expect(app.received.length).toBe(heard + 2);
    const mixed = await svc(['webhook', 'conciliar', '--aplicar', plan, '--desde', '2026-01-01'], {
      env,
    });
    expect(mixed.exitCode).toBe(2);
  });

  it('--desde that is not a date: exit 2', async () => {
    const r = await svc(['webhook', 'conciliar', '--desde', 'ayer'], { env });
    expect(r.exitCode).toBe(2);
  });

  it('reconcile: the last accepted event per request decides; rejected and unverified entries tell nothing', () => {
    const cobro = {
      id: 1,
      codigo: 'K7QM3XW9PA',
      estado: 'PAGADA',
      updated_at: '2026-01-01 12:00:00',
    } as never;
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
    const zone = 'UTC';
    const of = (...entries: never[]) => reconcile([cobro], entries, { zone });
    expect(of(entry('PENDIENTE', 'forwarded'), entry('PAGADA', 'forwarded')).diferencias).toEqual(
      [],
    );
    // An unverified entry tells nothing; with no listener event, the request is older than the journal.
    expect(of(entry('PAGADA', 'forwarded', false))).toMatchObject({
      diferencias: [],
      anteriores: [1],
      inicio: null,
    });
    // After the journal began, nothing heard of it: a trigger, with no address known.
    const started = {
      ...(entry('PENDIENTE', 'forwarded') as object),
      cobro_id: 2,
      source: 'listen',
    } as never;
    expect(of(started).diferencias[0]).toMatchObject({
      app: null,
      accion: 'trigger',
      forward_to: null,
      arreglo: 'svc webhook trigger payment.approved --cobro 1 --forward-to URL_DE_TU_APP',
    });
    // An address the journal keeps without its credentials is not one to send to.
    const hidden = { ...(started as object), target: 'https://hooks.example/***' } as never;
    expect(of(hidden)).toMatchObject({
      app_url: null,
      app_url_oculta: true,
      diferencias: [{ forward_to: null }],
    });
  });
});
