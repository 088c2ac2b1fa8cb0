// A partial payment's notification says what was collected so far beside the
// request's amount: `payment.partially_paid cobro 41 23000.00` read as 23000.00 paid
// when 3000.00 was. The listener's line (whole and short) and `webhook eventos` on a
// terminal; --json, --csv and piped rows keep the fields as they came.
import { PassThrough } from 'node:stream';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventAmount, eventLine } from '../../../src/cli/shared/webhook.js';
import { createIO } from '../../../src/output/io.js';
import { displayWidth } from '../../../src/text.js';
import type { JournalEntry } from '../../../src/webhooks/event-journal.js';
import { tempDir } from '../../helpers/cli.js';
import { svc, svcOnTerminal } from '../../helpers/inproc.js';
import { journalEntryAs } from '../../helpers/journal.js';

const terminal = (columns?: number) =>
  createIO(
    {
      stdout: Object.assign(new PassThrough(), { isTTY: columns !== undefined, columns }),
      stderr: new PassThrough(),
      stdin: new PassThrough(),
    },
    { NO_COLOR: '1' },
  );
const zone = 'America/Argentina/Buenos_Aires';

/** A notification as the listener journals it, its body as the service sends it. */
const partial = (id: string, event: string, monto: string, cobrado: string): JournalEntry => {
  const body = JSON.stringify({
    event,
    cobro_id: 41,
    estado: 'PAGADA_PARCIALMENTE',
    monto,
    monto_cobrado: cobrado,
  });
  return journalEntryAs(id, {
    event,
    cobro_id: 41,
    estado: 'PAGADA_PARCIALMENTE',
    monto,
    body,
    body_encoding: 'utf8',
    outcome: 'forwarded',
    status: 200,
    answered: 200,
    latency_ms: 2,
  });
};

describe('a partial payment’s amount', () => {
  const paid = partial('evt_00000000000a', 'payment.partially_paid', '23000.00', '3000.00');

  it('the listener line says 3000.00 de 23000.00; short, at 80 columns, the 3000.00 collected', () => {
    expect(eventLine(terminal(), paid, zone, false)).toMatch(
      /payment\.partially_paid +cobro 41 +PAGADA_PARCIALMENTE +3000\.00 de 23000\.00 +--> 200/,
    );
    const short = eventLine(terminal(80), paid, zone, true);
    expect(short).toMatch(/payment\.partially_paid +cobro 41 +3000\.00 +--> 200/);
    expect(short).not.toContain('23000.00');
    expect(displayWidth(short)).toBeLessThanOrEqual(80);
  });

  it('other events, and a body that does not say it, keep the amount as it is', () => {
    const approved = { ...paid, event: 'payment.approved' };
    expect(eventAmount(approved)).toBe('23000.00');
    expect(eventAmount({ ...paid, body: '{"monto_cobrado":' })).toBe('23000.00');
    expect(eventAmount({ ...paid, body: '{}' })).toBe('23000.00');
  });

  it('webhook eventos on a terminal shows it in MONTO at 100 and 60 columns; --csv keeps monto', async () => {
    const journal = join(tempDir(), 'j.jsonl');
    writeFileSync(
      journal,
      [paid, { ...partial('evt_00000000000b', 'payment.approved', '23000.00', '23000.00') }]
        .map((e) => `${JSON.stringify(e)}\n`)
        .join(''),
    );
    for (const cols of [100, 60]) {
      const r = await svcOnTerminal(['webhook', 'eventos', '--journal', journal], {}, cols);
      expect(r.exitCode, r.screen).toBe(0);
      // Whole on its row, or broken at its space when the table needs the room.
      expect(r.screen, `${cols}`).toMatch(
        /payment\.partially_paid .* 3000\.00 de( 23000\.00|.*\n +23000\.00)/,
      );
      for (const l of r.screen.split('\n')) expect(displayWidth(l), l).toBeLessThanOrEqual(cols);
    }
    const csv = await svc(['webhook', 'eventos', '--journal', journal, '--csv']);
    expect(csv.stdout).not.toContain('3000.00 de');
  });
});
