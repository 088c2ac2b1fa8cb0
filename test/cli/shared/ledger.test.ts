// The ledger both batches (refunds, payment requests) keep beside their file, and
// rowOnce, which does one row exactly once with it: in this process, with the
// service's part played by functions, so each path (sent, refused, lost reply found,
// lost reply not found, a service that cannot be asked) is seen on its own.
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, NetworkError } from '../../../src/api/service-errors.js';
import type { Context } from '../../../src/cli/context.js';
import {
  eachInTurn,
  Ledger,
  makeProgress,
  refusalText,
  rowOnce,
} from '../../../src/cli/shared/ledger.js';
import { tempDir } from '../../helpers/cli.js';
import { skipBecause } from '../../helpers/skips.js';

interface Done {
  fila: number;
  estado: 'hecho' | 'rechazado';
  id?: number;
  error?: string;
}
const isOutcome = (e: Record<string, unknown>) => e.estado === 'hecho' || e.estado === 'rechazado';
const ledgerIn = () => join(tempDir('svc-ledger-'), 'lote.csv.registro.jsonl');
const open = (path: string) => new Ledger<Done>(path, isOutcome);
const linesOf = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('Ledger', () => {
  it('keeps what the batch is, each intent and each outcome, fsynced lines a next run reads back (0600)', () => {
    const path = ledgerIn();
    const l = open(path);
    expect(l.meta).toBeUndefined();
    l.begin({ digest: 'sha256:ab', lote: 'lote.csv' });
    l.intent(2);
    l.outcome({ fila: 2, estado: 'hecho', id: 71 });
    l.intent(3);
    l.close();
    if (process.platform !== 'win32') expect(statSync(path).mode & 0o777).toBe(0o600);
    // A new ledger starts with its first line, nothing before it.
    expect(readFileSync(path, 'utf8')).toMatch(/^\{"archivo":true,/);
    const lines = linesOf(path);
    expect(lines[0]).toEqual({ archivo: true, digest: 'sha256:ab', lote: 'lote.csv' });
    expect(lines[1]).toEqual({ fila: 2, intento: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(lines.slice(2)).toEqual([
      { fila: 2, estado: 'hecho', id: 71 },
      { fila: 3, intento: expect.any(String) },
    ]);

    const again = open(path);
    expect(again.meta).toEqual({ archivo: true, digest: 'sha256:ab', lote: 'lote.csv' });
    expect([...again.intents]).toEqual([2, 3]);
    expect([...again.outcomes]).toEqual([[2, { fila: 2, estado: 'hecho', id: 71 }]]);
    // What the batch is is written once: a run that resumes does not start it again.
    again.begin({ digest: 'sha256:otro', lote: 'lote.csv' });
    again.close();
    expect(linesOf(path).filter((e) => 'archivo' in e)).toHaveLength(1);
  });

  it('a line cut by a kill is skipped and closed, so the next line starts clean; lines that are not the ledger’s are skipped', () => {
    const path = ledgerIn();
    writeFileSync(
      path,
      [
        '{"archivo":true,"digest":"sha256:1"}',
        '{"archivo":true,"digest":"sha256:2"}',
        'null',
        '7',
        '{"fila":"4","intento":"x"}',
        '{"fila":5,"estado":"otra cosa"}',
        '{"fila":"7","estado":"rechazado","error":"x"}',
        '{"fila":6,"intento":"2026-01-01T00:00:00.000Z"}',
        '{"fila":6,"estado":"rechazado","error":"x"}',
        '',
        '{"fila":8,"intento":"2026-',
      ].join('\n'),
    );
    const l = open(path);
    expect(l.meta).toEqual({ archivo: true, digest: 'sha256:1' });
    expect([...l.intents]).toEqual([6]);
    expect([...l.outcomes.keys()]).toEqual([6]);
    l.intent(9);
    l.close();
    const text = readFileSync(path, 'utf8');
    expect(text).toMatch(/\{"fila":8,"intento":"2026-\n\{"fila":9,"intento":"[^"]+"\}\n$/);
    expect([...open(path).intents]).toEqual([6, 9]);
  });

  it.skipIf(
    skipBecause(
      import.meta.url,
      process.platform !== 'linux' && `Linux only (this is ${process.platform})`,
    ),
  )('close gives its file back, a new ledger or one read back', () => {
    const fds = () => readdirSync('/proc/self/fd').length;
    const path = ledgerIn();
    for (const _ of ['new', 'read back']) {
      const before = fds();
      const l = open(path);
      expect(fds()).toBe(before + 1);
      l.intent(2);
      l.close();
      expect(fds()).toBe(before);
    }
  });

  it('a ledger ending whole is appended to as it is', () => {
    const path = ledgerIn();
    writeFileSync(path, '{"fila":1,"intento":"x"}\n');
    const l = open(path);
    l.intent(2);
    l.close();
    expect(readFileSync(path, 'utf8')).toMatch(
      /^\{"fila":1,"intento":"x"\}\n\{"fila":2,"intento":"[^"]+"\}\n$/,
    );
  });

  it('a ledger that is not a regular file is refused, naming it, and a link in its place is not followed', () => {
    const dir = tempDir('svc-ledger-');
    mkdirSync(join(dir, 'carpeta'));
    expect(() => open(join(dir, 'carpeta'))).toThrow(
      /el registro .*carpeta no es un archivo común .*: no se hizo nada/,
    );
    // Another reason it cannot be read: said as the system names it.
    writeFileSync(join(dir, 'archivo'), '');
    expect(() => open(join(dir, 'archivo', 'lote.csv.registro.jsonl'))).toThrow(
      /el registro .*archivo\/lote\.csv\.registro\.jsonl no se puede leer \(ENOTDIR\): no se hizo nada$/,
    );
    if (process.platform === 'win32') return;
    writeFileSync(join(dir, 'otro'), '');
    symlinkSync(join(dir, 'otro'), join(dir, 'enlace'));
    expect(() => open(join(dir, 'enlace'))).toThrow(
      /el registro .*enlace es un enlace simbólico: no se hizo nada/,
    );
  });
});

describe('rowOnce: one row, exactly once', () => {
  const lost = () => new NetworkError('timeout', 'sin respuesta', true);
  const refusedBy = () => new ApiError(422, 'monto_invalido', 'el monto supera lo cobrado', {});
  const steps = (s: Partial<Parameters<typeof rowOnce<Done>>[2]> = {}) => ({
    find: vi.fn(s.find ?? (async () => undefined)),
    send: vi.fn(s.send ?? (async () => ({ fila: 2, estado: 'hecho' as const, id: 71 }))),
    refused: vi.fn(
      s.refused ??
        ((e: { error?: string; message: string }) => ({
          fila: 2,
          estado: 'rechazado' as const,
          error: refusalText(e),
        })),
    ),
  });

  it('a row not tried before: its intent, the POST, its outcome; nothing looked for', async () => {
    const path = ledgerIn();
    const l = open(path);
    const s = steps();
    expect(await rowOnce(l, 2, s)).toEqual({ outcome: { fila: 2, estado: 'hecho', id: 71 } });
    l.close();
    expect(s.find).not.toHaveBeenCalled();
    expect(s.send).toHaveBeenCalledTimes(1);
    expect(linesOf(path)).toEqual([
      { fila: 2, intento: expect.any(String) },
      { fila: 2, estado: 'hecho', id: 71 },
    ]);
  });

  it('a row whose intent a run before left: found on the service, it is not sent again', async () => {
    const path = ledgerIn();
    const l = open(path);
    l.intent(2);
    const s = steps({ find: async () => ({ fila: 2, estado: 'hecho', id: 70 }) });
    expect(await rowOnce(l, 2, s)).toEqual({ outcome: { fila: 2, estado: 'hecho', id: 70 } });
    l.close();
    expect(s.find).toHaveBeenCalledWith(0);
    expect(s.send).not.toHaveBeenCalled();
    expect(l.outcomes.get(2)).toEqual({ fila: 2, estado: 'hecho', id: 70 });
    expect(linesOf(path).at(-1)).toEqual({ fila: 2, estado: 'hecho', id: 70 });
  });

  it('a row whose intent a run before left, not on the service: sent once, with a new intent', async () => {
    const path = ledgerIn();
    const l = open(path);
    l.intent(2);
    const s = steps();
    expect(await rowOnce(l, 2, s)).toEqual({ outcome: { fila: 2, estado: 'hecho', id: 71 } });
    l.close();
    expect(s.send).toHaveBeenCalledTimes(1);
    expect(linesOf(path).map((e) => ('intento' in e ? 'intento' : e.estado))).toEqual([
      'intento',
      'intento',
      'hecho',
    ]);
  });

  it('a refusal is the row’s outcome: recorded, not tried again', async () => {
    const path = ledgerIn();
    const l = open(path);
    const s = steps({ send: async () => Promise.reject(refusedBy()) });
    expect(await rowOnce(l, 2, s)).toEqual({
      outcome: {
        fila: 2,
        estado: 'rechazado',
        error: 'monto_invalido: el monto supera lo cobrado',
      },
    });
    l.close();
    expect(s.send).toHaveBeenCalledTimes(1);
    expect(s.refused).toHaveBeenCalledWith(
      expect.objectContaining({ error: 'monto_invalido', message: 'el monto supera lo cobrado' }),
    );
    expect(linesOf(path).at(-1)).toEqual({
      fila: 2,
      estado: 'rechazado',
      error: 'monto_invalido: el monto supera lo cobrado',
    });
  });

  it('a request that surely never left is a refusal too', async () => {
    const l = open(ledgerIn());
    const s = steps({
      send: async () =>
        Promise.reject(new NetworkError('connection_refused', 'conexión rechazada', false)),
    });
    expect(await rowOnce(l, 2, s)).toEqual({
      outcome: { fila: 2, estado: 'rechazado', error: 'error: conexión rechazada' },
    });
    l.close();
  });

  it('a reply lost on the way: looked for before sending again, and found', async () => {
    const l = open(ledgerIn());
    const s = steps({
      send: async () => Promise.reject(lost()),
      find: async (round) => (round === 1 ? { fila: 2, estado: 'hecho', id: 72 } : undefined),
    });
    expect(await rowOnce(l, 2, s)).toEqual({ outcome: { fila: 2, estado: 'hecho', id: 72 } });
    l.close();
    expect(s.send).toHaveBeenCalledTimes(1);
    expect(s.find.mock.calls).toEqual([[1]]);
  });

  it('replies lost three times, nothing found: unknown after three sends, each after its look', async () => {
    const path = ledgerIn();
    const l = open(path);
    const s = steps({ send: async () => Promise.reject(lost()) });
    expect(await rowOnce(l, 2, s)).toEqual({ unknown: 'sin respuesta del servicio' });
    l.close();
    expect(s.send).toHaveBeenCalledTimes(3);
    expect(s.find.mock.calls).toEqual([[1], [2]]);
    expect(linesOf(path).filter((e) => 'intento' in e)).toHaveLength(3);
    expect(l.outcomes.has(2)).toBe(false);
  });

  it('a service that cannot be asked about a row left in doubt: unknown, nothing sent', async () => {
    const l = open(ledgerIn());
    l.intent(2);
    const s = steps({ find: async () => Promise.reject(new Error('ECONNRESET')) });
    expect(await rowOnce(l, 2, s)).toEqual({
      unknown: 'no se pudo revisar el servicio: ECONNRESET',
    });
    l.close();
    expect(s.send).not.toHaveBeenCalled();
  });

  it('refusalText: the service’s error name and message; "error" when it has no name', () => {
    expect(refusalText({ error: 'cobro_no_pagado', message: 'no' })).toBe('cobro_no_pagado: no');
    expect(refusalText({ message: 'no' })).toBe('error: no');
  });
});

describe('eachInTurn', () => {
  it('starts the items in order, at most `paralelo` at a time, and waits for all', async () => {
    const started: number[] = [];
    let running = 0;
    let most = 0;
    await eachInTurn([1, 2, 3, 4, 5, 6, 7], 3, async (i) => {
      started.push(i);
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, (7 - i) % 3));
      running--;
    });
    expect(started).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
    expect(running).toBe(0);
  });

  it('more workers than items, or none: each item once', async () => {
    const seen: string[] = [];
    await eachInTurn(['a', 'b'], 4, async (x) => void seen.push(x));
    await eachInTurn([], 4, async (x: string) => void seen.push(x));
    expect(seen).toEqual(['a', 'b']);
  });
});

describe('makeProgress', () => {
  afterEach(() => vi.useRealTimers());
  const ctxWith = (tty: boolean, json = false) => {
    let text = '';
    const ctx = {
      io: { stderrTTY: tty, stderr: { write: (s: string) => void (text += s) } },
      globals: { json },
    } as unknown as Context;
    return { ctx, text: () => text };
  };

  it('on a terminal: one line rewritten with rows, the amount of the rows counted, the total and the time left; a newline at the end', () => {
    vi.useFakeTimers({ now: new Date('2026-11-25T12:00:00Z') });
    const { ctx, text } = ctxWith(true);
    const progress = makeProgress(ctx, 4, 4000n);
    vi.advanceTimersByTime(2000);
    progress({ monto: '10.00', counted: true });
    expect(text()).toBe('\r[#####...............] 1/4 filas · 10.00 de 40.00 · quedan ~6 s');
    vi.advanceTimersByTime(2000);
    progress({ monto: '15.50', counted: false });
    progress({ monto: '15.50', counted: true });
    expect(text().split('\r').at(-1)).toBe(
      '[###############.....] 3/4 filas · 25.50 de 40.00 · quedan ~1 s',
    );
    progress(undefined);
    expect(text().endsWith('s\n')).toBe(true);
  });

  it('on a narrow terminal the line stays shorter than it: the bar goes, then the amounts', () => {
    vi.useFakeTimers({ now: new Date('2026-11-25T12:00:00Z') });
    const lines = (cols: number) => {
      let text = '';
      const ctx = {
        io: {
          stderrTTY: true,
          errColumns: cols,
          stderr: { write: (s: string) => void (text += s) },
        },
        globals: { json: false },
      } as unknown as Context;
      const progress = makeProgress(ctx, 300, 45_000_000n);
      vi.advanceTimersByTime(2000);
      progress({ monto: '1500.00', counted: true });
      return text.split('\r').slice(1);
    };
    expect(lines(80)).toEqual([
      '[....................] 1/300 filas · 1500.00 de 450000.00 · quedan ~598 s',
    ]);
    expect(lines(60)).toEqual(['1/300 filas · 1500.00 de 450000.00 · quedan ~598 s']);
    expect(lines(40)).toEqual(['1/300 filas · quedan ~598 s']);
    expect(lines(10)).toEqual(['1/300']);
  });

  it('piped, or with --json: nothing (rows are reported one per line)', () => {
    for (const [tty, json] of [
      [false, false],
      [true, true],
    ]) {
      const { ctx, text } = ctxWith(tty!, json);
      const progress = makeProgress(ctx, 2, 100n);
      progress({ monto: '1.00', counted: true });
      progress(undefined);
      expect(text()).toBe('');
    }
  });
});
