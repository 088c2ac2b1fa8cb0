// The sandbox's clock, moved on from the command line instead of waited for: a
// request with the default expiry is CANCELADO after `reloj avanzar 8d` and its
// payment.rejected reached the app once; a refused notification's retry goes out
// when the clock passes it; dates written afterwards are on the moved clock; with
// --data a restart keeps the clock where it was.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/cli.js';
import { svc } from '../../helpers/inproc.js';
import { startReceiver, type Receiver } from '../../helpers/receiver.js';
import { startSandbox, type Sandbox } from '../../helpers/sandbox.js';

let sb: Sandbox;
let app: Receiver;
const events = () =>
  app.received.map(
    (r) => JSON.parse(r.body.toString('utf8')) as { event: string; cobro_id: number },
  );
const day = 24 * 3600 * 1000;

beforeAll(async () => {
  app = await startReceiver();
  // Retries an hour apart: only moving the clock sends them during the test.
  sb = await startSandbox({ retrySchedule: [3_600_000], webhookUrl: app.url });
});
afterAll(async () => {
  await sb?.stop();
  await app?.close();
});

describe('svc sandbox reloj', () => {
  it('avanzar 8d expires a request with the default expiry and delivers its payment.rejected once', async () => {
    const c = (await sb.api('POST', '/v1/cobros', { concepto: 'Vence', monto: '10.00' })).body.data;
    await app.waitFor(1);
    const moved = await svc(['sandbox', 'reloj', 'avanzar', '8d', '--json'], { env: sb.env });
    expect(moved.exitCode, moved.stderr).toBe(0);
    const r = JSON.parse(moved.stdout);
    expect(r.vencidos).toContain(c.id);
    expect(r.adelanto_ms).toBe(8 * day);
    expect((await sb.api('GET', `/v1/cobros/${c.id}`)).body.data.estado).toBe('CANCELADO');
    await app.waitFor(2);
    expect(
      events()
        .filter((e) => e.cobro_id === c.id)
        .map((e) => e.event),
    ).toEqual(['payment.created', 'payment.rejected']);

    // Dates written now are on the moved clock.
    const later = (await sb.api('POST', '/v1/cobros', { concepto: 'Después', monto: '1.00' })).body
      .data;
    expect(
      Date.parse(later.created_at.replace(' ', 'T')) - Date.parse(c.created_at.replace(' ', 'T')),
    ).toBeGreaterThanOrEqual(8 * day);
    await app.waitFor(3);
    // Moving on again does not expire or send it a second time.
    const again = await svc(['sandbox', 'reloj', 'avanzar', '1d'], { env: sb.env });
    expect(again.stdout).toMatch(/^vencidos\t-$/m);
    expect(events().filter((e) => e.cobro_id === c.id)).toHaveLength(2);
  });

  it('a notification the app refused is retried when the clock passes its retry', async () => {
    const n = app.received.length;
    app.answer = () => ({ status: 500, body: 'no' });
    const c = (await sb.api('POST', '/v1/cobros', { concepto: 'Reintento', monto: '2.00' })).body
      .data;
    await app.waitFor(n + 1);
    app.answer = () => ({ status: 200, body: 'ok' });
    const r = await svc(['sandbox', 'reloj', 'avanzar', '61m', '--json'], { env: sb.env });
    expect(JSON.parse(r.stdout).reintentos).toBe(1);
    await app.waitFor(n + 2);
    expect(
      events()
        .slice(n)
        .map((e) => [e.event, e.cobro_id]),
    ).toEqual([
      ['payment.created', c.id],
      ['payment.created', c.id],
    ]);
  });

  it('shows the clock; a duration that is not one: exit 2', async () => {
    const r = await svc(['sandbox', 'reloj'], { env: sb.env });
    expect(r.stdout).toMatch(/^ahora\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/m);
    expect(r.stdout).toMatch(/^reloj\t9 d 1 h 1 min adelantado$/m);
    for (const bad of [
      ['avanzar'],
      ['avanzar', '8 dias'],
      ['avanzar', '0m'],
      ['atrasar', '1d'],
      ['reiniciar', '1d'],
    ]) {
      expect((await svc(['sandbox', 'reloj', ...bad], { env: sb.env })).exitCode).toBe(2);
    }
  });
});

describe('the clock with --data', () => {
  it('a restart keeps the clock where it was moved, also after a reiniciar in between', async () => {
    const file = join(tempDir('svc-reloj-'), 'state.jsonl');
    // The first run is the built binary, stopped as a process is; the next two read its file in this process.
    const a = await startSandbox({ spawned: ['--data', file] });
    await svc(['sandbox', 'reloj', 'avanzar', '2d'], { env: a.env });
    await a.stop();
    const b = await startSandbox({ argv: ['--data', file] });
    try {
      const r = await svc(['sandbox', 'reloj', '--json'], { env: b.env });
      expect(JSON.parse(r.stdout).adelanto_ms).toBe(2 * day);
      const back = await svc(['sandbox', 'reloj', 'reiniciar'], { env: b.env });
      expect(back.stdout).toMatch(/^reloj\ten hora \(sin adelantar\)$/m);
      await svc(['sandbox', 'reloj', 'avanzar', '1d'], { env: b.env });
    } finally {
      await b.stop();
    }
    // The journal holds 2d, back to 0, then 1d: the replay takes all three.
    const c = await startSandbox({ argv: ['--data', file] });
    try {
      expect(
        JSON.parse((await svc(['sandbox', 'reloj', '--json'], { env: c.env })).stdout).adelanto_ms,
      ).toBe(day);
    } finally {
      await c.stop();
    }
  });
});
