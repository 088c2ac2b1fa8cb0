// The journal's readers answer from its end: `webhook ver <id>` reads back from the
// newest entry and stops at the one asked for, and `webhook eventos --limit N` stops
// after N, so neither reads (nor holds) a journal of any size whole. The journals
// here start with an unreadable line and a hole of 3 GiB (a sparse file: nothing on
// disk), more than a string or a Buffer of Node can hold: a reader that gets there
// says so on stderr, and one that reads the file whole fails.
import { appendFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/cli.js';
import { svc } from '../../helpers/inproc.js';
import { journalEntryAs } from '../../helpers/journal.js';

const HOLE = 3 * 1024 ** 3;
let dir: string;
let journal: string;

const line = (e: object) => `${JSON.stringify(e)}\n`;

beforeAll(() => {
  dir = tempDir('svc-journal-size-');
  journal = join(dir, 'webhooks.jsonl');
  writeFileSync(journal, '{"cortada\n');
  truncateSync(journal, HOLE);
  appendFileSync(
    journal,
    '\n' +
      line(journalEntryAs('evt_000000000001', { cobro_id: 1 })) +
      line(journalEntryAs('evt_000000000002', { cobro_id: 2 })) +
      line(
        journalEntryAs('evt_000000000003', {
          source: 'replay',
          replay_of: 'evt_000000000001',
          received_at: '2026-11-25T17:15:00.000Z',
          target: 'http://127.0.0.1:9/app',
          outcome: 'forwarded',
          status: 204,
          latency_ms: 3,
        }),
      ) +
      line(journalEntryAs('evt_000000000004', { cobro_id: 4 })),
  );
});

describe('the journal is read from its end, no further than needed', () => {
  it('webhook ver <id> stops at the entry, its replays found on the way', async () => {
    const r = await svc(['webhook', 'ver', 'evt_000000000001', '--json'], {
      env: { SVC_DATA_DIR: dir },
    });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const shown = JSON.parse(r.stdout) as { id: string; intentos: { id: string }[] };
    expect(shown.id).toBe('evt_000000000001');
    expect(shown.intentos.map((a) => a.id)).toEqual(['evt_000000000003']);
  });

  it('webhook eventos --limit 2 shows the two newest and reads no further', async () => {
    const r = await svc(['webhook', 'eventos', '--limit', '2', '--json'], {
      env: { SVC_DATA_DIR: dir },
    });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect((JSON.parse(r.stdout) as { id: string }[]).map((e) => e.id)).toEqual([
      'evt_000000000004',
      'evt_000000000003',
    ]);
  });

  it('a line past any entry svc writes is skipped with a notice, not read whole', async () => {
    const other = tempDir('svc-journal-size-');
    const file = join(other, 'webhooks.jsonl');
    writeFileSync(file, '{"cortada\n');
    truncateSync(file, 20 * 1024 ** 2);
    appendFileSync(file, `\n${line(journalEntryAs('evt_000000000001'))}`);
    const r = await svc(['webhook', 'eventos', '--csv'], { env: { SVC_DATA_DIR: other } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(2);
    expect(r.stderr).toContain(
      `aviso: ${file} línea 2: no es una entrada del journal (más de 16 MiB en una línea); se omitió`,
    );
    expect(r.stderr).toContain(`aviso: ${file} línea 1: no es una entrada del journal (no es JSON`);
  });
});
