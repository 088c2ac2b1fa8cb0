// The listener's line on a terminal: whole when the terminal has room for it, short
// (the time without the date, no state, nothing the banner said) when it does not,
// so the widest line fits 80 columns instead of taking two rows; whole when piped.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { EVENTOS, ESTADOS_COBRO } from '../../../src/api/enums.js';
import { eventLine, EVENT_LINE_WIDTH, shortEventLines } from '../../../src/cli/shared/webhook.js';
import { createIO } from '../../../src/output/io.js';
import { displayWidth } from '../../../src/text.js';
import type { JournalEntry } from '../../../src/webhooks/event-journal.js';

const terminal = (columns?: number) =>
  createIO(
    {
      stdout: Object.assign(new PassThrough(), { isTTY: columns !== undefined, columns }),
      stderr: new PassThrough(),
      stdin: new PassThrough(),
    },
    { NO_COLOR: '1' },
  );

const widest = (list: readonly string[]) => list.reduce((a, b) => (b.length > a.length ? b : a));
const entry = {
  id: 'evt_0123456789ab',
  received_at: '2026-11-24T21:03:07.123Z',
  source: 'listen',
  event: widest(EVENTOS),
  cobro_id: 104223,
  estado: widest(ESTADOS_COBRO),
  monto: '1234567.89',
  outcome: 'forwarded',
  status: 200,
  answered: 200,
  latency_ms: 123.4,
} as unknown as JournalEntry;
const zone = 'America/Argentina/Buenos_Aires';

describe('the listener line', () => {
  it('whole, with the date and the state, fits the width it says it takes', () => {
    const line = eventLine(terminal(), entry, zone, false);
    expect(line).toMatch(
      /^2026-11-24 18:03:07 +payment\.partially_refunded +cobro 104223 +DEVUELTA_PARCIALMENTE +1234567\.89 +--> 200/,
    );
    expect(displayWidth(line)).toBeLessThanOrEqual(EVENT_LINE_WIDTH);
    expect(displayWidth(line)).toBeGreaterThan(80);
  });

  it('short, the widest line fits 80 columns and keeps time, event, request, amount and answer', () => {
    const line = eventLine(terminal(80), entry, zone, true);
    expect(displayWidth(line)).toBeLessThanOrEqual(80);
    expect(line).toMatch(
      /^18:03:07 +payment\.partially_refunded +cobro 104223 +1234567\.89 +--> 200 /,
    );
    expect(line).not.toContain('DEVUELTA');
  });

  it('an app that answers non-2xx: its reply as the app wrote it (not JSON-escaped), the line broken at spaces within 80 and 60 columns', () => {
    const reply = '{"ok":false,"error":"pedido \\"1042\\" no encontrado: revisá la referencia"}';
    for (const [cols, short] of [
      [80, true],
      [60, true],
      [100, true],
    ] as const) {
      const text = eventLine(
        terminal(cols),
        { ...entry, outcome: 'target_error', status: 500, response_start: reply } as JournalEntry,
        zone,
        short,
      );
      const lines = text.split('\n');
      for (const l of lines) expect(displayWidth(l), `${cols}: ${l}`).toBeLessThanOrEqual(cols);
      expect(lines.map((l) => l.trim()).join(' '), String(cols)).toContain(`«${reply}»`);
      expect(lines[0]).toMatch(/^18:03:07 +payment\.partially_refunded /);
    }
    // Its line breaks are blanks; what a terminal would act on is still escaped.
    const bell = eventLine(
      terminal(200),
      {
        ...entry,
        outcome: 'target_error',
        status: 500,
        response_start: '{\n  "ok": false\u0007\n}',
      } as JournalEntry,
      zone,
      true,
    );
    expect(bell).toContain('«"{ \\"ok\\": false\\u0007 }"»');
  });

  it('short, at 60 columns every outcome goes on under the event instead of past the edge', () => {
    for (const outcome of [
      'forwarded',
      'received',
      'skipped',
      'rejected',
      'unreachable',
    ] as const) {
      const text = eventLine(
        terminal(60),
        {
          ...entry,
          outcome,
          error: 'conexión rechazada',
          verification: { valid: false, reason: 'firma inválida' },
        } as unknown as JournalEntry,
        zone,
        true,
      );
      for (const l of text.split('\n'))
        expect(displayWidth(l), `${outcome}: ${l}`).toBeLessThanOrEqual(60);
    }
  });

  it('short, every answered outcome fits 80 columns; an unreachable app keeps its reason, not the target', () => {
    const outcomes: Partial<JournalEntry>[] = [
      { outcome: 'received', status: null },
      { outcome: 'skipped', status: null },
      { outcome: 'target_error', status: 500 },
    ];
    for (const o of outcomes) {
      const line = eventLine(terminal(80), { ...entry, ...o } as JournalEntry, zone, true);
      expect(displayWidth(line), line).toBeLessThanOrEqual(80);
      expect(line, line).toMatch(/<-- |--> /);
    }
    const unreachable = {
      ...entry,
      outcome: 'unreachable',
      status: null,
      target: 'http://127.0.0.1:3000/webhooks',
      error: 'conexión rechazada',
      answered: 502,
    } as unknown as JournalEntry;
    // Broken at spaces under the event where it does not fit: read back as one line.
    const line = eventLine(terminal(80), unreachable, zone, true)
      .split('\n')
      .map((l) => l.trim())
      .join(' ');
    expect(line).toContain('--> sin respuesta: conexión rechazada <-- 502');
    expect(line).not.toContain('127.0.0.1:3000');
    // A replay has no sender: nothing was answered, so no `<--`.
    const replayed = eventLine(
      terminal(80),
      {
        ...unreachable,
        source: 'replay',
        replay_of: 'evt_0123456789aa',
        answered: undefined,
      } as unknown as JournalEntry,
      zone,
      true,
    );
    expect(replayed).toMatch(/--> sin respuesta: conexión rechazada$/);
  });

  it('short only on a terminal narrower than a whole line', () => {
    expect(shortEventLines(terminal(80))).toBe(true);
    expect(shortEventLines(terminal(EVENT_LINE_WIDTH - 1))).toBe(true);
    expect(shortEventLines(terminal(EVENT_LINE_WIDTH))).toBe(false);
    expect(shortEventLines(terminal())).toBe(false);
  });
});
