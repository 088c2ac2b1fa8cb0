// A listener journal entry for tests of the journal itself: a verified event, forwarded
// and answered 200, with a small JSON body numbered `i` (its cobro_id too).
import { encodeBody, newEntryId, type JournalEntry } from '../../src/webhooks/journal.js';

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
