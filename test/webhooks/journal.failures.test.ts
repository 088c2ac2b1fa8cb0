// The journal when the disk says no: a write cut short (a full disk), an fdatasync that
// fails, a folder where the file cannot be rotated, a line torn by a crash before it
// was opened; and what a reader is told about the lines it skips. In this process: the
// file handle's write and datasync are made to fail, as the OS would.
import {
  appendFileSync,
  mkdirSync,
  readFileSync,
  rmdirSync,
  statSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { journalEntry, journalEntryAs } from '../helpers/journal.js';
import {
  BATCH_MAX_CHARS,
  defaultJournalPath,
  encodePrefix,
  entryProblem,
  eventEntry,
  encodeBody,
  generationPaths,
  Journal,
  JOURNAL_MAX_BYTES,
  keptHeaders,
  MAX_PROBLEMS,
  newEntryId,
  readJournal,
  REJECTED_BODY_KEEP,
  rejectedPath,
  rotatedPath,
  type JournalEntry,
} from '../../src/webhooks/event-journal.js';

/** Entries of one size, the same each time for one `i` (100…999, in the body and cobro_id). */
const entry = (i: number): JournalEntry => ({
  ...journalEntry(i),
  id: `evt_000000000${i}`,
  received_at: '2026-11-25T17:11:52.225Z',
});
const lineOf = (e: JournalEntry) => `${JSON.stringify(e)}\n`;
const ONE = Buffer.byteLength(lineOf(entry(100)));
const cobros = (path: string) => readJournal(path).entries.map((e) => e.cobro_id);
const journalIn = () => join(tempDir('svc-journal-'), 'webhooks.jsonl');

// FileHandle is not exported by node:fs/promises: its prototype, from a handle.
let FH: FileHandle;
beforeAll(async () => {
  const probe = await open(journalIn(), 'w');
  FH = Object.getPrototypeOf(probe) as FileHandle;
  await probe.close();
});
afterEach(() => vi.restoreAllMocks());

/** Journal.open as on a platform without O_DSYNC (Windows): a write, then fdatasync. */
async function openWithoutDsync(path: string): Promise<Journal> {
  const platform = Object.getOwnPropertyDescriptor(process, 'platform')!;
  Object.defineProperty(process, 'platform', { ...platform, value: 'win32' });
  try {
    return await Journal.open(path);
  } finally {
    Object.defineProperty(process, 'platform', platform);
  }
}

const diskFull = () =>
  Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

describe('journal: when the disk fails', () => {
  it('a write cut short by a full disk rejects its entry; the next entry starts on a new line, so only the torn line is lost', async () => {
    const path = journalIn();
    const j = await Journal.open(path);
    await j.append(entry(101));
    const write = FH.write as (
      this: FileHandle,
      data: Buffer,
      at: number,
      length: number,
    ) => Promise<unknown>;
    vi.spyOn(FH, 'write').mockImplementationOnce(async function (
      this: FileHandle,
      data: unknown,
      at?: unknown,
      length?: unknown,
    ) {
      await write.call(this, data as Buffer, at as number, Math.floor((length as number) / 2));
      throw diskFull();
    });
    await expect(j.append(entry(102))).rejects.toThrow(
      `no se pudo escribir el journal ${path}: ENOSPC: no space left on device, write`,
    );
    await j.append(entry(103));
    await j.append(entry(104));
    await j.close();
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines).toEqual([
      lineOf(entry(101)).trim(),
      expect.any(String),
      expect.any(String),
      expect.any(String),
      '',
    ]);
    expect(lineOf(entry(102)).startsWith(lines[1]!)).toBe(true);
    expect(lines[1]!.length).toBe(Math.floor(ONE / 2));
    expect(JSON.parse(lines[2]!).cobro_id).toBe(103);
    expect(JSON.parse(lines[3]!).cobro_id).toBe(104);
    expect(readJournal(path)).toMatchObject({
      skipped: 1,
      problems: [{ file: path, line: 2, why: 'no es JSON (¿una línea cortada?)' }],
    });
    expect(cobros(path)).toEqual([101, 103, 104]);
    // Lines and durable writes count what reached the disk whole.
    expect(j.stats()).toEqual({ lines: 3, syncs: 3 });
  });

  it('with O_DSYNC each write is durable by itself: no fdatasync after it', async () => {
    if (process.platform === 'win32') return;
    const datasync = vi.spyOn(FH, 'datasync');
    const path = journalIn();
    writeFileSync(path, '{"id":"evt_torn"'); // a torn line: ending it needs no fdatasync either
    const j = await Journal.open(path);
    await j.append(entry(101));
    await j.close();
    expect(datasync).not.toHaveBeenCalled();
  });

  it('without O_DSYNC each write is followed by fdatasync, and an fdatasync that fails rejects its entry', async () => {
    const path = journalIn();
    writeFileSync(path, '{"id":"evt_torn"');
    const datasync = vi.spyOn(FH, 'datasync');
    const j = await openWithoutDsync(path);
    // Ending the torn line is made durable too.
    expect(datasync).toHaveBeenCalledTimes(1);
    await j.append(entry(101));
    expect(datasync).toHaveBeenCalledTimes(2);
    datasync.mockRejectedValueOnce(
      Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }),
    );
    await expect(j.append(entry(102))).rejects.toThrow(
      `no se pudo escribir el journal ${path}: EIO: i/o error, fdatasync`,
    );
    await j.append(entry(103));
    await j.close();
    expect(datasync).toHaveBeenCalledTimes(4);
    expect(j.stats()).toEqual({ lines: 2, syncs: 2 });
    // The entry whose fdatasync failed may be on disk or not; the one after it is on its own line either way.
    expect(cobros(path)).toEqual([101, 102, 103]);
    expect(readJournal(path).skipped).toBe(1);
  });

  it('a folder where the journal cannot be rotated: it grows in full batches, and rotation is not tried again', async () => {
    const path = journalIn();
    const j = await Journal.open(path, { maxBytes: 3 * ONE, generations: 2 });
    // A folder in the way of webhooks.jsonl.1: the rename fails.
    mkdirSync(rotatedPath(path));
    for (let i = 100; i < 105; i++) await j.append(entry(i));
    expect(j.stats()).toEqual({ lines: 5, syncs: 5 });
    rmdirSync(rotatedPath(path));
    // Queued together, they go in one write (not cut at the size it cannot keep to).
    await Promise.all(Array.from({ length: 10 }, (_, i) => j.append(entry(105 + i))));
    await j.close();
    expect(j.stats()).toEqual({ lines: 15, syncs: 6 });
    expect(existsSync(rotatedPath(path))).toBe(false);
    expect(statSync(path).size).toBe(15 * ONE);
    expect(cobros(path)).toEqual(Array.from({ length: 15 }, (_, i) => 100 + i));
  });

  it('the newline that ends a torn last line counts toward the size: the file rotates where it is full', async () => {
    const path = journalIn();
    const torn = '{"id":"evt_torn","received_at":"2';
    writeFileSync(path, lineOf(entry(100)) + torn);
    // Room for two more entries after the torn line and its newline, less two bytes: the second
    // rotates the file first only when the newline was counted.
    const j = await Journal.open(path, { maxBytes: ONE + torn.length + 1 + 2 * ONE - 2 });
    // (An append resolves once its line is on disk; the rotation after it may still be under way: close waits for it.)
    await j.append(entry(101));
    await j.append(entry(102));
    await j.close();
    expect(readFileSync(rotatedPath(path), 'utf8')).toBe(
      `${lineOf(entry(100))}${torn}\n${lineOf(entry(101))}`,
    );
    expect(readFileSync(path, 'utf8')).toBe(lineOf(entry(102)));
  });

  it('a journal that ends whole is opened without adding anything', async () => {
    const path = journalIn();
    writeFileSync(path, lineOf(entry(100)));
    await (await Journal.open(path)).close();
    expect(readFileSync(path, 'utf8')).toBe(lineOf(entry(100)));
  });

  it('a journal that cannot be opened says which and why', async () => {
    const dir = tempDir('svc-journal-');
    writeFileSync(join(dir, 'archivo'), '');
    await expect(Journal.open(join(dir, 'archivo', 'webhooks.jsonl'))).rejects.toThrow(
      /^no se pudo abrir el journal .*archivo\/webhooks\.jsonl: EEXIST/,
    );
  });
});

describe('journal ids', () => {
  it('stay unique and of one form across many blocks of random bytes', () => {
    const ids = Array.from({ length: 2500 }, () => newEntryId());
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => !/^evt_[0-9a-f]{12}$/.test(id))).toEqual([]);
  });
});

describe('readJournal: what a reader is told about the lines it skips', () => {
  it('counts every skipped line of the four files and names the first five, oldest file first, each with its line', () => {
    const path = journalIn();
    const good = lineOf(entry(100));
    writeFileSync(rotatedPath(path), `${good}no json\n`);
    writeFileSync(path, `${good}\n   \n[1]\n${good}`);
    writeFileSync(rotatedPath(rejectedPath(path)), '{"id":""}\n');
    writeFileSync(rejectedPath(path), `{"id":"x"}\nnull\n${good}{"a"\n`);
    const r = readJournal(path);
    expect(r.entries).toHaveLength(4);
    expect(r.skipped).toBe(6);
    expect(r.problems).toHaveLength(MAX_PROBLEMS);
    expect(r.problems).toEqual([
      { file: rotatedPath(path), line: 2, why: 'no es JSON (¿una línea cortada?)' },
      { file: path, line: 4, why: 'no es un objeto' },
      { file: rotatedPath(rejectedPath(path)), line: 1, why: 'falta id' },
      { file: rejectedPath(path), line: 1, why: 'received_at no es una fecha' },
      { file: rejectedPath(path), line: 2, why: 'no es un objeto' },
    ]);
  });

  it('a skipped line past the first five is counted, not named; a file it cannot read is an error naming it', () => {
    const path = journalIn();
    writeFileSync(path, 'x\n'.repeat(MAX_PROBLEMS + 2));
    const r = readJournal(path);
    expect(r.skipped).toBe(MAX_PROBLEMS + 2);
    expect(r.problems.map((p) => p.line)).toEqual([1, 2, 3, 4, 5]);
    mkdirSync(rotatedPath(path));
    expect(() => readJournal(path)).toThrow(
      new RegExp(`^no se pudo leer el journal ${rotatedPath(path).replace(/[.]/g, '\\.')}: EISDIR`),
    );
  });

  it('a rejected request and an event of the same millisecond: the event first', async () => {
    const path = journalIn();
    const at = '2026-01-01T00:00:01.000Z';
    appendFileSync(path, lineOf({ ...entry(101), received_at: at }));
    appendFileSync(
      rejectedPath(path),
      lineOf({
        ...entry(103),
        received_at: '2026-01-01T00:00:00.500Z',
        verification: { valid: false },
      }),
    );
    appendFileSync(
      rejectedPath(path),
      lineOf({
        ...entry(102),
        received_at: at,
        verification: { valid: false, reason: 'missing_signature' },
      }),
    );
    appendFileSync(path, lineOf({ ...entry(104), received_at: '2026-01-01T00:00:02.000Z' }));
    expect(cobros(path)).toEqual([103, 101, 102, 104]);
  });
});

describe('entryProblem: each field a command reads, of its type', () => {
  const good = journalEntryAs('evt_000000000001', {
    replay_of: 'evt_000000000000',
    error: 'ECONNREFUSED',
    response_start: 'x',
  });
  const with_ = (fields: Record<string, unknown>) => ({ ...good, ...fields });
  const without = (key: string) => {
    const e: Record<string, unknown> = { ...good };
    delete e[key];
    return e;
  };

  it('an entry as svc writes it, with or without its optional fields, null where null is allowed, is one', () => {
    expect(entryProblem(good)).toBeUndefined();
    for (const key of [
      'body_encoding',
      'status',
      'answered',
      'latency_ms',
      'target',
      'replay_of',
      'error',
      'response_start',
      'method',
      'path',
    ])
      expect(entryProblem(without(key)), key).toBeUndefined();
    expect(
      entryProblem(
        with_({
          event: null,
          estado: null,
          monto: null,
          cobro_id: null,
          status: null,
          target: null,
          replay_of: null,
          body_encoding: 'base64',
        }),
      ),
    ).toBeUndefined();
    expect(
      entryProblem(
        with_({
          source: 'replay',
          verification: { valid: false, reason: 'bad_signature', message: 'no coincide' },
        }),
      ),
    ).toBeUndefined();
    expect(entryProblem(with_({ source: 'trigger', headers: {} }))).toBeUndefined();
    // `bytes` is optional; the app's answer kept, as text or base64, whole or cut.
    expect(entryProblem(without('bytes'))).toBeUndefined();
    const answer = { headers: { 'content-type': 'text/plain' }, body: 'ok', bytes: 2 };
    expect(entryProblem(with_({ response: { ...answer, body_encoding: 'utf8' } }))).toBeUndefined();
    expect(
      entryProblem(
        with_({ response: { ...answer, body: 'b2s=', body_encoding: 'base64', truncated: true } }),
      ),
    ).toBeUndefined();
  });

  it.each([
    ['null', null, 'no es un objeto'],
    ['a list', [good], 'no es un objeto'],
    ['a number', 5, 'no es un objeto'],
    ['no id', without('id'), 'falta id'],
    ['an empty id', with_({ id: '' }), 'falta id'],
    ['received_at a number', with_({ received_at: 1764090712225 }), 'received_at no es una fecha'],
    ['received_at not a date', with_({ received_at: 'ayer' }), 'received_at no es una fecha'],
    ['another source', with_({ source: 'sandbox' }), 'source no es listen, replay ni trigger'],
    ['no body', without('body'), 'falta body'],
    ['body_encoding hex', with_({ body_encoding: 'hex' }), 'body_encoding no es utf8 ni base64'],
    ['headers null', with_({ headers: null }), 'headers no son textos'],
    ['headers a list', with_({ headers: ['content-type'] }), 'headers no son textos'],
    ['headers text', with_({ headers: 'content-type: x' }), 'headers no son textos'],
    ['a header a number', with_({ headers: { 'content-length': 5 } }), 'headers no son textos'],
    ['event a number', with_({ event: 1 }), 'event no es texto ni null'],
    ['estado missing', without('estado'), 'estado no es texto ni null'],
    ['monto a number', with_({ monto: 10 }), 'monto no es texto ni null'],
    ['cobro_id as text', with_({ cobro_id: '7' }), 'cobro_id no es un entero ni null'],
    ['cobro_id 7.5', with_({ cobro_id: 7.5 }), 'cobro_id no es un entero ni null'],
    ['no verification', without('verification'), 'falta verification'],
    ['verification null', with_({ verification: null }), 'falta verification'],
    [
      'verification.valid as text',
      with_({ verification: { valid: 'true' } }),
      'falta verification',
    ],
    [
      'verification.reason a number',
      with_({ verification: { valid: false, reason: 401 } }),
      'verification.reason no es texto',
    ],
    [
      'verification.message a number',
      with_({ verification: { valid: false, message: 401 } }),
      'verification.reason no es texto',
    ],
    ['no outcome', without('outcome'), 'falta outcome'],
    ['status as text', with_({ status: '200' }), 'status no es un número ni null'],
    [
      'answered infinite',
      with_({ answered: Number.POSITIVE_INFINITY }),
      'answered no es un número ni null',
    ],
    ['latency_ms as text', with_({ latency_ms: '3' }), 'latency_ms no es un número ni null'],
    ['target a number', with_({ target: 80 }), 'target no es texto'],
    ['replay_of a number', with_({ replay_of: 1 }), 'replay_of no es texto'],
    ['error an object', with_({ error: {} }), 'error no es texto'],
    ['response_start a number', with_({ response_start: 1 }), 'response_start no es texto'],
    ['method a number', with_({ method: 1 }), 'method no es texto'],
    ['path a number', with_({ path: 1 }), 'path no es texto'],
    ['bytes as text', with_({ bytes: '12' }), 'bytes no es un entero'],
    ['response null', with_({ response: null }), 'response no es un objeto'],
    ['response text', with_({ response: 'ok' }), 'response no es un objeto'],
    [
      'response.headers a list',
      with_({ response: { headers: [], body: '', body_encoding: 'utf8', bytes: 0 } }),
      'response.headers no son textos',
    ],
    [
      'response.body a number',
      with_({ response: { headers: {}, body: 1, body_encoding: 'utf8', bytes: 1 } }),
      'falta response.body',
    ],
    [
      'response.body_encoding hex',
      with_({ response: { headers: {}, body: '', body_encoding: 'hex', bytes: 0 } }),
      'response.body_encoding no es utf8 ni base64',
    ],
    [
      'response.bytes missing',
      with_({ response: { headers: {}, body: '', body_encoding: 'utf8' } }),
      'response.bytes no es un entero',
    ],
    [
      'response.truncated false',
      with_({
        response: { headers: {}, body: '', body_encoding: 'utf8', bytes: 0, truncated: false },
      }),
      'response.truncated no es true',
    ],
  ])('%s', (_what, value, why) => {
    expect(entryProblem(value)).toBe(why);
  });
});

describe('journal sizes and names', () => {
  it('one write holds at most 4 MiB of queued lines; a journal of the default size does not rotate under it', async () => {
    const path = journalIn();
    const j = await Journal.open(path);
    // 48 lines of about 100 KiB, queued at once: about 4.7 MiB, so two writes.
    const big = (i: number) => ({ ...entry(i), body: 'x'.repeat(100 * 1024) });
    await Promise.all(Array.from({ length: 48 }, (_, i) => j.append(big(100 + i))));
    await j.close();
    const line = Buffer.byteLength(lineOf(big(100)));
    expect(Math.floor(BATCH_MAX_CHARS / line)).toBe(40);
    expect(j.stats()).toEqual({ lines: 48, syncs: 2 });
    expect(existsSync(rotatedPath(path))).toBe(false);
    expect(statSync(path).size).toBe(48 * line);
    expect(JOURNAL_MAX_BYTES).toBe(64 * 1024 * 1024);
  });

  it('a line larger than the size is written whole, then the file rotates: a generation holds that one line', async () => {
    const path = journalIn();
    const j = await Journal.open(path, { maxBytes: ONE - 1 });
    await j.append(entry(100));
    await j.append(entry(101));
    await j.close();
    expect(readFileSync(rotatedPath(path), 'utf8')).toBe(lineOf(entry(101)));
    expect(readFileSync(path, 'utf8')).toBe('');
    // The first line, larger than the size, went to an empty file: it was not rotated first.
    expect(generationPaths(path)).toEqual([rotatedPath(path, 2), rotatedPath(path)]);
    expect(readFileSync(rotatedPath(path, 2), 'utf8')).toBe(lineOf(entry(100)));
    // Closing twice is closing once.
    await expect(j.close()).resolves.toBeUndefined();
  });

  it('where the journal lives: the data folder; the rejected requests beside it', async () => {
    const dir = tempDir('svc-data-');
    expect(await defaultJournalPath({ SVC_DATA_DIR: dir })).toBe(join(dir, 'webhooks.jsonl'));
    expect(rejectedPath('/d/webhooks.jsonl')).toBe('/d/webhooks.rechazados.jsonl');
    expect(rejectedPath('/d/eventos.log')).toBe('/d/eventos.log.rechazados');
  });

  it('a rejected body keeps its first 256 bytes; a header without a value is left out', () => {
    const body = Buffer.from('a'.repeat(300));
    expect(encodePrefix(body)).toEqual({
      body: 'a'.repeat(REJECTED_BODY_KEEP),
      body_encoding: 'utf8',
      bytes: 300,
      body_truncated: true,
    });
    expect(REJECTED_BODY_KEEP).toBe(256);
    expect(keptHeaders({ 'content-type': undefined, 'x-svc-event': 'cobro.pagado' })).toStrictEqual(
      { 'x-svc-event': 'cobro.pagado' },
    );
  });
});

describe('journal writes, batch by batch', () => {
  it('queued lines fill what is left of the file, the line that reaches its size rotates it, and the rest starts the next', async () => {
    const path = journalIn();
    const j = await Journal.open(path, { maxBytes: 10 * ONE });
    for (let i = 100; i < 103; i++) await j.append(entry(i));
    await Promise.all(Array.from({ length: 10 }, (_, i) => j.append(entry(103 + i))));
    await j.close();
    // Three single writes, then 7 lines (to exactly 10), then the last 3.
    expect(j.stats()).toEqual({ lines: 13, syncs: 5 });
    expect(readFileSync(rotatedPath(path), 'utf8').split('\n').filter(Boolean)).toHaveLength(10);
    expect(cobros(path)).toEqual(Array.from({ length: 13 }, (_, i) => 100 + i));
    expect(statSync(path).size).toBe(3 * ONE);
  });

  it('a file written to exactly its size is rotated before close returns', async () => {
    const path = journalIn();
    const j = await Journal.open(path, { maxBytes: 2 * ONE });
    await j.append(entry(100));
    await j.append(entry(101));
    await j.close();
    expect(readFileSync(rotatedPath(path), 'utf8')).toBe(lineOf(entry(100)) + lineOf(entry(101)));
    expect(readFileSync(path, 'utf8')).toBe('');
  });

  it('close waits for the appends still queued: none is lost', async () => {
    const path = journalIn();
    const j = await Journal.open(path);
    const pending = [j.append(entry(100)), j.append(entry(101))];
    await j.close();
    await Promise.all(pending);
    expect(cobros(path)).toEqual([100, 101]);
  });

  it('a write the OS takes only part of is continued until the whole batch is on disk', async () => {
    const path = journalIn();
    const j = await Journal.open(path);
    const write = FH.write as (
      this: FileHandle,
      data: Buffer,
      at: number,
      length: number,
    ) => Promise<{ bytesWritten: number }>;
    const partly = async function (
      this: FileHandle,
      data: unknown,
      at?: unknown,
      length?: unknown,
    ) {
      return write.call(this, data as Buffer, at as number, Math.floor((length as number) / 3));
    };
    vi.spyOn(FH, 'write').mockImplementationOnce(partly as never);
    await Promise.all([j.append(entry(100)), j.append(entry(101))]);
    await j.close();
    expect(readFileSync(path, 'utf8')).toBe(lineOf(entry(100)) + lineOf(entry(101)));
    expect(j.stats()).toEqual({ lines: 2, syncs: 1 });
  });
});

describe('what an entry keeps of the app’s answer', () => {
  const arrival = { received_at: '2026-01-01T00:00:00.000Z', path: '/hook', headers: {} };
  const summary = { event: 'cobro.pagado', cobro_id: 7, estado: 'PAGADA', monto: '10.00' };
  const kept = encodeBody(Buffer.from('{}'));

  it('an app that could not be reached: its error, no answer kept', () => {
    const e = eventEntry(arrival, kept, summary, 'unreachable', 502, 'http://127.0.0.1:1/', {
      ok: false,
      status: null,
      latencyMs: 5,
      error: 'ECONNREFUSED',
    });
    expect(e).toMatchObject({ status: null, latency_ms: 5, error: 'ECONNREFUSED' });
    expect(e).not.toHaveProperty('response_start');
    expect(e).not.toHaveProperty('response');
  });

  it('a failed answer of up to 300 bytes is kept whole on its line; a longer one is cut with …', () => {
    const at = (body: string) =>
      eventEntry(arrival, kept, summary, 'target_error', 500, null, {
        ok: false,
        status: 500,
        latencyMs: 1,
        response: Buffer.from(body),
      }).response_start;
    expect(at('fallo')).toBe('fallo');
    expect(at('z'.repeat(300))).toBe('z'.repeat(300));
    expect(at('z'.repeat(301))).toBe(`${'z'.repeat(300)}…`);
  });
});

describe('a rejected body cut at its first bytes', () => {
  it('a character cut in the middle is dropped whole (up to 3 bytes of a 4-byte one)', () => {
    const body = Buffer.from('a🎉b');
    expect(encodePrefix(body, body.length, 4)).toEqual({
      body: 'a',
      body_encoding: 'utf8',
      bytes: 6,
      body_truncated: true,
    });
    expect(encodePrefix(body, body.length, 3)).toEqual({
      body: 'a',
      body_encoding: 'utf8',
      bytes: 6,
      body_truncated: true,
    });
  });

  it('bytes that are not UTF-8 stay base64, however much is dropped', () => {
    const bin = Buffer.from([0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0xfa]);
    expect(encodePrefix(bin, 6, 5)).toEqual({
      body: bin.subarray(0, 5).toString('base64'),
      body_encoding: 'base64',
      bytes: 6,
      body_truncated: true,
    });
  });
});
