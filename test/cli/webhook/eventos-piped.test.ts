// Piped, `webhook eventos` writes what --csv writes, field for field and in the same
// order (tab-separated, no header): a script that cuts its TSV reads the fields --csv
// names, as it does with every other list, never the table's wording.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/cli.js';
import { svc, svcOnTerminal } from '../../helpers/inproc.js';
import { journalEntryAs } from '../../helpers/journal.js';

describe('svc webhook eventos, piped', () => {
  const journal = join(tempDir(), 'eventos.jsonl');
  writeFileSync(
    journal,
    [
      journalEntryAs('evt_00000000000a', {
        event: 'payment.partially_paid',
        cobro_id: 41,
        estado: 'PARCIALMENTE_PAGADA',
        monto: '23000.00',
        outcome: 'forwarded',
        target: 'http://127.0.0.1:4242/webhooks',
        status: 200,
        answered: 200,
        latency_ms: 12,
      }),
      journalEntryAs('evt_00000000000b', {
        verification: { valid: false, reason: 'firma_invalida' },
        outcome: 'rejected',
      }),
      journalEntryAs('evt_00000000000c', {
        source: 'replay',
        replay_of: 'evt_00000000000a',
        received_at: '2026-11-26T12:00:00.000Z',
        outcome: 'target_error',
        target: 'http://127.0.0.1:4242/webhooks',
        status: 500,
        answered: 500,
        latency_ms: 3,
      }),
    ]
      .map((e) => `${JSON.stringify(e)}\n`)
      .join(''),
  );

  it('each row is --csv’s row: the same fields in the same order, a null an empty field', async () => {
    const piped = await svc(['webhook', 'eventos', '--journal', journal]);
    expect(piped.exitCode, piped.stderr).toBe(0);
    const csv = await svc(['webhook', 'eventos', '--journal', journal, '--csv']);
    expect(csv.exitCode, csv.stderr).toBe(0);
    const [header, ...csvRows] = csv.stdout.trimEnd().split('\r\n');
    const fields = header!.split(',');
    expect(fields.slice(0, 8)).toEqual([
      'id',
      'received_at',
      'source',
      'replay_of',
      'event',
      'cobro_id',
      'estado',
      'monto',
    ]);
    // Only the last line break goes: a row may end in empty fields (tabs).
    const rows = piped.stdout.replace(/\n$/, '').split('\n');
    expect(rows).toHaveLength(3);
    expect(rows.map((r) => r.split('\t'))).toEqual(csvRows.map((r) => r.split(',')));
    const byName = (row: string) =>
      Object.fromEntries(row.split('\t').map((v, i) => [fields[i], v]));
    // Newest first; the replay says whose, in the service's zone and format.
    expect(byName(rows[0]!)).toMatchObject({
      id: 'evt_00000000000c',
      received_at: '2026-11-26 09:00:00',
      source: 'replay',
      replay_of: 'evt_00000000000a',
      outcome: 'target_error',
      status: '500',
      'verification.valid': 'true',
      error: '',
    });
    expect(byName(rows[1]!)).toMatchObject({
      'verification.valid': 'false',
      'verification.reason': 'firma_invalida',
      replay_of: '',
      status: '',
      latency_ms: '',
    });
    expect(byName(rows[2]!)).toMatchObject({
      event: 'payment.partially_paid',
      monto: '23000.00',
      latency_ms: '12',
    });
    // No word of the table's: válida, reenviado, "12 ms".
    expect(piped.stdout).not.toMatch(/válida|inválida| ms\b/);
  });

  it('a person at a terminal still reads the table', async () => {
    const r = await svcOnTerminal(['webhook', 'eventos', '--journal', journal], {}, 200);
    expect(r.exitCode, r.screen).toBe(0);
    expect(r.screen).toMatch(/^ID +FECHA +EVENTO +COBRO +ESTADO +MONTO +FIRMA/m);
    expect(r.screen).toContain('replay de evt_00000000000a');
  });
});
