// The journal of received notifications: one JSON object per line, appended and
// fsynced, so `svc webhook eventos` and `svc webhook replay` see every event the
// listener received, what it did with it and what the target answered. Appends are
// group-committed: lines queued while a write+fsync is under way go out together
// in the next one, and each append resolves only once its line is on disk.
// The journal never holds secrets: only Content-Type and X-Svc-* headers are kept
// (never the -H extras, which may carry the app's own credentials). It does not grow
// without end on a laptop that listens for weeks: past JOURNAL_MAX_BYTES the file
// becomes `<file>.1` (replacing the previous one) and a new one starts; readers read
// both, oldest first.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { open, rename, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { decodeUtf8 } from './events.js';

export const JOURNAL_FILE = 'webhooks.jsonl';
/** Size at which the journal is rotated (two generations kept: at most about twice this on disk). */
export const JOURNAL_MAX_BYTES = 64 * 1024 * 1024;

/** The previous generation of a journal. */
export function rotatedPath(path: string): string {
  return `${path}.1`;
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
}

/** `<data dir>/webhooks.jsonl` (SVC_DATA_DIR, XDG_DATA_HOME or ~/.local/share/svc). */
export async function defaultJournalPath(env: NodeJS.ProcessEnv): Promise<string> {
  const { dataDir } = await import('../config/store.js');
  return join(dataDir(env), JOURNAL_FILE);
}

/** Short, unique, typeable ids: `evt_` and 12 hex digits. */
export function newEntryId(): string {
  return `evt_${randomBytes(6).toString('hex')}`;
}

/** The headers worth keeping: Content-Type and X-Svc-*; nothing else (no credentials). */
export function keptHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    if (value === undefined || !(key === 'content-type' || key.startsWith('x-svc-'))) continue;
    kept[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return kept;
}

/** The body as stored: text when it is valid UTF-8, base64 otherwise. */
export function encodeBody(body: Uint8Array): { body: string; body_encoding: 'utf8' | 'base64'; bytes: number } {
  const text = decodeUtf8(body);
  return text !== undefined
    ? { body: text, body_encoding: 'utf8', bytes: body.byteLength }
    : { body: Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('base64'), body_encoding: 'base64', bytes: body.byteLength };
}

/** The exact bytes that were received. */
export function entryBody(entry: Pick<JournalEntry, 'body' | 'body_encoding'>): Buffer {
  return Buffer.from(entry.body, entry.body_encoding === 'base64' ? 'base64' : 'utf8');
}

export class JournalError extends Error {
  override name = 'JournalError';
}

export class Journal {
  private pending: { line: string; resolve: () => void; reject: (err: unknown) => void }[] = [];
  private flushing: Promise<void> | undefined;
  private closed = false;

  private constructor(
    readonly path: string,
    private fh: FileHandle,
    private size: number,
    private readonly maxBytes: number,
  ) {}

  /** Opens (creates) the journal for appending; folder 0700, file 0600. */
  static async open(path: string, options: { maxBytes?: number } = {}): Promise<Journal> {
    try {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      const fh = await open(path, 'a', 0o600);
      return new Journal(path, fh, (await fh.stat()).size, options.maxBytes ?? JOURNAL_MAX_BYTES);
    } catch (err) {
      throw new JournalError(`no se pudo abrir el journal ${path}: ${(err as Error).message}`);
    }
  }

  /** Resolves once the entry is written and fsynced. */
  append(entry: JournalEntry): Promise<void> {
    if (this.closed) return Promise.reject(new JournalError('el journal está cerrado'));
    return new Promise((resolve, reject) => {
      this.pending.push({ line: `${JSON.stringify(entry)}\n`, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  private async flush(): Promise<void> {
    while (this.pending.length) {
      const batch = this.pending;
      this.pending = [];
      try {
        const text = batch.map((p) => p.line).join('');
        await this.fh.write(text);
        await this.fh.datasync();
        this.size += Buffer.byteLength(text);
        for (const p of batch) p.resolve();
        if (this.size >= this.maxBytes) await this.rotate();
      } catch (err) {
        const failure = new JournalError(`no se pudo escribir el journal ${this.path}: ${(err as Error).message}`);
        for (const p of batch) p.reject(failure);
      }
    }
    this.flushing = undefined;
  }

  /** The full file becomes the previous generation; appends go on in a new one. */
  private async rotate(): Promise<void> {
    try {
      await rename(this.path, rotatedPath(this.path));
      const fh = await open(this.path, 'a', 0o600);
      await this.fh.close();
      this.fh = fh;
      this.size = 0;
    } catch {
      // Could not rotate (a read-only folder, say): keep appending to the same file.
    }
  }

  /** Waits for queued appends, then closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.flushing) await this.flushing;
    await this.fh.close();
  }
}

export interface JournalRead {
  entries: JournalEntry[];
  /** Lines that are not entries (a line cut by a crash, a hand edit). */
  skipped: number;
}

/** Reads the whole journal, its previous generation first; a missing file is an empty journal. */
export function readJournal(path: string): JournalRead {
  const read: JournalRead = { entries: [], skipped: 0 };
  for (const file of [rotatedPath(path), path]) readInto(file, read);
  return read;
}

function readInto(path: string, read: JournalRead): void {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new JournalError(`no se pudo leer el journal ${path}: ${(err as Error).message}`);
  }
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value = JSON.parse(line) as Partial<JournalEntry>;
      if (typeof value?.id === 'string' && typeof value.body === 'string' && typeof value.received_at === 'string') {
        read.entries.push(value as JournalEntry);
      } else {
        read.skipped++;
      }
    } catch {
      read.skipped++;
    }
  }
}
