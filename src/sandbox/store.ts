// The sandbox's state: in memory, and with a data file an append-only JSONL journal.
// Every change is one line (all the records it touches, as upserts) written and
// fsynced before the change is applied in memory and answered, so a write costs the
// same with 10 or 10,000 stored requests and a `kill -9` loses at most the change
// that was never answered. On start the journal is replayed: a torn last line (no
// newline: the write was cut) is dropped; any other bad line stops the start naming
// the file and line, and the file is left untouched.
import { closeSync, existsSync, fdatasyncSync, fstatSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { EstadoCobro, EstadoTransaccion, Evento, Medio } from '../api/enums.js';
import { SandboxStartError } from './errors.js';
import { lockDataFile, type DataLock } from './lock.js';

export interface CobroWire {
  id: number;
  codigo: string;
  concepto: string;
  monto: string;
  monto_cobrado: string;
  estado: EstadoCobro;
  url: string;
  cvu: string | null;
  qr: string | null;
  referencia: string | null;
  medios: { tarjeta: boolean; qr: boolean; transferencia: boolean };
  vencimiento: string | null;
  success_url: string | null;
  error_url: string | null;
  created_at: string;
  updated_at: string;
}

export interface TransaccionWire {
  id: number;
  cobro_id: number;
  medio: Medio;
  monto: string;
  te_cobramos: string;
  te_queda: string;
  estado: EstadoTransaccion;
  codigo: string;
  fecha: string;
  acreditacion: string;
}

export interface DevolucionWire {
  id: number;
  cobro_id: number;
  monto: string;
  tipo: 'parcial' | 'total';
  estado: EstadoCobro;
  created_at: string;
}

export interface LiquidacionWire {
  id: number;
  transaccion_id: number;
  cobro_id: number;
  bruto: string;
  te_cobramos: string;
  te_queda: string;
  fecha_operacion: string;
  fecha_estimada: string;
  estado: 'estimado';
}

/** A payment request: the wire object plus what only the sandbox knows. */
export interface CobroRec {
  /** Owning merchant. */
  m: number;
  d: CobroWire;
  /** When cvu/qr become visible (ms). */
  readyAt: number;
  vencMs: number | null;
  cvu: string;
  qr: string;
  /** Refunded so far, decimal string. */
  devuelto: string;
}
export interface TransaccionRec {
  m: number;
  d: TransaccionWire;
  devuelto: string;
}
export interface DevolucionRec {
  m: number;
  d: DevolucionWire;
}
export interface LiquidacionRec {
  m: number;
  d: LiquidacionWire;
}

export interface Merchant {
  id: number;
  email: string;
  nombre: string;
  puede_cobrar: boolean;
  apiKey: string;
  webhookUrl: string | null;
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
  | ['webhook', { m: number; url: string | null }];

export interface EventoBody {
  event: Evento;
  cobro_id: number;
  codigo: string;
  estado: EstadoCobro;
  monto: string;
  monto_cobrado: string;
  transaccion_id: number | null;
}

/** A notification produced by a change, for the merchant `m`. */
export interface Emitted {
  m: number;
  body: EventoBody;
}

/** An event as the store keeps it: numbered, stamped (ms), journaled with its change. */
export interface StoredEvent extends Emitted {
  n: number;
  t: number;
}

/** Records kept per merchant for GET /_sandbox/eventos and /_sandbox/entregas. */
export const RECENT_KEPT = 10_000;

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

/** The payer's page of a request, on the sandbox listening at `baseUrl`. */
export function payerUrl(baseUrl: string, codigo: string): string {
  return `${baseUrl}/pagar/${codigo}`;
}

class Table<R extends { m: number; d: { id: number } }> {
  readonly byId = new Map<number, R>();
  /** Ids per merchant, oldest first. */
  readonly ids = new Map<number, number[]>();
  maxId = 0;

  get(m: number, id: number): R | undefined {
    const r = this.byId.get(id);
    return r && r.m === m ? r : undefined;
  }
  put(r: R): void {
    if (!this.byId.has(r.d.id)) {
      let list = this.ids.get(r.m);
      if (!list) this.ids.set(r.m, (list = []));
      list.push(r.d.id);
    }
    this.byId.set(r.d.id, r);
    if (r.d.id > this.maxId) this.maxId = r.d.id;
  }
  /** The merchant's records, newest first. */
  *newestFirst(m: number): Generator<R> {
    const list = this.ids.get(m) ?? [];
    for (let i = list.length - 1; i >= 0; i--) yield this.byId.get(list[i]!)!;
  }
  get size(): number {
    return this.byId.size;
  }
}

export function newMeta(): Meta {
  const key = () => `svc_test_${randomBytes(16).toString('hex')}`;
  return {
    version: 1,
    merchants: [
      { id: 1, email: 'comercio@sandbox.test', nombre: 'Comercio de Prueba', puede_cobrar: true, apiKey: key(), webhookUrl: null },
      { id: 2, email: 'pendiente@sandbox.test', nombre: 'Comercio Sin Alta Completa', puede_cobrar: false, apiKey: key(), webhookUrl: null },
    ],
    webhookSecret: `whsec_${randomBytes(24).toString('hex')}`,
  };
}

export class Store {
  readonly cobros = new Table<CobroRec>();
  readonly transacciones = new Table<TransaccionRec>();
  readonly devoluciones = new Table<DevolucionRec>();
  readonly liquidaciones = new Table<LiquidacionRec>();
  readonly codigos = new Map<string, CobroRec>();
  /** Requests still waiting for the payer, for the expiry sweep. */
  readonly open = new Set<CobroRec>();
  private readonly byKey = new Map<string, Merchant>();
  private fd: number | null = null;
  private lock: DataLock | null = null;
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
   * Opens (or creates) the journal at `file` and replays it, holding `<file>.lock`
   * until close() (see lock.ts). Throws SandboxStartError for a file another sandbox
   * uses, one that is not a sandbox journal, or one with a corrupt line.
   */
  static open(file: string): Store {
    const lock = lockDataFile(file);
    try {
      const store = Store.replay(file);
      store.lock = lock;
      return store;
    } catch (err) {
      lock.release();
      throw err;
    }
  }

  private static replay(file: string): Store {
    let text = '';
    if (existsSync(file)) {
      try {
        text = readFileSync(file, 'utf8');
      } catch (err) {
        throw new SandboxStartError(`no se pudo leer ${file}: ${(err as Error).message}`);
      }
    }
    if (text === '') {
      const store = new Store(newMeta(), file);
      store.fd = openAppend(file);
      store.append(JSON.stringify({ meta: store.meta }) + '\n', true);
      return store;
    }
    const lines = text.split('\n');
    // The text after the last newline is a line whose write was cut (kill -9, power loss).
    const torn = lines.pop()!;
    let store: Store | undefined;
    for (let i = 0; i < lines.length; i++) {
      const where = `${file}, línea ${i + 1}`;
      let entry: unknown;
      try {
        entry = JSON.parse(lines[i]!);
      } catch {
        throw corrupt(where, 'no es JSON válido');
      }
      if (i === 0) {
        const meta = (entry as { meta?: Meta })?.meta;
        if (!isMeta(meta)) throw corrupt(where, 'no es la cabecera de un archivo de datos del sandbox');
        store = new Store(meta, file);
        continue;
      }
      const settled = (entry as { s?: unknown })?.s;
      if (settled !== undefined) {
        if (!Array.isArray(settled) || !settled.every((n) => Number.isSafeInteger(n))) throw corrupt(where, 'no es una entrega cerrada');
        for (const n of settled as number[]) store!.pendingEvents.delete(n);
        continue;
      }
      const ops = (entry as { c?: unknown })?.c;
      const events = (entry as { e?: unknown })?.e ?? [];
      if (!Array.isArray(ops) || !Array.isArray(events)) throw corrupt(where, 'no es un cambio del sandbox');
      for (const op of ops) {
        if (!store!.applyOp(op as Op)) throw corrupt(where, 'tiene un registro desconocido o incompleto');
      }
      for (const e of events) {
        if (!isStoredEvent(e)) throw corrupt(where, 'tiene un evento incompleto');
        store!.remember(e);
      }
    }
    if (!store) {
      // Only a torn header: nothing was ever answered from this file.
      if (torn !== '' && lines.length === 0) throw corrupt(`${file}, línea 1`, 'la cabecera está incompleta');
      throw corrupt(`${file}, línea 1`, 'falta la cabecera');
    }
    store.fd = openAppend(file);
    if (torn !== '') {
      // Drop the cut line so the next append starts on a line of its own.
      const size = fstatSync(store.fd).size;
      ftruncateSync(store.fd, size - Buffer.byteLength(torn));
      fdatasyncSync(store.fd);
    }
    return store;
  }

  /**
   * Points every payer link at the address the sandbox listens on now: a restart on
   * another port would otherwise hand out links to a port nobody answers. Not
   * journaled (the address is the running sandbox's, not the data's).
   */
  relink(baseUrl: string): void {
    for (const rec of this.cobros.byId.values()) rec.d.url = payerUrl(baseUrl, rec.d.codigo);
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
    const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
    for (;;) {
      const bytes = randomBytes(10);
      let code = '';
      for (const b of bytes) code += alphabet[b % alphabet.length];
      if (!this.codigos.has(code)) return code;
    }
  }

  /**
   * Makes a change durable (one journal line, fsynced), then applies it and hands
   * its events to the dispatcher. Nothing is applied when the write fails.
   */
  commit(ops: Op[], events: Emitted[] = []): void {
    const t = this.now();
    const stamped = events.map((e, i): StoredEvent => ({ ...e, n: this.lastEvent + 1 + i, t }));
    if (this.fd !== null) this.append(JSON.stringify(stamped.length ? { c: ops, e: stamped } : { c: ops }) + '\n', true);
    for (const op of ops) this.applyOp(op);
    for (const e of stamped) this.remember(e);
    if (stamped.length) this.onEvents(stamped);
  }

  /**
   * An event was delivered or given up: a restart does not send it again. Not
   * fsynced: should a crash lose this line, the event is sent once more (at least
   * once, as the service promises), never lost.
   */
  settle(n: number): void {
    if (!this.pendingEvents.delete(n) || this.fd === null) return;
    try {
      this.append(JSON.stringify({ s: [n] }) + '\n', false);
    } catch {
      // the same as a lost line: one more delivery after a restart
    }
  }

  /** Keeps an event: in the recent list, and pending when its merchant has somewhere to send it. */
  private remember(e: StoredEvent): void {
    if (e.n > this.lastEvent) this.lastEvent = e.n;
    if (this.merchant(e.m)?.webhookUrl) this.pendingEvents.set(e.n, e);
    this.recentEvents.push(e.m, e);
  }

  /** The merchant's latest events, oldest first. */
  eventsOf(m: number): StoredEvent[] {
    return this.recentEvents.of(m);
  }

  close(): void {
    if (this.fd !== null) {
      fdatasyncSync(this.fd);
      closeSync(this.fd);
      this.fd = null;
    }
    this.lock?.release();
    this.lock = null;
  }

  private append(line: string, sync: boolean): void {
    const buf = Buffer.from(line, 'utf8');
    let written = 0;
    while (written < buf.length) written += writeSync(this.fd!, buf, written, buf.length - written);
    if (sync) fdatasyncSync(this.fd!);
  }

  /** Applies one upsert; false when the record is not one the sandbox writes. */
  private applyOp(op: Op): boolean {
    if (!Array.isArray(op) || op.length !== 2 || typeof op[1] !== 'object' || op[1] === null) return false;
    const [kind, rec] = op;
    switch (kind) {
      case 'cobro': {
        if (!hasWire(rec) || typeof rec.d.codigo !== 'string') return false;
        const old = this.cobros.byId.get(rec.d.id);
        if (old) this.open.delete(old);
        this.cobros.put(rec);
        this.codigos.set(rec.d.codigo, rec);
        if (rec.d.estado === 'PENDIENTE' || rec.d.estado === 'EN_PROCESO') this.open.add(rec);
        return true;
      }
      case 'transaccion':
        if (!hasWire(rec)) return false;
        this.transacciones.put(rec);
        return true;
      case 'devolucion':
        if (!hasWire(rec)) return false;
        this.devoluciones.put(rec);
        return true;
      case 'liquidacion':
        if (!hasWire(rec)) return false;
        this.liquidaciones.put(rec);
        return true;
      case 'webhook': {
        const m = this.meta.merchants.find((x) => x.id === rec.m);
        if (!m) return false;
        m.webhookUrl = rec.url;
        return true;
      }
      default:
        return false;
    }
  }
}

function hasWire(rec: unknown): rec is { m: number; d: { id: number; codigo?: unknown } } {
  const r = rec as { m?: unknown; d?: { id?: unknown } };
  return typeof r.m === 'number' && typeof r.d === 'object' && r.d !== null && Number.isSafeInteger(r.d.id);
}

function isStoredEvent(e: unknown): e is StoredEvent {
  const x = e as StoredEvent;
  return (
    typeof x === 'object' && x !== null && Number.isSafeInteger(x.n) && Number.isSafeInteger(x.m) && typeof x.t === 'number' &&
    typeof x.body === 'object' && x.body !== null && typeof x.body.event === 'string' && Number.isSafeInteger(x.body.cobro_id)
  );
}

function isMeta(meta: unknown): meta is Meta {
  const m = meta as Meta | undefined;
  return (
    !!m &&
    m.version === 1 &&
    typeof m.webhookSecret === 'string' &&
    Array.isArray(m.merchants) &&
    m.merchants.length === 2 &&
    m.merchants.every((x) => typeof x.apiKey === 'string' && typeof x.id === 'number')
  );
}

function corrupt(where: string, why: string): SandboxStartError {
  return new SandboxStartError(
    `${where}: ${why}. El archivo de datos está dañado y no se modificó; movelo o restauralo, o usá otro --data.`,
  );
}

function openAppend(file: string): number {
  try {
    return openSync(file, 'a', 0o600);
  } catch (err) {
    throw new SandboxStartError(`no se pudo abrir ${file}: ${(err as Error).message}`);
  }
}
