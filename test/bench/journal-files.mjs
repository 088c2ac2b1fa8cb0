// A listener journal as the listener leaves it, for the benchmarks: files of 64 MiB
// (`webhooks.jsonl` the one being written, `.1` the newest previous one … `.N` the
// oldest), each with its index (`<file>.idx`: a header, then per line its offset,
// length, request and id's number as little-endian doubles). Without the look-up files
// of the previous generations (`<file>.ids`): the first reader that needs one builds it.
// Not a bench itself.
import { closeSync, openSync, renameSync, writeSync } from 'node:fs';

/** The size at which the listener starts a new file (JOURNAL_MAX_BYTES). */
export const GENERATION_BYTES = 64 * 1024 * 1024;

/** Entry k's id: evt_ and k in hex. */
export const journalId = (k) => `evt_${k.toString(16).padStart(12, '0')}`;

/** Entry k's line (about 1 KiB): a payment of request k, forwarded and answered 200. */
export function journalLine(k) {
  const body = JSON.stringify({
    event: 'payment.approved',
    cobro_id: k,
    codigo: `C${k}`,
    estado: 'PAGADA',
    monto: '1500.00',
    monto_cobrado: '1500.00',
    transaccion_id: k,
    pad: 'x'.repeat(400),
  });
  return `${JSON.stringify({
    id: journalId(k),
    received_at: new Date(Date.UTC(2026, 0, 1) + k * 30_000).toISOString(),
    source: 'listen',
    method: 'POST',
    path: '/',
    headers: { 'content-type': 'application/json', 'x-svc-event': 'payment.approved' },
    body,
    body_encoding: 'utf8',
    bytes: body.length,
    event: 'payment.approved',
    cobro_id: k,
    estado: 'PAGADA',
    monto: '1500.00',
    verification: { valid: true },
    outcome: 'forwarded',
    target: 'http://127.0.0.1:3000/webhooks',
    status: 200,
    answered: 200,
    latency_ms: 3,
  })}\n`;
}

/**
 * Writes a journal of n entries at `file` (entry k about request k), in files of
 * GENERATION_BYTES as the listener rotates them; returns the first and last id and
 * how many files there are.
 */
export function writeListenerJournal(file, n) {
  const written = [];
  let fd;
  let idx;
  let size = 0;
  let chunk = [];
  let records = [];
  const flush = () => {
    if (chunk.length) writeSync(fd, chunk.join(''));
    if (records.length) writeSync(idx, Buffer.concat(records));
    chunk = [];
    records = [];
  };
  const start = () => {
    if (fd !== undefined) {
      flush();
      closeSync(fd);
      closeSync(idx);
    }
    const name = `${file}.part${written.length}`;
    written.push(name);
    fd = openSync(name, 'w', 0o600);
    idx = openSync(`${name}.idx`, 'w', 0o600);
    writeSync(idx, 'svcidx1\n');
    size = 0;
  };
  start();
  for (let k = 1; k <= n; k++) {
    const line = journalLine(k);
    const length = Buffer.byteLength(line);
    // Rotated before a write would take the file past its size.
    if (size > 0 && size + length > GENERATION_BYTES) start();
    const record = Buffer.alloc(32);
    [size, length, k, k].forEach((v, j) => record.writeDoubleLE(v, j * 8));
    records.push(record);
    chunk.push(line);
    size += length;
    if (chunk.length === 1000) flush();
  }
  flush();
  closeSync(fd);
  closeSync(idx);
  // The last one written is the file being written; the one before it `.1`, and so on.
  written.reverse().forEach((name, g) => {
    const to = g === 0 ? file : `${file}.${g}`;
    renameSync(name, to);
    renameSync(`${name}.idx`, `${to}.idx`);
  });
  return { first: journalId(1), last: journalId(n), files: written.length };
}
