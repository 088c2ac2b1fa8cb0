// What an entry keeps of a request and of the app's answer: a stranger's text cut short,
// at most 12 headers, the app's answer with its headers and whether it was cut, the start
// of a failed answer on one line.
import { describe, expect, it } from 'vitest';
import {
  clip,
  clipHeaders,
  encodeBody,
  eventEntry,
  keptResponse,
  strangeEntry,
} from '../../src/webhooks/event-journal.js';

const arrival = {
  received_at: '2026-01-01T00:00:00.000Z',
  path: '/hook',
  headers: { 'content-type': 'application/json' },
};
const summary = { event: 'cobro.pagado', cobro_id: 7, estado: 'pagado', monto: '10.00' };

describe('journal entries', () => {
  it('clip keeps text up to max and marks a cut with …', () => {
    expect(clip('abc', 3)).toBe('abc');
    expect(clip('abcd', 3)).toBe('abc…');
    expect(clip('x'.repeat(200))).toBe('x'.repeat(200));
    expect(clip('x'.repeat(201))).toBe(`${'x'.repeat(200)}…`);
  });

  it('clipHeaders keeps the first 12 headers, names cut at 40 and values at 100', () => {
    const h: Record<string, string> = {};
    for (let i = 0; i < 15; i++) h[`h${i}`] = `v${i}`;
    h.h0 = 'v'.repeat(101);
    const out = clipHeaders({ ['n'.repeat(41)]: 'x', ...h });
    expect(Object.keys(out)).toHaveLength(12);
    expect(out[`${'n'.repeat(40)}…`]).toBe('x');
    expect(out.h0).toBe(`${'v'.repeat(100)}…`);
    expect(out.h10).toBe('v10');
    expect(out.h11).toBeUndefined();
  });

  it('keptResponse keeps the answer with its headers, marks a cut one, and keeps nothing without an answer', () => {
    expect(keptResponse(undefined)).toBeUndefined();
    expect(
      keptResponse({ ok: false, status: null, latencyMs: 1, response: Buffer.from('x') }),
    ).toBeUndefined();
    expect(keptResponse({ ok: true, status: 200, latencyMs: 1 })).toBeUndefined();
    const whole = keptResponse({
      ok: true,
      status: 200,
      latencyMs: 1,
      response: Buffer.from('ok'),
      responseComplete: true,
      responseHeaders: { a: 'b' },
    });
    expect(whole).toEqual({ headers: { a: 'b' }, ...encodeBody(Buffer.from('ok')) });
    const cut = keptResponse({
      ok: true,
      status: 200,
      latencyMs: 1,
      response: Buffer.from('ok'),
      responseComplete: false,
    });
    expect(cut).toEqual({ headers: {}, ...encodeBody(Buffer.from('ok')), truncated: true });
  });

  it('an event entry records the POST, the outcome, the error and the start of a failed answer on one line', () => {
    const kept = encodeBody(Buffer.from('{}'));
    const body = Buffer.from(`  fallo\n\n  interno ${'y'.repeat(400)}`);
    const e = eventEntry(arrival, kept, summary, 'error' as never, 1, null, {
      ok: false,
      status: 500,
      latencyMs: 3,
      error: 'boom',
      response: body,
    });
    expect(e).toMatchObject({
      source: 'listen',
      method: 'POST',
      path: '/hook',
      verification: { valid: true },
      status: 500,
      latency_ms: 3,
      answered: 1,
      error: 'boom',
      ...summary,
    });
    // The first 300 bytes (19 of text, 281 y), whitespace folded to one space and trimmed.
    expect(e.response_start).toBe(`fallo interno ${'y'.repeat(281)}…`);
    const okEntry = eventEntry(arrival, kept, summary, 'ok' as never, 1, null, {
      ok: true,
      status: 200,
      latencyMs: 2,
      response: Buffer.from('fine'),
    });
    expect(okEntry.response_start).toBeUndefined();
    expect(okEntry.error).toBeUndefined();
    expect(okEntry.response?.body_encoding).toBeDefined();
    const none = eventEntry(arrival, kept, summary, 'ok' as never, 1);
    expect(none).toMatchObject({ status: null, latency_ms: null });
    expect(none.response).toBeUndefined();
  });

  it('a stranger entry cuts its path, headers and summary text', () => {
    const kept = encodeBody(Buffer.from('{}'));
    const e = strangeEntry(
      { ...arrival, path: `/${'p'.repeat(300)}` },
      kept,
      { ...summary, event: 'e'.repeat(65), estado: null },
      { valid: false } as never,
      'ok' as never,
      0,
    );
    expect(e).toMatchObject({
      source: 'listen',
      method: 'POST',
      target: null,
      status: null,
      latency_ms: null,
    });
    expect(e.path).toBe(`/${'p'.repeat(199)}…`);
    expect(e.event).toBe(`${'e'.repeat(64)}…`);
    expect(e.estado).toBeNull();
    expect(e.monto).toBe('10.00');
  });
});
