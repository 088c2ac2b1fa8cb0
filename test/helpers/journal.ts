// A listener journal entry for tests of the journal itself: a verified event, forwarded
// and answered 200, with a small JSON body numbered `i` (its cobro_id too); and what
// the tests of the journal's index share: entries about a few requests in turn, a
// journal written with its index, a line damaged after it was indexed, an index
// written by hand.
import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import {
  encodeBody,
  indexPath,
  Journal,
  newEntryId,
  type JournalEntry,
  type JournalOptions,
} from '../../src/webhooks/event-journal.js';

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

/** Entries about requests 1..5 in turn, `n` of them from the `from`th; `body` makes each body from its request. */
export function entriesAbout(
  n: number,
  from = 0,
  body?: (cobro: number) => Buffer,
): JournalEntry[] {
  return Array.from({ length: n }, (_, i) => {
    const cobro = ((from + i) % 5) + 1;
    return journalEntry(cobro, body?.(cobro));
  });
}

/**
 * `list` written by a journal that keeps its index, as the listener writes: queued
 * together (one write, and its records, unless `options.maxBytes` splits it).
 */
export async function writeIndexed(
  path: string,
  list: readonly JournalEntry[],
  options: JournalOptions = {},
): Promise<void> {
  const j = await Journal.open(path, { index: true, ...options });
  await Promise.all(list.map((e) => j.append(e)));
  await j.close();
}

/** Overwrites the line holding `id` with as many bytes of garbage: an index still names it. */
export function damage(path: string, id: string): void {
  const text = readFileSync(path, 'latin1');
  const at = text.lastIndexOf('\n', text.indexOf(id)) + 1;
  const end = text.indexOf('\n', at);
  const fd = openSync(path, 'r+');
  writeSync(fd, Buffer.alloc(end - at, 'x'), 0, end - at, at);
  closeSync(fd);
}

/** The index's header, then 32 bytes a record: offset, length, request, id (doubles, little-endian). */
export const INDEX_HEADER = 8;
export const INDEX_RECORD = 32;

/** A record as the index holds it: the line's offset, its length with its newline, its request (-1: none), its id's 48 bits. */
export type IndexRec = [offset: number, length: number, cobro: number, idn: number];

/** The 48 bits of an id of svc's form (`evt_` and 12 hex digits), as its record holds them. */
export const idBits = (e: JournalEntry) => Number.parseInt(e.id.slice(4), 16);

/** Writes `records` as `path`'s index, in the format the listener writes (its header, then the records). */
export function writeIndex(path: string, records: readonly IndexRec[]): void {
  const buf = Buffer.alloc(INDEX_HEADER + records.length * INDEX_RECORD);
  buf.write('svcidx1\n', 0, 'latin1');
  records.forEach((r, i) =>
    r.forEach((v, k) => buf.writeDoubleLE(v, INDEX_HEADER + i * INDEX_RECORD + 8 * k)),
  );
  writeFileSync(indexPath(path), buf);
}

/**
 * Writes `lines` (entries, or text for a line that is not one) as `path` and returns
 * each line's record: where it is, and for an entry its request and id.
 */
export function lay(path: string, lines: readonly (JournalEntry | string)[]): IndexRec[] {
  let at = 0;
  const recs: IndexRec[] = [];
  const texts = lines.map((l) => (typeof l === 'string' ? `${l}\n` : `${JSON.stringify(l)}\n`));
  lines.forEach((l, i) => {
    const bytes = Buffer.byteLength(texts[i]!);
    recs.push(
      typeof l === 'string' ? [at, bytes, -1, -1] : [at, bytes, l.cobro_id ?? -1, idBits(l)],
    );
    at += bytes;
  });
  writeFileSync(path, texts.join(''));
  return recs;
}
