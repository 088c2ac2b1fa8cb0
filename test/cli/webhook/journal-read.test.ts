// Every journal entry is checked when read: a line without `verification` (or with any
// field of the wrong type) is skipped with one notice naming the file and the line, and
// `webhook eventos`, `webhook ver`, `caso` and `conciliar` go on with the rest instead
// of stopping with "error inesperado" halfway through a record.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/cli.js';
import { svc } from '../../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../../helpers/sandbox.js';
import { journalEntryAs as journalEntry } from '../../helpers/journal.js';

let sb: Sandbox;
let env: Record<string, string>;
let journal: string;
let cobroId: number;

const entry = (id: string, cobro_id: number) => journalEntry(id, { cobro_id, estado: 'PENDIENTE' });

beforeAll(async () => {
  sb = await startSandbox();
  cobroId = (await sb.api('POST', '/v1/cobros', { concepto: 'Journal', monto: '10.00' })).body.data
    .id;
  const dir = tempDir('svc-journal-read-');
  journal = join(dir, 'webhooks.jsonl');
  const { verification: _, ...withoutVerification } = entry('evt_bad000000001', cobroId);
  writeFileSync(
    journal,
    [entry('evt_good00000001', cobroId), withoutVerification, '{"cortada']
      .map((e) => (typeof e === 'string' ? e : JSON.stringify(e)))
      .join('\n') + '\n',
  );
  env = { ...sb.env, SVC_DATA_DIR: dir };
});
afterAll(() => sb?.stop());

describe('journal entries are checked when read', () => {
  it.each([
    [['webhook', 'eventos'], 0],
    [['webhook', 'ver', 'evt_good00000001'], 0],
    [['caso', 'COBRO'], 0],
    // The app was never told (outcome received): a difference, exit 1, not a crash.
    [['webhook', 'conciliar'], 1],
  ])(
    '%j: the bad lines skipped with a notice naming file and line; the rest shown',
    async (args, exit) => {
      const r = await svc(
        args.map((a) => (a === 'COBRO' ? String(cobroId) : a)),
        { env },
      );
      expect(r.stderr).not.toMatch(/inesperado|Cannot read/);
      expect(r.exitCode, r.stderr).toBe(exit);
      expect(r.stderr).toContain(
        `aviso: ${journal} línea 2: no es una entrada del journal (falta verification); se omitió`,
      );
      expect(r.stderr).toContain(
        `aviso: ${journal} línea 3: no es una entrada del journal (no es JSON (¿una línea cortada?)); se omitió`,
      );
      if (args[0] !== 'webhook' || args[1] !== 'conciliar')
        expect(r.stdout).toContain('evt_good00000001'.slice(0, 8));
      expect(r.stdout).not.toContain('evt_bad');
    },
  );

  it.each([
    ['null', null],
    ['headers null', { headers: null, body: '', body_encoding: 'utf8', bytes: 0 }],
    ['body a number', { headers: {}, body: 5, body_encoding: 'utf8', bytes: 1 }],
    ['headers a list of numbers', { headers: [1], body: 'x', body_encoding: 'utf8', bytes: 1 }],
  ])(
    'webhook ver of a line whose response is %s: skipped with a notice, no "error inesperado"',
    async (_n, response) => {
      const dir = tempDir('svc-journal-read-');
      const file = join(dir, 'webhooks.jsonl');
      writeFileSync(
        file,
        `${JSON.stringify({ ...entry('evt_resp00000001', cobroId), response })}\n`,
      );
      const r = await svc(['webhook', 'ver', 'evt_resp00000001'], {
        env: { ...env, SVC_DATA_DIR: dir },
      });
      expect(r.stderr).not.toMatch(/inesperado|Cannot read|is not/);
      expect(r.stderr).toMatch(/línea 1: no es una entrada del journal \((falta )?response/);
      expect(r.exitCode).not.toBe(0);
      expect(r.exitCode).not.toBe(1);
    },
  );

  it('webhook ver of a skipped line says it is not in the journal, no half record', async () => {
    const r = await svc(['webhook', 'ver', 'evt_bad000000001'], { env });
    expect(r.stderr).not.toMatch(/inesperado|Cannot read/);
    expect(r.exitCode).not.toBe(0);
    expect(r.stdout).toBe('');
  });
});
