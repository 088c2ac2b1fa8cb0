// A listener journal entry for tests of the journal itself: a verified event, forwarded
// and answered 200, with a small JSON body numbered `i` (its cobro_id too).
import { encodeBody, newEntryId, type JournalEntry } from '../../src/webhooks/event-journal.js';

export function journalEntry(i: number, body: Buffer = Buffer.from(`{"n":${i}}`)): JournalEntry {
  return {
    id: newEntryId(),
    received_at: new Date().toISOString(),
    source: 'listen',
    method: 'POST',
    path: '/',
    headers: { 'content-type': 'application/json' },
    ...encodeBody(body),
    event: 'payment.approved',
    cobro_id: i,
    estado: 'PAGADA',
    monto: '1.00',
    verification: { valid: true },
    outcome: 'forwarded',
    target: 'http://127.0.0.1:1/',
    status: 200,
    answered: 200,
    latency_ms: 1,
  };
}

/**
 * An entry written by hand with a fixed id and date, for tests that read a journal
 * without a listener (eventos, ver, caso, the clock): `fields` change any field.
 */
export function journalEntryAs(id: string, fields: Partial<JournalEntry> = {}): JournalEntry {
  const event = fields.event ?? 'payment.created';
  const cobro_id = fields.cobro_id ?? 7;
  const estado = fields.estado ?? 'PAGADA';
  return {
    ...journalEntry(
      cobro_id ?? 7,
      Buffer.from(JSON.stringify({ event, cobro_id, estado, monto: '10.00' })),
    ),
    id,
    received_at: '2026-11-25T17:11:52.225Z',
    headers: {},
    event,
    estado,
    monto: '10.00',
    outcome: 'received',
    target: null,
    status: null,
    latency_ms: null,
    ...fields,
  };
}
