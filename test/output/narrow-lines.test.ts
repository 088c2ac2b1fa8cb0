// Lines that are not tables, on a terminal of 80 and 60 columns: nothing past the
// edge, nothing cut that matters, nothing broken mid-word. Errors and notices break at
// spaces under their text; the sandbox's log and attempts go on under the time; caso's
// timeline wraps a long fact (the app's HTTP status stays) and orders everything by the
// service's clock, even after `svc sandbox reloj avanzar`. They run through main() on a
// forced terminal of that width, with the sandbox in this process; an error on a real
// terminal (a pty: the width stderr reports) runs the built binary once.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { breakAtSpaces } from '../../src/output/io.js';
import { displayWidth } from '../../src/text.js';
import { tempDir } from '../helpers/cli.js';
import { journalEntryAs } from '../helpers/journal.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { svcOnTerminal } from '../helpers/inproc.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
import { hasScript, screenLines, svcTty, NO_SCRIPT } from '../helpers/tty.js';
import { skipBecause } from '../helpers/skips.js';

const HAVE_SCRIPT = hasScript();

/** The words of a screen's lines, whatever the breaks: a word broken by the edge would not be one of them. */
const words = (lines: string[]) => lines.join(' ').split(/\s+/).filter(Boolean);

describe('breakAtSpaces', () => {
  it('breaks between words, under the text of an `error: ` label; a fitting line is untouched', () => {
    expect(breakAtSpaces('error: no hay secreto de firma de notificaciones', 30)).toBe(
      'error: no hay secreto de firma\n       de notificaciones',
    );
    expect(breakAtSpaces('→ corré svc login', 80)).toBe('→ corré svc login');
    expect(breakAtSpaces('19:08:04  POST   /v1/cobros   201', 20, 10)).toBe(
      '19:08:04  POST\n          /v1/cobros\n          201',
    );
    expect(breakAtSpaces('una-palabra-mas-larga-que-todo x', 10)).toBe(
      'una-palabra-mas-larga-que-todo\nx',
    );
    expect(breakAtSpaces('sin terminal', undefined)).toBe('sin terminal');
  });
});

describe('on a narrow terminal', () => {
  let sb: InProcessSandbox;
  let app: Receiver;
  beforeAll(async () => {
    sb = await startSandbox({ retrySchedule: [60_000] });
    app = await startReceiver();
    app.answer = () => ({ status: 500, body: '{"ok":false}' });
    expect((await sb.api('POST', '/_sandbox/webhook', { url: app.url })).status).toBe(200);
  });
  afterAll(async () => {
    await sb?.stop();
    await app?.close();
  });

  const tooFar = [
    'cobro',
    'crear',
    '--concepto',
    'Seña',
    '--monto',
    '10',
    '--vencimiento',
    '+400d',
  ];
  /** The error of `tooFar` as a terminal of `cols` columns shows it. */
  const expectBrokenError = (r: { exitCode: number; screen: string }, cols: number) => {
    expect(r.exitCode, r.screen).toBe(2);
    const lines = screenLines(r.screen).filter((l) => l.trim() !== '');
    for (const line of lines)
      expect(displayWidth(line), `${cols}: ${line}`).toBeLessThanOrEqual(cols);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.slice(1).every((l) => l.startsWith('       '))).toBe(true);
    expect(words(lines).join(' ')).toMatch(
      /está a más de 365 días: el servicio acepta hasta 365 días desde ahora/,
    );
  };

  it('an error breaks at spaces, within 80 and 60 columns, its words whole', async () => {
    for (const cols of [80, 60]) expectBrokenError(await svcOnTerminal(tooFar, sb.env, cols), cols);
  });

  it.skipIf(skipBecause(import.meta.url, !HAVE_SCRIPT && NO_SCRIPT))(
    'on a real terminal (a pty of 60 columns) an error breaks at the width it reports',
    async () => {
      expectBrokenError(await svcTty(tooFar, sb.env, [], 30_000, { cols: 60, rows: 40 }), 60);
    },
  );

  it('sandbox log and sandbox entregas fit 60 columns', async () => {
    const c = (await sb.api('POST', '/v1/cobros', { concepto: 'Seña', monto: '10.00' })).body.data;
    expect((await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, {})).status).toBe(200);
    // One attempt is enough (the next notification waits for it to be answered 2xx).
    await app.waitFor(1);
    // A path longer than the terminal: its log line fits only broken (at spaces).
    expect((await sb.raw('GET', `/v1/cobros/${'9'.repeat(70)}`)).status).toBe(404);
    for (const args of [
      ['sandbox', 'log'],
      ['sandbox', 'entregas'],
    ]) {
      const r = await svcOnTerminal(args, sb.env, 60);
      expect(r.exitCode, r.screen).toBe(0);
      const lines = screenLines(r.screen).filter((l) => l.trim() !== '');
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines)
        expect(displayWidth(line), `${args.join(' ')}: ${line}`).toBeLessThanOrEqual(60);
    }
    const entregas = await svcOnTerminal(['sandbox', 'entregas'], sb.env, 60);
    expect(entregas.screen).toMatch(/payment\.created cobro \d+ intento 1 +500/);
  });

  it("caso at 80 columns: the timeline wraps (the app's status stays) and follows the service's clock after it was moved", async () => {
    // The service's clock two days ahead of this machine's, where the journal's times come from.
    expect((await sb.api('POST', '/_sandbox/reloj', { avanzar: '2d' })).status).toBe(200);
    const c = (
      await sb.api('POST', '/v1/cobros', {
        concepto: 'Clase de cerámica, turno noche, con materiales',
        monto: '1500.00',
      })
    ).body.data;
    expect((await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, {})).status).toBe(200);
    const t = (await sb.api('GET', '/v1/transacciones')).body.data.find(
      (x: { cobro_id: number }) => x.cobro_id === c.id,
    );
    const journal = join(tempDir(), 'webhooks.jsonl');
    const entry = (id: string, event: string, estado: string, transaccion_id: number | null) => {
      const body = JSON.stringify({
        event,
        cobro_id: c.id,
        codigo: c.codigo,
        estado,
        monto: '1500.00',
        monto_cobrado: estado === 'PAGADA' ? '1500.00' : '0.00',
        transaccion_id,
      });
      return JSON.stringify({
        ...journalEntryAs(id, {
          event,
          cobro_id: c.id,
          estado,
          outcome: 'target_error',
          status: 500,
        }),
        received_at: new Date().toISOString(),
        body,
        body_encoding: 'utf8',
        bytes: body.length,
      });
    };
    writeFileSync(
      journal,
      `${entry('evt_00000000000a', 'payment.created', 'PENDIENTE', null)}\n${entry('evt_00000000000b', 'payment.approved', 'PAGADA', t.id)}\n`,
    );
    const r = await svcOnTerminal(['caso', String(c.id), '--journal', journal], sb.env, 80);
    expect(r.exitCode, r.screen).toBe(0);
    const lines = screenLines(r.screen);
    for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(80);
    const timeline = lines
      .slice(lines.findIndex((l) => l.startsWith('línea de tiempo')) + 2)
      .filter((l) => l.trim() !== '');
    // A wrapped fact goes on under QUÉ PASÓ: join each fact's lines back.
    const facts: string[] = [];
    for (const l of timeline) {
      if (/^\d{4}-/.test(l)) facts.push(l.trim());
      else facts[facts.length - 1] += ` ${l.trim()}`;
    }
    expect(timeline.length).toBeGreaterThan(facts.length);
    expect(facts.filter((f) => f.includes('la app respondió 500'))).toHaveLength(2);
    expect(timeline.join('\n')).not.toContain('…');
    const order = facts.map(
      (f) =>
        /cobro creado|notificación payment\.created|pago acreditado|notificación payment\.approved|liquidación|vencimiento/.exec(
          f,
        )?.[0],
    );
    expect(order).toEqual([
      'cobro creado',
      'notificación payment.created',
      'pago acreditado',
      'notificación payment.approved',
      'liquidación',
    ]);
    // Paid in full, the request no longer expires: no vencimiento in its story.
    const times = facts.map((f) => f.slice(0, 19));
    expect(times).toEqual([...times].sort());
  });
});
