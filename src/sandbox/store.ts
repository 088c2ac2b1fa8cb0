// The sandbox's state: in memory, and with a data file an append-only JSONL journal.
// Every change is one line (all the records it touches, as upserts) written and
// fsynced before the change is applied in memory and answered, so a write costs the
// same with 10 or 10,000 stored requests and a `kill -9` loses at most the change
// that was never answered. A write that fails (a full disk) is undone and answered
// 503; nothing is applied (data-file.ts). On start the journal is replayed line by
// line, each record checked (records.ts); a bad line stops the start naming the file
// and line, and the file is left untouched. Only a cut last line is trimmed, its
// bytes kept aside first. A file mostly made of superseded lines is compacted.
// A line is a header `{meta}`, a change `{c: [[kind, record]…], e: [event…]}`, the
// event numbers delivered since `{s: [seq…]}` or how far the clock was moved `{r: ms}`; records name their fields (`merchant`,
// `wire`, `seq`, `at`), older one-letter files are read too (records.ts).
import { randomBytes } from 'node:crypto';
import type { Seed } from '../api/schemas.js';
import { duplicateKey, duplicateKeyOf, MAX_NESTING, nestedTooDeep } from '../json-keys.js';
import { SandboxError, SandboxStartError } from './sandbox-error.js';
import {
  JournalWriteError,
  JournalWriter,
  LineTooLong,
  lineText,
  readLines,
  rewriteAtomically,
  setAsideTail,
  terminateLastLine,
  type Line,
} from './data-file.js';
import { nodeFiles, openAppend as openForAppend, type FileLayer } from '../durable.js';
import { lockDataFile, type DataLock } from './data-path.js';
import {
  checkEvent,
  checkMeta,
  checkOp,
  checkSettled,
  exactChange,
  upgradeEvent,
  upgradeOp,
  type StoreView,
} from './records.js';

// The sandbox keeps and says only what the seed shows (the strict reading of schemas.ts).
type Cobro = Seed['Cobro'];
type Devolucion = Seed['Devolucion'];
type EventoBody = Seed['EventoBody'];
type Liquidacion = Seed['Liquidacion'];
type Transaccion = Seed['Transaccion'];

// The wire objects are the client's schemas (src/api/schemas.ts), so what the
// sandbox writes and what the client accepts are one definition; type-only imports,
// erased at run time.
export type CobroWire = Cobro;
export type TransaccionWire = Transaccion;
export type DevolucionWire = Devolucion;
export type LiquidacionWire = Liquidacion;
export type { EventoBody };

/** A payment request: the wire object plus what only the sandbox knows. */
export interface CobroRec {
  /** Owning merchant. */
  merchant: number;
  wire: CobroWire;
  /** When cvu/qr become visible (ms). */
  readyAt: number;
  vencMs: number | null;
  cvu: string;
  qr: string;
  /** Refunded so far, decimal string. */
  devuelto: string;
}
export interface TransaccionRec {
  merchant: number;
  wire: TransaccionWire;
  devuelto: string;
}
export interface DevolucionRec {
  merchant: number;
  wire: DevolucionWire;
}
export interface LiquidacionRec {
  merchant: number;
  wire: LiquidacionWire;
}

export interface Merchant {
  id: number;
  email: string;
  nombre: string;
  puede_cobrar: boolean;
  apiKey: string;
  webhookUrl: string | null;
  /** The rehearsal merchant: its key is a live key, so every live-mode guard of svc can be tried here. */
  ensayo?: true;
}

export interface Meta {
  version: 1;
  merchants: Merchant[];
  webhookSecret: string;
}

export type Op =
  | ['cobro', CobroRec]
  | ['transaccion', TransaccionRec]
  | ['devolucion', DevolucionRec]
  | ['liquidacion', LiquidacionRec]
  | ['webhook', { merchant: number; url: string | null }];

/** A notification produced by a change, for the merchant `m`. */
export interface Emitted {
  merchant: number;
  body: EventoBody;
}

/** An event as the store keeps it: numbered, stamped (ms), journaled with its change. */
export interface StoredEvent extends Emitted {
  seq: number;
  at: number;
}

/** Records kept per merchant for GET /_sandbox/eventos and /_sandbox/entregas. */
export const RECENT_KEPT = 10_000;

/** Slots of the replay's shared texts (a power of two). */
const SHARED_SLOTS = 16_384;

/** The latest `max` values of each merchant, oldest first (trimmed in batches, not on every push). */
export class Latest<T> {
  private readonly lists = new Map<number, T[]>();
  constructor(private readonly max: number = RECENT_KEPT) {}

  push(m: number, value: T): void {
    let list = this.lists.get(m);
    if (!list) this.lists.set(m, (list = []));
    list.push(value);
    if (list.length >= 2 * this.max) list.splice(0, list.length - this.max);
  }

  of(m: number): T[] {
    return (this.lists.get(m) ?? []).slice(-this.max);
  }
}

/** The letters and digits of a public code (no I, O, 0 or 1, which are read out wrong). */
const CODIGO_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
/** A public code as the sandbox makes them: ten of CODIGO_ALPHABET. */
export const CODIGO_RE = /^[A-HJ-NP-Z2-9]{10}$/;

/** The payer's page of a request, on the sandbox listening at `baseUrl`. */
export function payerUrl(baseUrl: string, codigo: string): string {
  return `${baseUrl}/pagar/${codigo}`;
}

/** Ids below this sit in an array (the sandbox numbers from 1 up); larger ones, from a hand-made file, in a Map. */
const DENSE_IDS = 1 << 26;

/**
 * Records by id: an array slot per id (8 bytes, where a Map entry costs several
 * times that: a year holds millions of records), a Map for ids past DENSE_IDS.
 * Keys come out in increasing order.
 */
export class IdMap<R> {
  private readonly rows: (R | undefined)[] = [];
  private readonly far = new Map<number, R>();
  private count = 0;

  get(id: number): R | undefined {
    return id >= 0 && id < DENSE_IDS ? this.rows[id] : this.far.get(id);
  }
  has(id: number): boolean {
    return this.get(id) !== undefined;
  }
  set(id: number, r: R): void {
    if (!this.has(id)) this.count++;
    if (Number.isSafeInteger(id) && id >= 0 && id < DENSE_IDS) {
      // Fill the gap first: the array stays packed, not a dictionary.
      while (this.rows.length < id) this.rows.push(undefined);
      this.rows[id] = r;
    } else this.far.set(id, r);
  }
  get size(): number {
    return this.count;
  }
  *keys(): Generator<number> {
    for (let i = 0; i < this.rows.length; i++) if (this.rows[i] !== undefined) yield i;
    yield* [...this.far.keys()].sort((a, b) => a - b);
  }
  *values(): Generator<R> {
    for (const id of this.keys()) yield this.get(id)!;
  }
}

class Table<R extends { merchant: number; wire: { id: number } }> {
  readonly byId = new IdMap<R>();
  /** Ids per merchant, oldest first. */
  readonly ids = new Map<number, number[]>();
  maxId = 0;

  get(m: number, id: number): R | undefined {
    const r = this.byId.get(id);
    return r && r.merchant === m ? r : undefined;
  }
  put(r: R): void {
    if (!this.byId.has(r.wire.id)) {
      let list = this.ids.get(r.merchant);
      if (!list) this.ids.set(r.merchant, (list = []));
      list.push(r.wire.id);
    }
    this.byId.set(r.wire.id, r);
    if (r.wire.id > this.maxId) this.maxId = r.wire.id;
  }
  /**
   * The merchant's records, newest first, from the first whose id is below `below`,
   * passing over `skip` more: a page's start, found at no cost (ids grow, oldest first).
   */
  *newestFirst(m: number, skip = 0, below = Infinity): Generator<R> {
    const list = this.ids.get(m) ?? [];
    let end = list.length;
    if (below !== Infinity) {
      let lo = 0;
      while (lo < end) {
        const mid = (lo + end) >>> 1;
        if (list[mid]! < below) lo = mid + 1;
        else end = mid;
      }
    }
    for (let i = end - 1 - skip; i >= 0; i--) yield this.byId.get(list[i]!)!;
  }
  get size(): number {
    return this.byId.size;
  }
}

/** Entries per sealed piece of a SearchText. */
const SEARCH_BLOCK = 4096;

/**
 * What `?q=` of GET /v1/cobros looks in, for one merchant: the code, concept and
 * referencia of each request, lower-cased, in compact text pieces of SEARCH_BLOCK
 * requests (about 45 bytes a request), so a search is String#indexOf jumping from
 * match to match over a few MB instead of a walk over a million objects, each
 * lower-cased again. Fields and requests are separated by U+0000 (a `q` holding one
 * is not looked up here). Ids in creation order; the searchable fields of a request
 * never change once made (a replayed file that changes them marks the text stale,
 * rebuilt on the next search).
 */
class SearchText {
  private readonly sealed: { text: string; starts: number[]; ids: number[] }[] = [];
  private parts: string[] = [];
  private starts: number[] = [];
  private ids: number[] = [];
  private length = 0;
  stale = false;

  static entry(w: { codigo: string; concepto: string; referencia: string | null }): string {
    return `${w.codigo.toLowerCase()}\0${w.concepto.toLowerCase()}\0${(w.referencia ?? '').toLowerCase()}\0`;
  }

  add(id: number, entry: string): void {
    this.parts.push(entry);
    this.starts.push(this.length);
    this.ids.push(id);
    this.length += entry.length;
    if (this.ids.length >= SEARCH_BLOCK) this.seal();
  }

  private seal(): void {
    if (!this.ids.length) return;
    this.sealed.push({ text: this.parts.join(''), starts: this.starts, ids: this.ids });
    this.parts = [];
    this.starts = [];
    this.ids = [];
    this.length = 0;
  }

  /** Ids whose code, concept or referencia holds `q` (lower-cased, no U+0000), newest first. */
  find(q: string): number[] {
    this.seal();
    const out: number[] = [];
    for (let b = this.sealed.length - 1; b >= 0; b--) {
      const { text, starts, ids } = this.sealed[b]!;
      const found: number[] = [];
      let at = text.indexOf(q);
      while (at !== -1) {
        // The request whose text holds position `at`: the last start at or before it.
        let lo = 0;
        let hi = starts.length - 1;
        while (lo < hi) {
          const mid = (lo + hi + 1) >> 1;
          if (starts[mid]! <= at) lo = mid;
          else hi = mid - 1;
        }
        found.push(ids[lo]!);
        // On to the next request: one match is enough.
        const next = lo + 1 < starts.length ? starts[lo + 1]! : text.length;
        at = text.indexOf(q, next);
      }
      for (let i = found.length - 1; i >= 0; i--) out.push(found[i]!);
    }
    return out;
  }
}

export function newMeta(): Meta {
  const key = () => `svc_test_${randomBytes(16).toString('hex')}`;
  return {
    version: 1,
    merchants: [
      {
        id: 1,
        email: 'comercio@sandbox.test',
        nombre: 'Comercio de Prueba',
        puede_cobrar: true,
        apiKey: key(),
        webhookUrl: null,
      },
      {
        id: 2,
        email: 'pendiente@sandbox.test',
        nombre: 'Comercio Sin Alta Completa',
        puede_cobrar: false,
        apiKey: key(),
        webhookUrl: null,
      },
      {
        id: 3,
        email: 'ensayo@sandbox.test',
        nombre: 'Comercio de Ensayo (modo live)',
        puede_cobrar: true,
        apiKey: `svc_live_${randomBytes(16).toString('hex')}`,
        webhookUrl: null,
        ensayo: true,
      },
    ],
    webhookSecret: `whsec_${randomBytes(24).toString('hex')}`,
  };
}

/** Default size past which a start compacts a data file that is mostly superseded lines. */
export const COMPACT_AT_BYTES = 64 * 1024 * 1024;
/** While running, a notice each time the file grows past another multiple of this. */
const GROWTH_NOTICE_BYTES = 256 * 1024 * 1024;
/**
 * Records (or events) per line in a compacted file: about 40 KB of requests. A line is
 * read as one string, and a string past 128 KiB is born in V8's old generation, where
 * only a full collection frees it: with 256 a line, a million requests' start left
 * 310 MB of such lines behind.
 */
const PER_LINE = 64;

export interface OpenOptions {
  /** File operations (tests inject failures); node:fs by default. */
  fs?: FileLayer;
  /** Notices for the person running the sandbox (trimmed tail, compaction, size); the CLI prints them on stderr. */
  onNotice?: (text: string) => void;
  /** Past this size a start compacts the file when more than half of it is superseded. */
  compactAtBytes?: number;
  /** What to tell the user when another sandbox holds the file. */
  busyHint?: string;
}

export interface Compacted {
  before: number;
  after: number;
}

export class Store {
  readonly cobros = new Table<CobroRec>();
  readonly transacciones = new Table<TransaccionRec>();
  readonly devoluciones = new Table<DevolucionRec>();
  readonly liquidaciones = new Table<LiquidacionRec>();
  readonly codigos = new Map<string, CobroRec>();
  /** What `?q=` looks in, per merchant (SearchText). */
  private readonly searchText = new Map<number, SearchText>();
  /** Requests still waiting for the payer, for the expiry sweep. */
  readonly open = new Set<CobroRec>();
  private readonly byKey = new Map<string, Merchant>();
  private writer: JournalWriter | null = null;
  private lock: DataLock | null = null;
  private fs: FileLayer = nodeFiles;
  private real: string | null = null;
  private onNotice: (text: string) => void = () => {};
  /**
   * Events to deliver that were neither delivered nor given up, by number: with a
   * data file they outlive the process, and a restart sends them again.
   */
  readonly pendingEvents = new Map<number, StoredEvent>();
  /** The latest events of each merchant, oldest first (see eventsOf). */
  private readonly recentEvents = new Latest<StoredEvent>();
  private lastEvent = 0;
  /** Called after a change is durable and applied. */
  onEvents: (events: StoredEvent[]) => void = () => {};
  /** The sandbox's clock (events are stamped with it). */
  now: () => number = Date.now;

  private constructor(
    readonly meta: Meta,
    readonly file: string | null,
  ) {
    for (const m of meta.merchants) this.byKey.set(m.apiKey, m);
  }

  /** An in-memory store with fresh keys. */
  static memory(meta: Meta = newMeta()): Store {
    return new Store(meta, null);
  }

  /**
   * Opens (or creates) the journal at `file` and replays it, holding `<real path>.lock`
   * until close() (see data-path.ts). Throws SandboxStartError for a file another sandbox
   * uses, one that is not a sandbox journal, or one with a bad line.
   */
  static open(file: string, options: OpenOptions = {}): Store {
    const lock = lockDataFile(file, options.busyHint);
    try {
      const store = Store.load(file, lock.real, options);
      store.lock = lock;
      return store;
    } catch (err) {
      lock.release();
      throw err;
    }
  }

  private static load(file: string, real: string, options: OpenOptions): Store {
    const fs = options.fs ?? nodeFiles;
    const notice = options.onNotice ?? (() => {});
    let fd: number | null = null;
    try {
      fd = fs.openSync(real, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new SandboxStartError(`no se pudo leer ${file}: ${(err as Error).message}`);
    }
    let store: Store | undefined;
    let torn: Line | null = null;
    let unterminated = false;
    let written = 0;
    try {
      if (fd !== null) {
        for (const line of readLinesOf(fs, fd, file)) {
          const where = () => `${file}, línea ${line.no}`;
          const text = lineText(line.bytes);
          let entry: unknown;
          try {
            if (text === null) throw new Error('not UTF-8');
            entry = JSON.parse(text);
          } catch {
            if (text !== null && nestedTooDeep(text) !== null)
              throw corrupt(where(), `anida más de ${MAX_NESTING} niveles de [ y {`);
            // A last line without its newline that is not JSON is a write that was cut.
            if (!line.terminated) {
              torn = line;
              break;
            }
            throw corrupt(
              where(),
              text === null ? 'no es texto UTF-8 válido' : 'no es JSON válido',
            );
          }
          // A change exactly as this sandbox writes it (nearly every line) skips the
          // schemas; its fields are known, so it nests no deeper than they do.
          const keys = store ? exactChange(entry) : -1;
          if (keys < 0 && nestedTooDeep(text!) !== null)
            throw corrupt(where(), `anida más de ${MAX_NESTING} niveles de [ y {`);
          // JSON.parse keeps the last of two equal keys: a record must say one thing.
          const twice = keys < 0 ? duplicateKey(text!, entry) : duplicateKeyOf(text!, keys);
          if (twice) throw corrupt(where(), `${twice.path} aparece dos veces en el mismo registro`);
          if (!store) {
            const meta = (entry as { meta?: unknown } | null)?.meta;
            const why = meta === undefined ? 'falta meta' : checkMeta(meta);
            if (why)
              throw corrupt(
                where(),
                `no es la cabecera de un archivo de datos del sandbox (${why})`,
              );
            store = new Store(meta as Meta, file);
          } else {
            written += store.replayEntry(entry, where, keys >= 0);
          }
          if (!line.terminated) unterminated = true;
        }
      }
    } finally {
      if (fd !== null) fs.closeSync(fd);
    }
    if (!store) {
      // Only a cut header: nothing was ever answered from this file.
      if (torn) throw corrupt(`${file}, línea 1`, 'la cabecera está incompleta');
      store = new Store(newMeta(), file);
      store.fs = fs;
      store.real = real;
      store.onNotice = notice;
      store.writer = new JournalWriter(fs, openAppend(fs, real, file), 0);
      try {
        store.writer.append(JSON.stringify({ meta: store.meta }) + '\n', true);
      } catch (err) {
        throw new SandboxStartError(`no se pudo escribir ${file}: ${(err as Error).message}`);
      }
      return store;
    }
    store.fs = fs;
    store.real = real;
    store.onNotice = notice;
    if (torn) {
      const bytes = torn.end - torn.start;
      let copy: string;
      try {
        copy = setAsideTail(fs, real, torn.start, new Date());
      } catch (err) {
        throw new SandboxStartError(
          `${file}: el final está cortado (${bytes} bytes desde el byte ${torn.start}) y no se pudo apartar antes de recortarlo (${(err as Error).message}); el archivo no se modificó`,
        );
      }
      notice(
        `${file}: el final estaba cortado (una escritura que no terminó): se descartaron ${bytes} bytes desde el byte ${torn.start} (línea ${torn.no}); quedan guardados en ${copy}`,
      );
    } else if (unterminated) {
      terminateLastLine(fs, real);
    }
    let size = fileSize(fs, real, file);
    const live =
      store.cobros.size +
      store.transacciones.size +
      store.devoluciones.size +
      store.liquidaciones.size +
      store.keptEvents().length;
    if (size > (options.compactAtBytes ?? COMPACT_AT_BYTES) && live * 2 < written) {
      try {
        const after = rewriteAtomically(fs, real, (out) => store.writeState(out));
        notice(
          `${file} compactado al iniciar: ${mb(size)} → ${mb(after)} (el estado actual, sin los cambios reemplazados)`,
        );
        size = after;
      } catch (err) {
        notice(`${file}: no se pudo compactar (${(err as Error).message}); sigue como estaba`);
      }
    }
    if (size >= GROWTH_NOTICE_BYTES) notice(`${file} ocupa ${mb(size)}`);
    store.seen = [];
    store.writer = new JournalWriter(fs, openAppend(fs, real, file), size);
    return store;
  }

  /** Applies one journal line after checking it; returns how many records, events or settlements it held. */
  private replayEntry(entry: unknown, where: () => string, shapeKnown: boolean): number {
    const view = this.view();
    const offset = (entry as { r?: unknown } | null)?.r;
    if (offset !== undefined) {
      // Forward, or back to the real time (0, `reloj reiniciar`): never to anything between.
      if (
        typeof offset !== 'number' ||
        !Number.isSafeInteger(offset) ||
        offset < 0 ||
        (offset !== 0 && offset < this.clockOffset)
      ) {
        throw corrupt(where(), 'el reloj del sandbox solo avanza o vuelve a la hora real');
      }
      this.clockOffset = offset;
      return 1;
    }
    const settled = (entry as { s?: unknown } | null)?.s;
    if (settled !== undefined) {
      const why = checkSettled(view, settled);
      if (why) throw corrupt(where(), why);
      for (const n of settled as number[]) this.pendingEvents.delete(n);
      return (settled as number[]).length;
    }
    const ops = (entry as { c?: unknown } | null)?.c;
    const events = (entry as { e?: unknown } | null)?.e ?? [];
    if (!Array.isArray(ops) || !Array.isArray(events))
      throw corrupt(where(), 'no es un cambio del sandbox');
    for (const written of ops) {
      const op = shapeKnown ? written : upgradeOp(written);
      const why = checkOp(view, op, shapeKnown);
      if (why) throw corrupt(where(), why);
      this.applyOp(this.shareText(op as Op));
    }
    for (const written of events) {
      const e = shapeKnown ? written : upgradeEvent(written);
      const why = checkEvent(view, e, shapeKnown);
      if (why) throw corrupt(where(), why);
      this.remember(e as StoredEvent);
    }
    return ops.length + events.length;
  }

  /** The medios objects replayed, one per combination (shareText). */
  private readonly medios: CobroWire['medios'][] = [];
  /**
   * Texts seen lately while replaying (dates, concepts), so equal ones are kept once: a
   * slot per cheap hash of a text's last characters, the latest text in it. Equal texts
   * near each other in the file (a request's versions and records) meet in their slot;
   * a Map of every text cost a hash of each and its upkeep (0.9 s of a 100k start).
   */
  private seen: (string | undefined)[] = new Array<string | undefined>(SHARED_SLOTS);
  private shared(text: string): string;
  private shared(text: string | null): string | null;
  private shared(text: string | null): string | null {
    if (text === null) return null;
    const n = text.length;
    let h = n;
    for (let i = n > 8 ? n - 8 : 0; i < n; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
    const slot = h & (SHARED_SLOTS - 1);
    const known = this.seen[slot];
    if (known === text) return known;
    this.seen[slot] = text;
    return text;
  }

  /**
   * A replayed record, its texts shared: a request's dates repeat in its transaction,
   * refund and settlement and in each of its versions, a merchant's concepts repeat,
   * and the transfer account and QR are the same text in the record and its wire.
   * JSON.parse makes each a string of its own; a year of records holds millions.
   */
  private shareText(op: Op): Op {
    const [kind, rec] = op;
    // One text for two equal ones: `b` when `a` equals it.
    const one = <T extends string | null>(a: T, b: T | undefined): T => (a === b ? b : a);
    switch (kind) {
      case 'cobro': {
        const w = rec.wire;
        w.concepto = this.shared(w.concepto);
        w.created_at = this.shared(w.created_at);
        w.updated_at = one(this.shared(w.updated_at), w.created_at);
        w.vencimiento = this.shared(w.vencimiento);
        w.monto_cobrado = one(w.monto_cobrado, w.monto);
        rec.devuelto = one(rec.devuelto, w.monto_cobrado);
        w.cvu = one(w.cvu, rec.cvu);
        w.qr = one(w.qr, rec.qr);
        // Eight combinations of three switches: one object each (nothing changes a
        // request's medios in place; a change makes a new wire).
        const m = w.medios;
        const key = (m.tarjeta ? 4 : 0) + (m.qr ? 2 : 0) + (m.transferencia ? 1 : 0);
        if (Object.keys(m).join() === 'tarjeta,qr,transferencia') w.medios = this.medios[key] ??= m;
        break;
      }
      case 'transaccion': {
        // Its request's amount and date, when they are the same (a request paid at once).
        const w = rec.wire;
        const c = this.cobros.byId.get(w.cobro_id)?.wire;
        w.monto = one(one(w.monto, c?.monto), c?.monto_cobrado);
        w.fecha = one(this.shared(w.fecha), c?.updated_at);
        w.acreditacion = one(this.shared(w.acreditacion), w.fecha);
        rec.devuelto = one(rec.devuelto, w.monto);
        break;
      }
      case 'devolucion': {
        const w = rec.wire;
        const c = this.cobros.byId.get(w.cobro_id)?.wire;
        w.created_at = one(this.shared(w.created_at), c?.updated_at);
        w.monto = one(w.monto, c?.monto_cobrado);
        break;
      }
      case 'liquidacion': {
        // A settlement repeats its transaction's amounts and date.
        const w = rec.wire;
        const t = this.transacciones.byId.get(w.transaccion_id)?.wire;
        w.bruto = one(w.bruto, t?.monto);
        w.te_cobramos = one(w.te_cobramos, t?.te_cobramos);
        w.te_queda = one(w.te_queda, t?.te_queda);
        w.fecha_operacion = one(this.shared(w.fecha_operacion), t?.fecha);
        w.fecha_estimada = this.shared(w.fecha_estimada);
        break;
      }
    }
    return op;
  }

  private cachedView: StoreView | null = null;
  private view(): StoreView {
    if (this.cachedView) return this.cachedView;
    // oxlint-disable-next-line typescript/no-this-alias -- the generator below reads the store it was made from
    const store = this;
    return (this.cachedView = {
      merchantIds: new Set(this.meta.merchants.map((m) => m.id)),
      cobros: this.cobros,
      transacciones: this.transacciones,
      devoluciones: this.devoluciones,
      liquidaciones: this.liquidaciones,
      codigos: this.codigos,
      get lastEvent() {
        return store.lastEvent;
      },
    });
  }

  /**
   * Runs `fill` with changes applied in memory only, then writes the whole state to the
   * data file at once (compact(): a new file, fsynced, renamed over the old one), so a
   * history of a million requests costs one write, not one fsync per change. A crash
   * before the rename leaves the file as it was. The events `fill` produces are
   * history: none is delivered. For an empty store only (the generator, generate.ts).
   */
  bulk(fill: () => void): void {
    const writer = this.writer;
    const before = this.lastEvent;
    this.writer = null;
    try {
      fill();
    } finally {
      this.writer = writer;
    }
    for (const n of [...this.pendingEvents.keys()]) if (n > before) this.pendingEvents.delete(n);
    if (this.writer) this.compact();
  }

  /**
   * Rewrites the data file as the current state only (atomically; see data-file.ts),
   * and goes on appending to the new file.
   */
  compact(): Compacted {
    if (!this.writer || !this.real) throw new Error('compact() needs a data file');
    const before = this.writer.bytes;
    this.writer.close();
    this.writer = null;
    try {
      const after = rewriteAtomically(this.fs, this.real, (out) => this.writeState(out));
      return { before, after };
    } finally {
      this.writer = new JournalWriter(
        this.fs,
        openAppend(this.fs, this.real, this.file!),
        fileSize(this.fs, this.real, this.file!),
      );
    }
  }

  /**
   * The current state as journal lines: the header (keys, secret, notification URLs),
   * every record by table in id order (the counters follow from the last ids), the
   * events still shown or owed, and which of them are settled.
   */
  private writeState(out: (text: string) => void): void {
    out(JSON.stringify({ meta: this.meta }) + '\n');
    if (this.clockOffset > 0) out(JSON.stringify({ r: this.clockOffset }) + '\n');
    const tables: [Op[0], Table<{ merchant: number; wire: { id: number } }>][] = [
      ['cobro', this.cobros],
      ['transaccion', this.transacciones],
      ['devolucion', this.devoluciones],
      ['liquidacion', this.liquidaciones],
    ];
    for (const [kind, table] of tables) {
      const ids = [...table.byId.keys()].sort((a, b) => a - b);
      for (let i = 0; i < ids.length; i += PER_LINE) {
        out(
          JSON.stringify({
            c: ids.slice(i, i + PER_LINE).map((id) => [kind, table.byId.get(id)]),
          }) + '\n',
        );
      }
    }
    const events = this.keptEvents();
    for (let i = 0; i < events.length; i += PER_LINE)
      out(JSON.stringify({ c: [], e: events.slice(i, i + PER_LINE) }) + '\n');
    const settled = events.filter((e) => !this.pendingEvents.has(e.seq)).map((e) => e.seq);
    for (let i = 0; i < settled.length; i += PER_LINE * 64)
      out(JSON.stringify({ s: settled.slice(i, i + PER_LINE * 64) }) + '\n');
  }

  /** The events a compacted file keeps: the recent ones of each merchant and every one still owed, by number. */
  private keptEvents(): StoredEvent[] {
    const byN = new Map<number, StoredEvent>();
    for (const m of this.meta.merchants)
      for (const e of this.recentEvents.of(m.id)) byN.set(e.seq, e);
    for (const e of this.pendingEvents.values()) byN.set(e.seq, e);
    return [...byN.values()].sort((a, b) => a.seq - b.seq);
  }

  /**
   * Points payer links at the address the sandbox listens on now: a restart on another
   * port would otherwise hand out links to a port nobody answers. Each request's link
   * is moved when it is first read (linked(), from model.refresh, which every read goes
   * through), not all at once: a year of requests would make a million new strings at
   * every start on another port. Not journaled (the address is the running sandbox's,
   * not the data's).
   */
  relink(baseUrl: string): void {
    this.linkBase = baseUrl;
  }
  private linkBase: string | null = null;

  /** The request, its `url` pointing at the running sandbox (moved in place, as relink says). */
  linked(rec: CobroRec): CobroRec {
    const base = this.linkBase;
    const { url, codigo } = rec.wire;
    if (
      base !== null &&
      !(
        url.length === base.length + 7 + codigo.length &&
        url.startsWith(base) &&
        url.startsWith('/pagar/', base.length) &&
        url.endsWith(codigo)
      )
    )
      rec.wire.url = payerUrl(base, codigo);
    return rec;
  }

  merchantByKey(key: string): Merchant | undefined {
    return this.byKey.get(key);
  }
  merchant(id: number): Merchant {
    return this.meta.merchants.find((m) => m.id === id)!;
  }
  get webhookSecret(): string {
    return this.meta.webhookSecret;
  }

  nextId(table: 'cobros' | 'transacciones' | 'devoluciones' | 'liquidaciones'): number {
    return this[table].maxId + 1;
  }

  /** A fresh public code, unique in the store. */
  newCodigo(): string {
    const alphabet = CODIGO_ALPHABET;
    for (;;) {
      // Random bytes drawn 4 KiB at a time: a year of history makes a million codes.
      if (this.pool.length - this.used < 10) {
        this.pool = randomBytes(4096);
        this.used = 0;
      }
      let code = '';
      for (let i = 0; i < 10; i++) code += alphabet[this.pool[this.used++]! % alphabet.length];
      if (!this.codigos.has(code)) return code;
    }
  }
  private pool = Buffer.alloc(0);
  private used = 0;

  /**
   * Makes a change durable (one journal line, fsynced), then applies it and hands
   * its events to the dispatcher. Nothing is applied when the write fails: the
   * caller gets a 503 (SandboxError) and the file is as it was.
   */
  commit(ops: Op[], events: Emitted[] = []): void {
    const t = this.now();
    const stamped = events.map((e, i): StoredEvent => ({
      ...e,
      seq: this.lastEvent + 1 + i,
      at: t,
    }));
    if (this.writer) {
      const before = this.writer.bytes;
      try {
        this.writer.append(
          JSON.stringify(stamped.length ? { c: ops, e: stamped } : { c: ops }) + '\n',
          true,
        );
      } catch (err) {
        if (err instanceof JournalWriteError) throw unavailable(err);
        throw err;
      }
      if (
        Math.floor(this.writer.bytes / GROWTH_NOTICE_BYTES) >
        Math.floor(before / GROWTH_NOTICE_BYTES)
      ) {
        this.onNotice(
          `${this.file} ya ocupa ${mb(this.writer.bytes)}; se compacta al reiniciar el sandbox (o con svc sandbox compactar, con el sandbox detenido)`,
        );
      }
    }
    for (const op of ops) this.applyOp(op);
    for (const e of stamped) this.remember(e);
    if (stamped.length) this.onEvents(stamped);
  }

  /**
   * An event was delivered or given up: a restart does not send it again. Not
   * fsynced: should a crash lose this line, the event is sent once more (at least
   * once, as the service promises), never lost.
   */
  /** How far the sandbox's clock was moved on, ms (kept in the data file: a restart keeps the date). */
  clockOffset = 0;

  /** Records a move of the clock (or its return to real time, 0), fsynced before it is applied (503 when it cannot be written). */
  setClockOffset(ms: number): void {
    if (this.writer) {
      try {
        this.writer.append(JSON.stringify({ r: ms }) + '\n', true);
      } catch (err) {
        if (err instanceof JournalWriteError) throw unavailable(err);
        throw err;
      }
    }
    this.clockOffset = ms;
  }

  settle(n: number): void {
    if (!this.pendingEvents.delete(n) || !this.writer) return;
    try {
      this.writer.append(JSON.stringify({ s: [n] }) + '\n', false);
    } catch {
      // undone by the writer: the same as a lost line, one more delivery after a restart
    }
  }

  /** Keeps an event: in the recent list, and pending when its merchant has somewhere to send it. */
  private remember(e: StoredEvent): void {
    if (e.seq > this.lastEvent) this.lastEvent = e.seq;
    if (this.merchant(e.merchant)?.webhookUrl) this.pendingEvents.set(e.seq, e);
    this.recentEvents.push(e.merchant, e);
  }

  /**
   * The merchant's requests whose code, concept or referencia holds `q` (already
   * lower-cased and trimmed), newest first; undefined for a `q` holding U+0000, which
   * the caller looks for the long way.
   */
  searchCobros(m: number, q: string): CobroRec[] | undefined {
    if (q.includes('\0')) return undefined;
    let text = this.searchText.get(m);
    if (text?.stale) {
      text = new SearchText();
      for (const id of this.cobros.ids.get(m) ?? [])
        text.add(id, SearchText.entry(this.cobros.byId.get(id)!.wire));
      this.searchText.set(m, text);
    }
    return (text?.find(q) ?? []).map((id) => this.cobros.byId.get(id)!);
  }

  /** The merchant's latest events, oldest first. */
  eventsOf(m: number): StoredEvent[] {
    return this.recentEvents.of(m);
  }

  close(): void {
    if (this.writer) {
      try {
        this.writer.close();
      } catch {
        // every answered change was fsynced when it was answered
      }
      this.writer = null;
    }
    this.lock?.release();
    this.lock = null;
  }

  /** Applies one upsert (checked by records.ts on replay; built by the handlers otherwise). */
  private applyOp(op: Op): void {
    const [kind, rec] = op;
    switch (kind) {
      case 'cobro': {
        const old = this.cobros.byId.get(rec.wire.id);
        if (old) this.open.delete(old);
        let text = this.searchText.get(rec.merchant);
        if (!text) this.searchText.set(rec.merchant, (text = new SearchText()));
        if (!old) text.add(rec.wire.id, SearchText.entry(rec.wire));
        else if (
          old.wire.codigo !== rec.wire.codigo ||
          old.wire.concepto !== rec.wire.concepto ||
          old.wire.referencia !== rec.wire.referencia
        )
          text.stale = true;
        this.cobros.put(rec);
        this.codigos.set(rec.wire.codigo, rec);
        if (rec.wire.estado === 'PENDIENTE' || rec.wire.estado === 'EN_PROCESO') this.open.add(rec);
        return;
      }
      case 'transaccion':
        this.transacciones.put(rec);
        return;
      case 'devolucion':
        this.devoluciones.put(rec);
        return;
      case 'liquidacion':
        this.liquidaciones.put(rec);
        return;
      case 'webhook': {
        const m = this.meta.merchants.find((x) => x.id === rec.merchant);
        if (m) m.webhookUrl = rec.url;
        return;
      }
    }
  }
}

/** The lines of the file; a line too long to be a change stops the start like any bad line. */
function* readLinesOf(fs: FileLayer, fd: number, file: string): Generator<Line> {
  try {
    yield* readLines(fs, fd);
  } catch (err) {
    if (err instanceof LineTooLong) throw corrupt(`${file}, línea ${err.no}`, err.message);
    throw new SandboxStartError(`no se pudo leer ${file}: ${(err as Error).message}`);
  }
}

function unavailable(err: JournalWriteError): SandboxError {
  return new SandboxError(
    503,
    'unavailable',
    `el sandbox no pudo escribir su archivo de datos (${err.message}); no se cambió nada. ${err.stuck ? 'No toma cambios hasta poder deshacer la escritura; liberá espacio en su disco y reintentá' : 'Liberá espacio en su disco y reintentá'}`,
  );
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function fileSize(fs: FileLayer, real: string, file: string): number {
  const fd = openAppend(fs, real, file);
  try {
    return fs.fstatSync(fd).size;
  } finally {
    fs.closeSync(fd);
  }
}

function corrupt(where: string, why: string): SandboxStartError {
  return new SandboxStartError(
    `${where}: ${why}. El archivo de datos está dañado y no se modificó; movelo o restauralo, o usá otro --data.`,
  );
}

function openAppend(fs: FileLayer, real: string, file: string): number {
  try {
    return openForAppend(real, fs);
  } catch (err) {
    throw new SandboxStartError(`no se pudo abrir ${file}: ${(err as Error).message}`);
  }
}
