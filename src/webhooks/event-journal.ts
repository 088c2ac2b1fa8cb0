// The journal of received notifications: one JSON object per line, appended and
// fsynced, so `svc webhook eventos` and `svc webhook replay` see every event the
// listener received, what it did with it and what the target answered. Appends are
// group-committed: lines queued while a write+fsync is under way go out together
// in the next one, and each append resolves only once its line is on disk.
// The journal never holds secrets: only Content-Type and X-Svc-* headers are kept
// (never the -H extras, which may carry the app's own credentials). It does not grow
// without end on a laptop that listens for weeks: past JOURNAL_MAX_BYTES the file
// becomes `<file>.1` (replacing the previous one) and a new one starts; readers read
// both, oldest first. Requests that failed verification come from anyone, so they go
// to a file of their own (`webhooks.rechazados.jsonl`, rotated at a few MiB) with
// only the start of their body: a flood of them can never push a verified event out,
// nor make the disk use grow past both files' two generations.
import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { open as openFile, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { decodeUtf8, type EventSummary } from './events.js';
import type { ForwardResult } from './forwarder.js';
import { maskTarget } from '../api/address.js';
import { appendAsync, openAppendAsync } from '../durable.js';
import { lookUpSorted, sortedPath, writeSorted, type SortedAnswer } from './journal-sorted.js';

export const JOURNAL_FILE = 'webhooks.jsonl';
/** Size at which the journal is rotated (two generations kept: at most about twice this on disk). */
export const JOURNAL_MAX_BYTES = 64 * 1024 * 1024;
/** Size at which the file of rejected requests is rotated (two generations kept). */
export const REJECTED_MAX_BYTES = 4 * 1024 * 1024;
/** Bytes of a rejected request's body that are kept (enough to recognise what it was). */
export const REJECTED_BODY_KEEP = 256;
/**
 * Characters written in one go at most: a batch never builds a string near V8's
 * limit however many events wait, and one slow write does not hold everything queued.
 */
export const BATCH_MAX_CHARS = 4 * 1024 * 1024;

/**
 * What the journal keeps by default: 40 files of JOURNAL_MAX_BYTES (2.5 GiB), about a
 * year of a merchant with 2,000 notifications a day (a notification's line is near 1 KiB).
 */
export const JOURNAL_KEEP_BYTES = 40 * JOURNAL_MAX_BYTES;

/** The `n`th previous generation of a journal (`.1` the newest of them). */
export function rotatedPath(path: string, n = 1): string {
  return `${path}.${n}`;
}

/** Files of JOURNAL_MAX_BYTES (smaller when `keepBytes` is small) and how many, for a journal that keeps `keepBytes`. */
export function journalSizes(keepBytes: number): { maxBytes: number; generations: number } {
  const generations = Math.max(2, Math.round(keepBytes / JOURNAL_MAX_BYTES));
  return {
    maxBytes: Math.max(1, Math.floor(Math.min(JOURNAL_MAX_BYTES, keepBytes / 2))),
    generations,
  };
}

/** The previous generations of a journal that are on disk, oldest first (`.N` … `.1`). */
export function generationPaths(path: string): string[] {
  const base = basename(path);
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const name of names) {
    if (!name.startsWith(`${base}.`)) continue;
    const n = name.slice(base.length + 1);
    if (/^[1-9][0-9]{0,5}$/.test(n)) found.push(Number(n));
  }
  return found.sort((a, b) => b - a).map((n) => rotatedPath(path, n));
}

/** Where the requests rejected by the listener are kept: `webhooks.jsonl` -> `webhooks.rechazados.jsonl`. */
export function rejectedPath(path: string): string {
  return path.endsWith('.jsonl')
    ? `${path.slice(0, -'.jsonl'.length)}.rechazados.jsonl`
    : `${path}.rechazados`;
}

export type Outcome =
  /** the target answered 2xx */
  | 'forwarded'
  /** the target answered, not 2xx (relayed to the sender) */
  | 'target_error'
  /** the target could not be reached or did not answer in time (502 to the sender) */
  | 'unreachable'
  /** bad signature: 401, not forwarded */
  | 'rejected'
  /** filtered out by --events: 200, not forwarded */
  | 'skipped'
  /** body above the cap: 413, not read whole */
  | 'too_large'
  /** no target configured: verified, kept, answered 200 */
  | 'received';

export interface JournalEntry {
  id: string;
  /** ISO 8601 UTC. */
  received_at: string;
  /** 'listen' for what arrived at the listener, 'replay' and 'trigger' for what svc sent. */
  source: 'listen' | 'replay' | 'trigger';
  replay_of?: string;
  method: string;
  path: string;
  /** Content-Type and every X-Svc-* header, names in lower case. */
  headers: Record<string, string>;
  body: string;
  body_encoding: 'utf8' | 'base64';
  bytes: number;
  event: string | null;
  cobro_id: number | null;
  estado: string | null;
  monto: string | null;
  verification: { valid: boolean; reason?: string; message?: string };
  outcome: Outcome;
  target: string | null;
  /** The target's HTTP status; null when there was no answer. */
  status: number | null;
  /** What the sender was answered. */
  answered: number | null;
  latency_ms: number | null;
  /** Why the target could not be reached. */
  error?: string;
  /** Start of the target's answer when it was not 2xx. */
  response_start?: string;
  /** The target's answer: its headers (no cookies or credentials) and its first RESPONSE_KEEP_BYTES (64 KiB). */
  response?: KeptResponse;
  /** Only the first bytes of the body were kept (`bytes` is the size received): a rejected request. */
  body_truncated?: true;
}

export interface KeptResponse {
  headers: Record<string, string>;
  body: string;
  body_encoding: 'utf8' | 'base64';
  /** Bytes kept (the answer was longer when `truncated`). */
  bytes: number;
  truncated?: true;
}

/** An app's answer as an entry keeps it; undefined when there was none. */
export function keptResponse(result: ForwardResult | undefined): KeptResponse | undefined {
  if (!result || result.status === null || !result.response) return undefined;
  const r: KeptResponse = { headers: result.responseHeaders ?? {}, ...encodeBody(result.response) };
  if (result.responseComplete === false) r.truncated = true;
  return r;
}

/** Where and when a request arrived, as every entry about it records. */
export interface Arrival {
  /** ISO 8601 UTC. */
  received_at: string;
  path: string;
  /** keptHeaders() of the request. */
  headers: Record<string, string>;
}

/** The body as an entry keeps it (encodeBody, or encodePrefix for a stranger's). */
export type KeptBody = Pick<JournalEntry, 'body' | 'body_encoding' | 'bytes' | 'body_truncated'>;

/** What the journal says about the event inside a body. */
export type EntrySummary = Pick<EventSummary, 'event' | 'cobro_id' | 'estado' | 'monto'>;

/** The entry of a verified event the listener received: its whole body, and what became of it. */
export function eventEntry(
  arrival: Arrival,
  kept: KeptBody,
  summary: EntrySummary,
  outcome: Outcome,
  answered: number,
  target: string | null = null,
  result?: ForwardResult,
): JournalEntry {
  const e: JournalEntry = {
    id: newEntryId(),
    received_at: arrival.received_at,
    source: 'listen',
    method: 'POST',
    path: arrival.path,
    headers: arrival.headers,
    ...kept,
    event: summary.event,
    cobro_id: summary.cobro_id,
    estado: summary.estado,
    monto: summary.monto,
    verification: { valid: true },
    outcome,
    // The journal is read by every command and copied into tickets: never the target's credentials.
    target: maskTarget(target),
    status: result ? result.status : null,
    answered,
    latency_ms: result ? result.latencyMs : null,
  };
  if (result?.error) e.error = result.error;
  if (result && !result.ok && result.response?.length) e.response_start = startOf(result.response);
  const response = keptResponse(result);
  if (response) e.response = response;
  return e;
}

/** The entry of a request that is not a verified event: everything from it cut short. */
export function strangeEntry(
  arrival: Arrival,
  kept: KeptBody,
  summary: EntrySummary,
  verification: JournalEntry['verification'],
  outcome: Outcome,
  answered: number,
): JournalEntry {
  return {
    id: newEntryId(),
    received_at: arrival.received_at,
    source: 'listen',
    method: 'POST',
    path: clip(arrival.path),
    headers: clipHeaders(arrival.headers),
    ...kept,
    event: clipOrNull(summary.event),
    cobro_id: summary.cobro_id,
    estado: clipOrNull(summary.estado),
    monto: clipOrNull(summary.monto),
    verification,
    outcome,
    target: null,
    status: null,
    answered,
    latency_ms: null,
  };
}

function clipOrNull(text: string | null): string | null {
  return text === null ? null : clip(text, 64);
}

/** The start of an app's answer, on one line. */
function startOf(data: Buffer): string {
  const text = data.subarray(0, 300).toString('utf8').replace(/\s+/g, ' ').trim();
  return data.length > 300 ? `${text}…` : text;
}

/** `<data dir>/webhooks.jsonl` (SVC_DATA_DIR, XDG_DATA_HOME or ~/.local/share/svc). */
export async function defaultJournalPath(env: NodeJS.ProcessEnv): Promise<string> {
  const { dataDir } = await import('../config/profiles.js');
  return join(dataDir(env), JOURNAL_FILE);
}

// Ids are cut from a block of random bytes: one randomBytes call per event was a
// syscall (and its bookkeeping) per event for 6 bytes.
const ID_BYTES = 6;
let idPool = Buffer.alloc(0);
let idAt = 0;

/** Short, unique, typeable ids: `evt_` and 12 hex digits. */
export function newEntryId(): string {
  if (idAt + ID_BYTES > idPool.length) {
    idPool = randomBytes(ID_BYTES * 1024);
    idAt = 0;
  }
  idAt += ID_BYTES;
  return `evt_${idPool.toString('hex', idAt - ID_BYTES, idAt)}`;
}

/** The headers worth keeping: Content-Type and X-Svc-*; nothing else (no credentials). */
export function keptHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    if (value === undefined || !(key === 'content-type' || key.startsWith('x-svc-'))) continue;
    kept[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return kept;
}

/** The body as stored: text when it is valid UTF-8, base64 otherwise. */
export function encodeBody(
  body: Uint8Array,
  text: string | undefined = decodeUtf8(body),
): { body: string; body_encoding: 'utf8' | 'base64'; bytes: number } {
  return text !== undefined
    ? { body: text, body_encoding: 'utf8', bytes: body.byteLength }
    : {
        body: Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('base64'),
        body_encoding: 'base64',
        bytes: body.byteLength,
      };
}

/**
 * The first `keep` bytes of a body, as stored for a rejected request: text when they
 * are UTF-8 (a character cut at the end is dropped), base64 otherwise. `bytes` is
 * the size that arrived (`total`, when the body was not read whole).
 */
export function encodePrefix(
  body: Uint8Array,
  total: number = body.byteLength,
  keep: number = REJECTED_BODY_KEEP,
): { body: string; body_encoding: 'utf8' | 'base64'; bytes: number; body_truncated?: true } {
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.byteLength, keep));
  const cut = total > head.length ? ({ body_truncated: true } as const) : {};
  for (let drop = 0; drop <= Math.min(3, head.length); drop++) {
    const text = decodeUtf8(head.subarray(0, head.length - drop));
    // Only a cut body may lose a partial character at its end.
    if (text !== undefined && (drop === 0 || cut.body_truncated))
      return { body: text, body_encoding: 'utf8', bytes: total, ...cut };
  }
  return { body: head.toString('base64'), body_encoding: 'base64', bytes: total, ...cut };
}

/** A string from a stranger, cut to `max` characters for the journal. */
export function clip(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * Headers of a rejected request as kept: at most 12, names and values cut short, so
 * its line stays under 8 KiB whatever the request held (16 KiB of headers at most).
 */
export function clipHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  let n = 0;
  for (const [k, v] of Object.entries(headers)) {
    if (n++ === 12) break;
    out[clip(k, 40)] = clip(v, 100);
  }
  return out;
}

/** The exact bytes that were received. */
export function entryBody(entry: Pick<JournalEntry, 'body' | 'body_encoding'>): Buffer {
  return Buffer.from(entry.body, entry.body_encoding === 'base64' ? 'base64' : 'utf8');
}

export class JournalError extends Error {
  override name = 'JournalError';
}

export interface JournalStats {
  /** Lines on disk since the journal was opened. */
  lines: number;
  /** Durable writes (each one write with O_DSYNC, or write + fdatasync). */
  syncs: number;
}

export interface JournalOptions {
  /** Size of each file (JOURNAL_MAX_BYTES). */
  maxBytes?: number;
  /** Files kept, the one written to included (40); the oldest is dropped when a new one starts. */
  generations?: number;
  /** Keep an index beside each file (`<file>.idx`, see JournalIndex): the listener does. */
  index?: boolean;
}

export class Journal {
  /** Lines waiting for the next write, each with its size in bytes (counted once). */
  private pending: {
    line: string;
    bytes: number;
    /** The entry's request and id, as its index record holds them. */
    cobro: number;
    idn: number;
    resolve: () => void;
    reject: (err: unknown) => void;
  }[] = [];
  private flushing: Promise<void> | undefined;
  private closed = false;
  /** A write failed part-way: the next one starts on a new line. */
  private torn = false;
  /** A rotation failed once (the folder refuses a rename): the file just grows. */
  private cannotRotate = false;
  private readonly counts: JournalStats = { lines: 0, syncs: 0 };

  private constructor(
    readonly path: string,
    private fh: FileHandle,
    private size: number,
    private readonly maxBytes: number,
    /** The file was opened O_DSYNC: each write is on disk when it returns, no fdatasync needed. */
    private readonly dsync: boolean,
    private readonly generations: number,
    private index: IndexWriter | undefined,
  ) {}

  /** Opens (creates) the journal for appending; folder 0700, file 0600. */
  static async open(path: string, options: JournalOptions = {}): Promise<Journal> {
    try {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      const { fh, dsync } = await openAppendAsync(path);
      let size = (await fh.stat()).size;
      if (size > 0) {
        // A line torn by a crash (no newline) must not swallow the next one: end it,
        // so it is one unreadable line and every later line stays whole.
        const last = Buffer.alloc(1);
        await fh.read(last, 0, 1, size - 1);
        if (last[0] !== 0x0a) {
          await appendAsync(fh, Buffer.from('\n'), dsync);
          size++;
        }
      }
      return new Journal(
        path,
        fh,
        size,
        options.maxBytes ?? JOURNAL_MAX_BYTES,
        dsync,
        Math.max(2, options.generations ?? JOURNAL_KEEP_BYTES / JOURNAL_MAX_BYTES),
        options.index === true ? await IndexWriter.open(path, size) : undefined,
      );
    } catch (err) {
      throw new JournalError(`no se pudo abrir el journal ${path}: ${(err as Error).message}`);
    }
  }

  stats(): JournalStats {
    return { ...this.counts };
  }

  /** Resolves once the entry is written and on disk (fdatasync or O_DSYNC). */
  append(entry: JournalEntry): Promise<void> {
    if (this.closed) return Promise.reject(new JournalError('el journal está cerrado'));
    return new Promise((resolve, reject) => {
      const line = `${JSON.stringify(entry)}\n`;
      this.pending.push({
        line,
        bytes: Buffer.byteLength(line),
        cobro: cobroNumber(entry.cobro_id),
        idn: idNumber(entry.id),
        resolve,
        reject,
      });
      // The first line of an idle journal waits for the end of this turn of the event
      // loop: every request parsed in the same turn goes in the same write.
      this.flushing ??= new Promise<void>((started) => setImmediate(started)).then(() =>
        this.flush(),
      );
    });
  }

  /**
   * Group commit: whatever queued while the previous write was on its way goes out in
   * the next one, up to BATCH_MAX_CHARS (at least one line) per write. Writes go to
   * Node's thread pool, never on this thread: the listener goes on reading and
   * answering requests while the disk works, and what arrives meanwhile is the next
   * batch (a synchronous write per event made every batch one event long, #28).
   */
  private async flush(): Promise<void> {
    while (this.pending.length) {
      // A file is rotated before a write would take it past its size, so a generation
      // holds at most maxBytes (or one line, when a line alone is larger).
      const first = this.pending[0]!.bytes;
      if (this.size > 0 && this.size + first > this.maxBytes && !this.cannotRotate)
        await this.rotate();
      const room = this.cannotRotate
        ? BATCH_MAX_CHARS
        : Math.min(BATCH_MAX_CHARS, Math.max(first, this.maxBytes - this.size));
      let chars = first;
      let n = 1;
      while (n < this.pending.length) {
        const next = this.pending[n]!.bytes;
        if (chars + next > room) break;
        chars += next;
        n++;
      }
      const batch = this.pending.splice(0, n);
      try {
        const text = n === 1 ? batch[0]!.line : batch.map((p) => p.line).join('');
        const data = Buffer.from(this.torn ? `\n${text}` : text);
        await appendAsync(this.fh, data, this.dsync);
        this.counts.syncs++;
        this.counts.lines += n;
        this.size += data.length;
        // The lines are on disk before their index records are written.
        await this.index?.wrote(this.fh, batch, this.torn ? 1 : 0, data.length);
        this.torn = false;
        for (const p of batch) p.resolve();
        if (this.size >= this.maxBytes && !this.cannotRotate) await this.rotate();
      } catch (err) {
        // A batch may be half on disk (a full disk): the next write starts on a new line,
        // so only the torn one is unreadable. Not truncated back: `svc webhook replay`
        // may be appending to the same file.
        this.torn = true;
        const failure = new JournalError(
          `no se pudo escribir el journal ${this.path}: ${(err as Error).message}`,
        );
        for (const p of batch) p.reject(failure);
      }
    }
    this.flushing = undefined;
  }

  /**
   * The full file becomes the newest previous generation (`.1`), each older one moves
   * one number up, and the oldest beyond the generations kept is dropped; appends go
   * on in a new file. A crash part-way leaves a gap in the numbers, which readers skip.
   */
  private async rotate(): Promise<void> {
    try {
      const last = this.generations - 1;
      // Each file's index goes with it (after it: an index left behind is found stale).
      for (const older of generationPaths(this.path)) {
        const n = Number(older.slice(this.path.length + 1));
        if (n >= last) {
          await rm(older, { force: true });
          await rm(indexPath(older), { force: true });
          await rm(sortedPath(older), { force: true });
        } else {
          await rename(older, rotatedPath(this.path, n + 1));
          await renameIfThere(indexPath(older), indexPath(rotatedPath(this.path, n + 1)));
          await renameIfThere(sortedPath(older), sortedPath(rotatedPath(this.path, n + 1)));
        }
      }
      await rename(this.path, rotatedPath(this.path));
      await renameIfThere(indexPath(this.path), indexPath(rotatedPath(this.path)));
      if (this.index) {
        this.index = await this.index.restart(this.path);
        // The generation will not change again: its look-up file (journal-sorted.ts).
        sortGeneration(rotatedPath(this.path));
      }
      // The new file's creation fsyncs the folder, which keeps the rename too.
      const { fh } = await openAppendAsync(this.path);
      await this.fh.close();
      this.fh = fh;
      this.size = 0;
    } catch {
      // Could not rotate (a read-only folder, say): keep appending to the same file,
      // in full batches, without trying again on every write.
      this.cannotRotate = true;
    }
  }

  /** Waits for queued appends, then closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.flushing) await this.flushing;
    await this.fh.close();
    await this.index?.close();
  }
}

export interface JournalRead {
  entries: JournalEntry[];
  /** Lines that are not entries (a line cut by a crash, a hand edit). */
  skipped: number;
  /** Where each skipped line is and why it was skipped (the first MAX_PROBLEMS). */
  problems: JournalProblem[];
}

export interface JournalProblem {
  file: string;
  line: number;
  why: string;
}

/** Skipped lines named one by one; past these, a count. */
export const MAX_PROBLEMS = 5;

const isStr = (v: unknown): v is string => typeof v === 'string';
const strOrNull = (v: unknown) => v === null || typeof v === 'string';
const numOrNull = (v: unknown) => v === null || (typeof v === 'number' && Number.isFinite(v));

/**
 * Why a parsed line is not a journal entry svc can show, or undefined. Every field
 * a command reads is checked (a line without `verification` made `webhook ver`,
 * `caso` and `conciliar` stop halfway); the optional ones, when present.
 */
export function entryProblem(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'no es un objeto';
  const e = v as Record<string, unknown>;
  if (!isStr(e.id) || e.id === '') return 'falta id';
  if (!isStr(e.received_at) || Number.isNaN(Date.parse(e.received_at)))
    return 'received_at no es una fecha';
  if (e.source !== 'listen' && e.source !== 'replay' && e.source !== 'trigger')
    return 'source no es listen, replay ni trigger';
  if (!isStr(e.body)) return 'falta body';
  if (e.body_encoding !== undefined && e.body_encoding !== 'utf8' && e.body_encoding !== 'base64')
    return 'body_encoding no es utf8 ni base64';
  if (!isTextMap(e.headers)) return 'headers no son textos';
  for (const k of ['event', 'estado', 'monto'] as const)
    if (!strOrNull(e[k])) return `${k} no es texto ni null`;
  if (
    !(e.cobro_id === null || (typeof e.cobro_id === 'number' && Number.isSafeInteger(e.cobro_id)))
  )
    return 'cobro_id no es un entero ni null';
  const ver = e.verification as Record<string, unknown> | undefined;
  if (typeof ver !== 'object' || ver === null || typeof ver.valid !== 'boolean')
    return 'falta verification';
  if (
    (ver.reason !== undefined && !isStr(ver.reason)) ||
    (ver.message !== undefined && !isStr(ver.message))
  )
    return 'verification.reason no es texto';
  if (!isStr(e.outcome)) return 'falta outcome';
  for (const k of ['status', 'answered', 'latency_ms'] as const)
    if (e[k] !== undefined && !numOrNull(e[k])) return `${k} no es un número ni null`;
  for (const k of ['target', 'replay_of', 'error', 'response_start', 'method', 'path'] as const)
    if (e[k] !== undefined && !strOrNull(e[k])) return `${k} no es texto`;
  if (e.bytes !== undefined && !(typeof e.bytes === 'number' && Number.isSafeInteger(e.bytes)))
    return 'bytes no es un entero';
  if (e.response !== undefined) return responseProblem(e.response);
  return undefined;
}

/** Headers as the journal keeps them: an object of texts. */
function isTextMap(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every(isStr);
}

/** Why an entry's kept answer (`response`, what `webhook ver` shows) is not one svc writes, or undefined. */
function responseProblem(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'response no es un objeto';
  const r = v as Record<string, unknown>;
  if (!isTextMap(r.headers)) return 'response.headers no son textos';
  if (!isStr(r.body)) return 'falta response.body';
  if (r.body_encoding !== 'utf8' && r.body_encoding !== 'base64')
    return 'response.body_encoding no es utf8 ni base64';
  if (!(typeof r.bytes === 'number' && Number.isSafeInteger(r.bytes)))
    return 'response.bytes no es un entero';
  if (r.truncated !== undefined && r.truncated !== true) return 'response.truncated no es true';
  return undefined;
}

/**
 * A line longer than this is not one svc writes (a body is at most 1 MiB, 4/3 of it
 * in base64, plus 64 KiB of the app's answer): it is skipped without being kept whole,
 * so a journal of any size or shape is read in bounded memory.
 */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;
const READ_CHUNK_BYTES = 256 * 1024;
/** Bytes read from a journal file at a time (READ_CHUNK_BYTES unless a test set it). */
let CHUNK_BYTES = READ_CHUNK_BYTES;
/** MAX_LINE_BYTES, unless a test asked for less. */
let maxLineBytes = MAX_LINE_BYTES;

// Stryker disable all: a hook for tests only; its mutants change how tests set up, not svc.
/**
 * For tests: the reader's chunk and longest line, so that lines across many chunks and
 * a line too long are a few KiB, not MiB; without arguments, the sizes svc uses.
 */
export function setReadSizes(sizes: { chunkBytes?: number; maxLineBytes?: number } = {}): void {
  CHUNK_BYTES = sizes.chunkBytes ?? READ_CHUNK_BYTES;
  maxLineBytes = sizes.maxLineBytes ?? MAX_LINE_BYTES;
}
// Stryker restore all

/** One line of a file: its bytes (undefined when longer than MAX_LINE_BYTES) and where it starts. */
interface RawLine {
  data: Buffer | undefined;
  /** Byte offset of its first character. */
  start: number;
  /** Byte offset past its newline; undefined when it has none (the file's end). */
  end?: number;
}

function openForReading(path: string): number | undefined {
  try {
    return openSync(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new JournalError(`no se pudo leer el journal ${path}: ${(err as Error).message}`);
  }
}

function readChunk(
  path: string,
  fd: number,
  buf: Buffer,
  length: number,
  at: number | null,
): number {
  try {
    return readSync(fd, buf, 0, length, at);
  } catch (err) {
    throw new JournalError(`no se pudo leer el journal ${path}: ${(err as Error).message}`);
  }
}

/** Pieces of one line being put together, dropped once it is too long to be an entry. */
class LineParts {
  private parts: Buffer[] = [];
  private bytes = 0;
  private tooLong = false;
  add(piece: Buffer, atStart: boolean): void {
    if (piece.length === 0) return;
    this.bytes += piece.length;
    if (this.tooLong) return;
    if (this.bytes > maxLineBytes) {
      this.tooLong = true;
      this.parts = [];
      return;
    }
    // A chunk is reused by the next read: the piece is copied.
    const copy = Buffer.from(piece);
    if (atStart) this.parts.unshift(copy);
    else this.parts.push(copy);
  }
  get empty(): boolean {
    return this.bytes === 0;
  }
  take(): Buffer | undefined {
    const data = this.tooLong
      ? undefined
      : this.parts.length === 1
        ? this.parts[0]!
        : Buffer.concat(this.parts);
    this.parts = [];
    this.bytes = 0;
    this.tooLong = false;
    return data;
  }
}

/** The lines of a file, first to last, read a chunk at a time (a FIFO too). */
function* linesForward(path: string): Generator<RawLine> {
  const fd = openForReading(path);
  if (fd === undefined) return;
  try {
    const buf = Buffer.allocUnsafe(CHUNK_BYTES);
    const line = new LineParts();
    let offset = 0;
    let lineStart = 0;
    for (;;) {
      const n = readChunk(path, fd, buf, CHUNK_BYTES, null);
      if (n === 0) break;
      let from = 0;
      for (let nl = buf.indexOf(0x0a, 0); nl !== -1 && nl < n; nl = buf.indexOf(0x0a, from)) {
        line.add(buf.subarray(from, nl), false);
        yield { data: line.take(), start: lineStart };
        from = nl + 1;
        lineStart = offset + from;
      }
      line.add(buf.subarray(from, n), false);
      offset += n;
    }
    if (!line.empty) yield { data: line.take(), start: lineStart };
  } finally {
    closeSync(fd);
  }
}

/** The lines between two offsets of an open file (`from` starts a line), first to last. */
function* linesBetween(path: string, fd: number, from: number, to: number): Generator<RawLine> {
  const buf = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK_BYTES, to - from)));
  const line = new LineParts();
  let offset = from;
  let lineStart = from;
  while (offset < to) {
    const n = readChunk(path, fd, buf, Math.min(buf.length, to - offset), offset);
    if (n === 0) break;
    let at = 0;
    for (let nl = buf.indexOf(0x0a, 0); nl !== -1 && nl < n; nl = buf.indexOf(0x0a, at)) {
      line.add(buf.subarray(at, nl), false);
      at = nl + 1;
      yield { data: line.take(), start: lineStart, end: offset + at };
      lineStart = offset + at;
    }
    line.add(buf.subarray(at, n), false);
    offset += n;
  }
  if (!line.empty) yield { data: line.take(), start: lineStart };
}

/**
 * The lines of a file, last to first, read a chunk at a time from its end: the newest
 * entries cost the same whatever the journal's size. A file that cannot be read from
 * its end (a FIFO) is read forward, and its lines given last first.
 */
function* linesBackward(path: string): Generator<RawLine> {
  const fd = openForReading(path);
  if (fd === undefined) return;
  let size: number;
  let regular: boolean;
  try {
    const st = fstatSync(fd);
    size = st.size;
    regular = st.isFile();
  } catch (err) {
    closeSync(fd);
    throw new JournalError(`no se pudo leer el journal ${path}: ${(err as Error).message}`);
  }
  if (!regular) {
    closeSync(fd);
    yield* [...linesForward(path)].reverse();
    return;
  }
  try {
    const buf = Buffer.allocUnsafe(CHUNK_BYTES);
    const line = new LineParts();
    let pos = size;
    while (pos > 0) {
      const length = Math.min(CHUNK_BYTES, pos);
      pos -= length;
      const n = readChunk(path, fd, buf, length, pos);
      if (n !== length) throw new JournalError(`el journal ${path} cambió mientras se leía`);
      let end = length;
      for (
        let nl = buf.lastIndexOf(0x0a, end - 1);
        nl !== -1;
        nl = buf.lastIndexOf(0x0a, end - 1)
      ) {
        line.add(buf.subarray(nl + 1, end), true);
        // The file's last newline ends its last line: there is no empty line after it.
        if (!(pos + nl + 1 === size && line.empty))
          yield { data: line.take(), start: pos + nl + 1 };
        else line.take();
        end = nl;
        if (end === 0) break;
      }
      line.add(buf.subarray(0, end), true);
    }
    if (!line.empty) yield { data: line.take(), start: 0 };
  } finally {
    closeSync(fd);
  }
}

type Parsed = { entry: JournalEntry; why?: undefined } | { entry?: undefined; why: string };

function parseLine(data: Buffer | undefined): Parsed | undefined {
  if (data === undefined) return { why: `más de ${maxLineBytes / 1024 / 1024} MiB en una línea` };
  // Blank lines (only spaces, tabs, CR) are not entries nor problems.
  let blank = true;
  for (const b of data)
    if (b !== 0x20 && b !== 0x09 && b !== 0x0d) {
      blank = false;
      break;
    }
  if (blank) return undefined;
  try {
    const value = JSON.parse(data.toString('utf8')) as unknown;
    const why = entryProblem(value);
    return why ? { why } : { entry: value as JournalEntry };
  } catch {
    return { why: 'no es JSON (¿una línea cortada?)' };
  }
}

/** The number of each line starting at the given offsets of a file (1 for offset 0). */
function lineNumbers(path: string, offsets: number[]): Map<number, number> {
  const wanted = [...new Set(offsets)].sort((a, b) => a - b);
  const out = new Map<number, number>();
  const fd = openForReading(path);
  if (fd === undefined) return out;
  try {
    const buf = Buffer.allocUnsafe(CHUNK_BYTES);
    let offset = 0;
    let line = 1;
    let i = 0;
    while (i < wanted.length) {
      const n = readChunk(path, fd, buf, CHUNK_BYTES, offset);
      if (n === 0) break;
      // Each wanted offset in this chunk gets the count of newlines before it.
      let from = 0;
      while (i < wanted.length && wanted[i]! < offset + n) {
        const to = wanted[i]! - offset;
        for (let nl = buf.indexOf(0x0a, from); nl !== -1 && nl < to; nl = buf.indexOf(0x0a, nl + 1))
          line++;
        from = to;
        out.set(wanted[i++]!, line);
      }
      for (let nl = buf.indexOf(0x0a, from); nl !== -1 && nl < n; nl = buf.indexOf(0x0a, nl + 1))
        line++;
      offset += n;
    }
  } finally {
    closeSync(fd);
  }
  return out;
}

/*
 * The index. Beside each journal file the listener keeps `<file>.idx`: an 8-byte
 * header, then one 32-byte record per line it wrote (four little-endian doubles: the
 * line's offset, its length with its newline, its request's id or -1, the 48 bits of
 * its id or -1). A record is written once its line is on disk, and never fsynced:
 * the journal stays the truth, the index only says where to look. A reader trusts an
 * index only when its records are in order inside the file and the first, the last
 * and each one it uses name the entry that is there; the bytes no record covers (a
 * line torn by a crash, lines another process appended, all past the last record) are
 * read line by line, and a file without a trusted index (lost, stale, a copy without
 * it) is read whole. A previous generation, which no longer changes, also has a look-up
 * file (journal-sorted.ts): its records sorted by id and by request, so that looking an
 * id or a request up there never reads its whole index.
 */

/** Where a journal file's index is: `<file>.idx`. */
export function indexPath(file: string): string {
  return `${file}.idx`;
}

const INDEX_MAGIC = 'svcidx1\n';
const HEADER_BYTES = INDEX_MAGIC.length;
const RECORD_BYTES = 32;

/** A request's id as a record keeps it (-1: none, or none a request can have). */
function cobroNumber(id: number | null): number {
  return id === null || id < 0 ? -1 : id;
}

/** The 48 random bits of an entry's id (`evt_` and 12 hex digits), -1 for any other id. */
function idNumber(id: string): number {
  return /^evt_[0-9a-f]{12}$/.test(id) ? Number.parseInt(id.slice(4), 16) : -1;
}

interface IndexRecord {
  offset: number;
  length: number;
  cobro: number;
  idn: number;
}

/** Record `i` of the index's numbers (four a record). */
function readRecord(f: Float64Array, i: number): IndexRecord {
  return { offset: f[4 * i]!, length: f[4 * i + 1]!, cobro: f[4 * i + 2]!, idn: f[4 * i + 3]! };
}

function writeRecord(buf: Buffer, i: number, r: IndexRecord): void {
  const at = i * RECORD_BYTES;
  buf.writeDoubleLE(r.offset, at);
  buf.writeDoubleLE(r.length, at + 8);
  buf.writeDoubleLE(r.cobro, at + 16);
  buf.writeDoubleLE(r.idn, at + 24);
}

/** The entry a record names, read from the file; undefined when another line is there. */
function entryAt(fd: number, r: IndexRecord): JournalEntry | undefined {
  if (r.length > maxLineBytes + 1) return undefined;
  // The byte before the line too: a line starts the file or follows a newline.
  const before = r.offset > 0 ? 1 : 0;
  const buf = Buffer.allocUnsafe(r.length + before);
  let got: number;
  try {
    got = readSync(fd, buf, 0, buf.length, r.offset - before);
  } catch {
    return undefined;
  }
  if (got !== buf.length || (before === 1 && buf[0] !== 0x0a) || buf[buf.length - 1] !== 0x0a)
    return undefined;
  const e = parseLine(buf.subarray(before, buf.length - 1))?.entry;
  return e && cobroNumber(e.cobro_id) === r.cobro && idNumber(e.id) === r.idn ? e : undefined;
}

/** A file's index as read: its records' numbers (four a record), and where the last one ends. */
interface Index {
  f: Float64Array;
  records: number;
  end: number;
}

/**
 * The numbers of a file's index (four a record, a record cut short by a crash left
 * out), read into `scratch` when it is large enough; undefined when it is not an index.
 */
function readIndex(file: string, scratch?: Float64Array): Float64Array | undefined {
  let fd: number;
  try {
    fd = openSync(indexPath(file), 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    const head = Buffer.alloc(HEADER_BYTES);
    if (readSync(fd, head, 0, HEADER_BYTES, 0) !== HEADER_BYTES) return undefined;
    if (head.toString('latin1') !== INDEX_MAGIC) return undefined;
    const records = Math.floor((size - HEADER_BYTES) / RECORD_BYTES);
    const f =
      scratch && scratch.length >= records * 4
        ? scratch.subarray(0, records * 4)
        : new Float64Array(records * 4);
    const bytes = new Uint8Array(f.buffer, f.byteOffset, records * RECORD_BYTES);
    for (let at = 0; at < bytes.length;) {
      const n = readSync(fd, bytes, at, bytes.length - at, HEADER_BYTES + at);
      if (n === 0) return undefined;
      at += n;
    }
    if (!LITTLE_ENDIAN) {
      const view = new DataView(f.buffer, f.byteOffset, bytes.length);
      for (let i = 0; i < f.length; i++) f[i] = view.getFloat64(8 * i, true);
    }
    return f;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * The index's numbers `f` when they can be trusted for the open file `fd` of `size`
 * bytes; `gaps` gets the stretches between records (lines without one).
 */
function trusted(
  f: Float64Array | undefined,
  fd: number,
  size: number,
  gaps?: { from: number; to: number }[],
): Index | undefined {
  if (!f) return undefined;
  const records = f.length / 4;
  let end = 0;
  for (let i = 0; i < f.length; i += 4) {
    const offset = f[i]!;
    const length = f[i + 1]!;
    if (
      !(Number.isSafeInteger(offset) && Number.isSafeInteger(length) && offset >= end && length > 0)
    )
      return undefined;
    if (offset > end) gaps?.push({ from: end, to: offset });
    end = offset + length;
  }
  if (end > size) return undefined;
  if (records > 0 && !(entryAt(fd, readRecord(f, 0)) && entryAt(fd, readRecord(f, records - 1))))
    return undefined;
  return { f, records, end };
}

const LITTLE_ENDIAN = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;

/** The index the listener appends to, beside the file it writes. */
class IndexWriter {
  private constructor(
    private fh: FileHandle | undefined,
    /** The file's size once the last lines counted were written. */
    private end: number,
  ) {}

  /**
   * The index of `file` (`size` bytes, open for appending): the one there when it can
   * be trusted, else a new one; the entries past its last record are indexed now (a
   * lost index is built again, a crash between a write and its records made good).
   * An index that cannot be written is no index: readers read the file.
   */
  static async open(file: string, size: number): Promise<IndexWriter> {
    try {
      const fd = openSync(file, 'r');
      const found: IndexRecord[] = [];
      let index: Index | undefined;
      try {
        if (!fstatSync(fd).isFile()) return new IndexWriter(undefined, size);
        index = trusted(readIndex(file), fd, size);
        for (const raw of linesBetween(file, fd, index?.end ?? 0, size)) {
          const e = raw.end === undefined ? undefined : parseLine(raw.data)?.entry;
          if (e)
            found.push({
              offset: raw.start,
              length: raw.end! - raw.start,
              cobro: cobroNumber(e.cobro_id),
              idn: idNumber(e.id),
            });
        }
      } finally {
        closeSync(fd);
      }
      const fh = await openFile(indexPath(file), 'a', 0o600);
      try {
        await fh.truncate(index ? HEADER_BYTES + index.records * RECORD_BYTES : 0);
        const data = Buffer.allocUnsafe(found.length * RECORD_BYTES);
        found.forEach((r, i) => writeRecord(data, i, r));
        await fh.appendFile(index ? data : Buffer.concat([Buffer.from(INDEX_MAGIC), data]));
      } catch (err) {
        await fh.close();
        throw err;
      }
      return new IndexWriter(fh, size);
    } catch {
      return new IndexWriter(undefined, size);
    }
  }

  /**
   * Records for a batch just written (`prefix` bytes before its first line), when
   * nothing else was appended since the last one: otherwise those bytes are left
   * without records, and readers read them.
   */
  async wrote(
    journal: FileHandle,
    batch: readonly { bytes: number; cobro: number; idn: number }[],
    prefix: number,
    written: number,
  ): Promise<void> {
    if (!this.fh) return;
    try {
      const size = (await journal.stat()).size;
      if (size === this.end + written) {
        const data = Buffer.allocUnsafe(batch.length * RECORD_BYTES);
        let at = this.end + prefix;
        batch.forEach((p, i) => {
          writeRecord(data, i, { offset: at, length: p.bytes, cobro: p.cobro, idn: p.idn });
          at += p.bytes;
        });
        await this.fh.appendFile(data);
      }
      this.end = size;
    } catch {
      // A record half written would shift every later one: no more records.
      await this.close();
    }
  }

  /** A new index for the new file `file` starts after a rotation. */
  async restart(file: string): Promise<IndexWriter> {
    await this.close();
    try {
      const fh = await openFile(indexPath(file), 'w', 0o600);
      await fh.appendFile(INDEX_MAGIC).catch(async (err: unknown) => {
        await fh.close();
        throw err;
      });
      return new IndexWriter(fh, 0);
    } catch {
      return new IndexWriter(undefined, 0);
    }
  }

  async close(): Promise<void> {
    const fh = this.fh;
    this.fh = undefined;
    await fh?.close().catch(() => undefined);
  }
}

/** Writes a rotated generation's look-up file from its index, when the index can be trusted. */
function sortGeneration(file: string): void {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return;
  }
  try {
    const st = fstatSync(fd);
    const index = st.isFile() ? trusted(readIndex(file), fd, st.size) : undefined;
    if (index) writeSorted(file, index.f, st.size);
  } catch {
    // None: readers build it.
  } finally {
    closeSync(fd);
  }
}

async function renameIfThere(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** Two streams of entries as one, by arrival time. */
function* byArrival(
  a: Iterator<JournalEntry>,
  b: Iterator<JournalEntry>,
  order: 'oldest' | 'newest',
): Generator<JournalEntry> {
  // Where both arrived at the same time, the verified event's entry goes first (oldest first).
  const bFirst =
    order === 'oldest'
      ? (x: JournalEntry, y: JournalEntry) => y.received_at < x.received_at
      : (x: JournalEntry, y: JournalEntry) => y.received_at >= x.received_at;
  let x = a.next();
  let y = b.next();
  while (!x.done && !y.done) {
    if (bFirst(x.value, y.value)) {
      yield y.value;
      y = b.next();
    } else {
      yield x.value;
      x = a.next();
    }
  }
  for (; !x.done; x = a.next()) yield x.value;
  for (; !y.done; y = b.next()) yield y.value;
}

/**
 * A reading of the journal (both generations and the rejected requests) as a stream
 * of entries, oldest or newest first, never the whole file in memory: lines are read
 * a chunk at a time and each is parsed alone. Lines that are not entries are counted
 * and the first MAX_PROBLEMS kept; `report()` names their file and line.
 * Errors reading a file are JournalError.
 */
export class JournalReader {
  /** Lines that were not entries, among those read so far. */
  skipped = 0;
  private found: { file: string; start: number; line?: number; why: string }[] = [];
  /** Where each file's index is read (one after the other): allocated once for them all. */
  private scratch: Float64Array | undefined;
  /** The index a look-up read last (in `scratch`). */
  private lastIndex: { file: string; f: Float64Array } | undefined;

  constructor(readonly path: string) {}

  private *entries(
    file: string,
    lines: Generator<RawLine>,
    numbered: boolean,
  ): Generator<JournalEntry> {
    let n = 0;
    let kept = 0;
    for (const raw of lines) {
      n++;
      const parsed = parseLine(raw.data);
      if (!parsed) continue;
      if (parsed.entry) {
        yield parsed.entry;
        continue;
      }
      this.skipped++;
      // Up to MAX_PROBLEMS of each file: the files are read side by side (merged by
      // arrival), and the ones named are those of the oldest file first.
      if ((kept += 1) <= MAX_PROBLEMS)
        this.found.push({
          file,
          start: raw.start,
          line: numbered ? n : undefined,
          why: parsed.why,
        });
    }
  }

  /** The verified journal's entries (previous generations first), without the rejected requests. */
  *events(order: 'oldest' | 'newest' = 'oldest'): Generator<JournalEntry> {
    yield* this.files([...generationPaths(this.path), this.path], order);
  }

  /** The requests the listener rejected (a file of their own). */
  *rejected(order: 'oldest' | 'newest' = 'oldest'): Generator<JournalEntry> {
    const other = rejectedPath(this.path);
    yield* this.files([...generationPaths(other), other], order);
  }

  private *files(files: string[], order: 'oldest' | 'newest'): Generator<JournalEntry> {
    if (order === 'oldest') for (const f of files) yield* this.entries(f, linesForward(f), true);
    else for (const f of files.reverse()) yield* this.entries(f, linesBackward(f), false);
  }

  /** Every entry, the rejected requests merged in by arrival time. */
  *all(order: 'oldest' | 'newest' = 'oldest'): Generator<JournalEntry> {
    yield* byArrival(this.events(order), this.rejected(order), order);
  }

  /**
   * The entries about one request (`cobro_id`), verified and rejected, oldest first:
   * through each file's index where it can be trusted (only the lines it names and
   * those it does not cover are read), the whole file where not.
   */
  *about(cobroId: number): Generator<JournalEntry> {
    const other = rejectedPath(this.path);
    const of = (files: string[]) =>
      (function* (reader: JournalReader) {
        for (const f of files) yield* reader.fileAbout(f, cobroId);
      })(this);
    yield* byArrival(
      of([...generationPaths(this.path), this.path]),
      of([...generationPaths(other), other]),
      'oldest',
    );
  }

  private *fileAbout(file: string, cobroId: number): Generator<JournalEntry> {
    const got =
      cobroId >= 0 && Number.isSafeInteger(cobroId)
        ? this.picked(file, 2, cobroId, (e) => e.cobro_id === cobroId, false)
        : undefined;
    if (got === null) return;
    if (got) for (const g of got) yield g.entry;
    // No index to trust, or a record naming a line that is not there: the file is read.
    else
      for (const e of this.entries(file, linesForward(file), true))
        if (e.cobro_id === cobroId) yield e;
  }

  /**
   * lookUp through the files' indexes, newest file first: the record of the id's 48
   * bits, its line read at its offset and checked to hold that id, and every line no
   * record covers. Its replays are the entries after it about the same request (a
   * replay carries its original's body), read the same way. Undefined when the index
   * cannot answer: an id of another shape, a file without a trusted index, a record
   * naming a line that is not there, an id of another shape that may start with `id`.
   * Then nothing read here is counted, and the caller reads the journal back instead.
   */
  lookUpIndexed(id: string): Lookup | undefined {
    const idn = idNumber(id);
    if (idn < 0) return undefined;
    const events = [this.path, ...generationPaths(this.path).reverse()];
    const other = rejectedPath(this.path);
    const files = [...events, other, ...generationPaths(other).reverse()];
    this.lastIndex = undefined;
    const answer = (() => {
      for (let k = 0; k < files.length; k++) {
        const got = this.picked(files[k]!, 3, idn, (e) => e.id.startsWith(id), true);
        if (got === undefined) return undefined;
        const hit = got?.filter((g) => g.entry.id === id).pop();
        if (!hit) {
          if (got?.length) return undefined;
          continue;
        }
        // Replays are written after their original: in its file past it, and in newer files.
        const where = k < events.length ? events.slice(0, k + 1).reverse() : [...events].reverse();
        const cobro = cobroNumber(hit.entry.cobro_id);
        const replays: JournalEntry[] = [];
        // Each of these files was read above: its unreadable lines are counted once.
        const counted = { skipped: this.skipped, found: this.found.length };
        for (const file of where) {
          const more = this.picked(file, 2, cobro, (e) => e.replay_of === id, false);
          if (more === undefined) return undefined;
          for (const m of more ?? [])
            if (m.entry.replay_of === id && (file !== files[k] || m.at > hit.at))
              replays.push(m.entry);
        }
        this.skipped = counted.skipped;
        this.found.length = counted.found;
        return { entry: hit.entry, replays, matches: 1 };
      }
      return { entry: undefined, replays: [], matches: 0 };
    })();
    this.lastIndex = undefined;
    if (!answer) {
      this.skipped = 0;
      this.found = [];
    }
    return answer;
  }

  /**
   * The entries of one file a look-up needs, in file order with where their lines
   * start: those named by the records whose `field` (2: request, 3: id's number) is
   * `value`, and those of the lines no record covers that `keep` keeps. null: no such
   * file; undefined: no trusted index, a record naming a line that is not there, or
   * (`oddIds`) a record of an id of another shape, which only reading the line tells.
   */
  private picked(
    file: string,
    field: 2 | 3,
    value: number,
    keep: (e: JournalEntry) => boolean,
    oddIds: boolean,
  ): { at: number; entry: JournalEntry }[] | null | undefined {
    const fd = openForReading(file);
    if (fd === undefined) return null;
    try {
      // A previous generation is looked up in its look-up file (journal-sorted.ts).
      const rotated = file !== this.path && file !== rejectedPath(this.path);
      const sorted = rotated ? this.sorted(file, fd, field, value) : undefined;
      // The index before the file's size: records are written after their lines. The
      // file just read (the one the entry is in, read again for its replays) is not
      // read twice: records added since are lines it does not cover, and read so.
      const f = sorted
        ? undefined
        : this.lastIndex?.file === file
          ? this.lastIndex.f
          : readIndex(file, this.scratch);
      if (f && f.buffer !== this.scratch?.buffer) this.scratch = new Float64Array(f.buffer);
      if (!sorted) this.lastIndex = f && { file, f };
      let st;
      try {
        st = fstatSync(fd);
      } catch (err) {
        throw new JournalError(`no se pudo leer el journal ${file}: ${(err as Error).message}`);
      }
      const gaps = sorted ? sorted.gaps : [];
      const index = sorted ?? (st.isFile() ? trusted(f, fd, st.size, gaps) : undefined);
      if (!index) return undefined;
      // Read whole for want of one: the look-up file is built from it.
      if (rotated && !sorted) writeSorted(file, index.f, st.size);
      if (oddIds && sorted?.odd) return undefined;
      const rec = index.f;
      // Typed arrays are searched natively: a million records in a few milliseconds.
      if (oddIds)
        for (let i = rec.indexOf(-1); i !== -1; i = rec.indexOf(-1, i + 1))
          if (i % 4 === 3) return undefined;
      const out: { at: number; entry: JournalEntry }[] = [];
      for (let i = rec.indexOf(value); i !== -1; i = rec.indexOf(value, i + 1)) {
        if (i % 4 !== field) continue;
        const entry = entryAt(fd, readRecord(rec, (i - field) / 4));
        if (!entry) return undefined;
        if (keep(entry)) out.push({ at: rec[i - field]!, entry });
      }
      if (st.size > index.end) gaps.push({ from: index.end, to: st.size });
      for (const g of gaps) {
        let at = 0;
        const lines = (function* () {
          for (const raw of linesBetween(file, fd, g.from, g.to)) {
            at = raw.start;
            yield raw;
          }
        })();
        for (const entry of this.entries(file, lines, false))
          if (keep(entry)) out.push({ at, entry });
      }
      return out.sort((a, b) => a.at - b.at);
    } finally {
      closeSync(fd);
    }
  }

  /** A generation's look-up file's answer, when the index it was made from names the file's lines. */
  private sorted(file: string, fd: number, field: 2 | 3, value: number): SortedAnswer | undefined {
    const s = lookUpSorted(file, fd, field, value);
    return s && (!s.first || (entryAt(fd, s.first) && entryAt(fd, s.last!))) ? s : undefined;
  }

  /** The lines skipped so far, each named by file and line (counted only for those named). */
  problems(): JournalProblem[] {
    const byFile = new Map<string, number[]>();
    for (const p of this.found)
      if (p.line === undefined) byFile.set(p.file, [...(byFile.get(p.file) ?? []), p.start]);
    const other = rejectedPath(this.path);
    const files = [...generationPaths(this.path), this.path, ...generationPaths(other), other];
    const order = (file: string) => files.indexOf(file);
    const numbers = new Map<string, Map<number, number>>();
    for (const [file, offsets] of byFile) numbers.set(file, lineNumbers(file, offsets));
    return this.found
      .map((p) => ({
        file: p.file,
        line: p.line ?? numbers.get(p.file)?.get(p.start) ?? 0,
        why: p.why,
      }))
      .sort((p, q) => order(p.file) - order(q.file) || p.line - q.line)
      .slice(0, MAX_PROBLEMS);
  }
}

/**
 * Reads the whole journal, its previous generation first, with the rejected requests
 * (their own file) merged in by arrival time; a missing file is an empty journal.
 * `keep` chooses the entries kept (every one by default): the rest are read and let go.
 */
export function readJournal(
  path: string,
  keep: (e: JournalEntry) => boolean = () => true,
): JournalRead {
  const reader = new JournalReader(path);
  const entries: JournalEntry[] = [];
  for (const e of reader.all()) if (keep(e)) entries.push(e);
  return { entries, skipped: reader.skipped, problems: reader.problems() };
}

/** The entries about one request, oldest first, with the rejected requests about it (JournalReader.about). */
export function readJournalAbout(path: string, cobroId: number): JournalRead {
  const reader = new JournalReader(path);
  const entries = [...reader.about(cobroId)];
  return { entries, skipped: reader.skipped, problems: reader.problems() };
}

export interface Lookup {
  /** The entry with that id, or the one whose id starts with it. */
  entry: JournalEntry | undefined;
  /** Its replays, oldest first. */
  replays: JournalEntry[];
  /** How many entries' ids start with the text (when none is the id itself). */
  matches: number;
}

/**
 * The entry `id` names and its replays: through the journal's index where it can answer
 * (JournalReader.lookUpIndexed), else read from the newest entry back: a replay is
 * written after the entry it replays, so by the time the entry is found every replay
 * of it has been seen, and the reading stops there (an id written whole). A start of
 * an id reads everything, to be sure it names only one.
 */
export function lookUp(reader: JournalReader, id: string): Lookup {
  const indexed = reader.lookUpIndexed(id);
  if (indexed) return indexed;
  const replays = new Map<string, JournalEntry[]>();
  let first: JournalEntry | undefined;
  let matches = 0;
  const found = (entry: JournalEntry): Lookup => ({
    entry,
    replays: (replays.get(entry.id) ?? []).reverse(),
    matches: 1,
  });
  for (const e of reader.events('newest')) {
    if (e.id === id) return found(e);
    if (e.id.startsWith(id)) {
      matches++;
      first ??= e;
    }
    if (e.replay_of !== undefined && e.replay_of.startsWith(id)) {
      const list = replays.get(e.replay_of);
      if (list) list.push(e);
      else replays.set(e.replay_of, [e]);
    }
  }
  for (const e of reader.rejected('newest')) {
    if (e.id === id) return found(e);
    if (e.id.startsWith(id)) {
      matches++;
      first ??= e;
    }
  }
  if (matches === 1 && first) return found(first);
  return { entry: undefined, replays: [], matches };
}
