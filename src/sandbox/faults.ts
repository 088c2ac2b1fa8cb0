// Fault injection for clients' tests (POST /_sandbox/fallas): the next N requests
// matching a method and path (or, with `every`, one in every so many of them: an
// intermittent failure) answer a given status/body (instead of being processed, or
// after: the change made and the answer an error), answer late, or have their
// connection cut before or after being processed. Control-plane routes never match.
import { CONTROL_CHARS } from '../domain/rules.js';
import { SandboxError } from './sandbox-error.js';

export type FaultAction = 'respond' | 'respond_after' | 'cut' | 'cut_after' | 'delay';

export interface Fault {
  id: number;
  method: string;
  path: string;
  count: number;
  action: FaultAction;
  status: number | null;
  body: unknown;
  headers: Record<string, string>;
  delay_ms: number | null;
  /** 1: every matching request fails; n: one in n does (the n-th, 2n-th…), the others pass untouched. */
  every: number;
}

/** The failures a developer names (`svc sandbox fallas agregar --tipo`, the dashboard). */
export const NAMED_FAULTS = [
  '500',
  '500-despues',
  '502-html',
  '503',
  '429',
  'lento',
  'cortar',
  'cortar-despues',
] as const;
export type NamedFault = (typeof NAMED_FAULTS)[number];

/** What a named failure is for the control plane (POST /_sandbox/fallas), written once. */
export function namedFault(
  name: NamedFault,
  delayMs: number,
): Partial<Pick<Fault, 'status' | 'body' | 'headers' | 'delay_ms'>> & { action: FaultAction } {
  switch (name) {
    case '500':
      return { action: 'respond', status: 500 };
    case '500-despues':
      // What a service may answer when something fails after it wrote: JSON, and no word of what was done.
      return { action: 'respond_after', status: 500 };
    case '502-html':
      // What a proxy in front of the service answers: HTML, not the service's JSON.
      return {
        action: 'respond',
        status: 502,
        body: '<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>',
      };
    case '503':
      return { action: 'respond', status: 503, headers: { 'Retry-After': '1' } };
    case '429':
      return { action: 'respond', status: 429, headers: { 'Retry-After': '1' } };
    case 'lento':
      return { action: 'delay', delay_ms: delayMs };
    case 'cortar':
      return { action: 'cut' };
    case 'cortar-despues':
      return { action: 'cut_after' };
  }
}

const ACTIONS: readonly FaultAction[] = ['respond', 'respond_after', 'cut', 'cut_after', 'delay'];
const MAX_DELAY_MS = 120_000;

export class Faults {
  private list: Fault[] = [];
  /** Matching requests seen by each fault with `every` > 1. */
  private seen = new Map<number, number>();
  private nextId = 1;

  /** Validates a POST /_sandbox/fallas body and adds the fault. */
  add(input: unknown): Fault {
    const bad = (message: string) => new SandboxError(400, 'bad_request', message);
    if (typeof input !== 'object' || input === null || Array.isArray(input))
      throw bad('body: debe ser un objeto JSON');
    const b = input as Record<string, unknown>;
    const method = b.method === undefined ? '*' : b.method;
    if (typeof method !== 'string' || !/^(\*|[A-Z]+)$/.test(method))
      throw bad('method: "GET", "POST" o "*"');
    if (typeof b.path !== 'string' || !b.path.startsWith('/'))
      throw bad('path: falta, una ruta como "/v1/cobros/1" o "/v1/cobros*"');
    if (b.path.startsWith('/_sandbox'))
      throw bad('path: las rutas de control (/_sandbox/…) no pueden fallar');
    if (CONTROL_CHARS.test(b.path))
      throw bad('path: no puede tener caracteres de control (C0, C1 ni controles bidireccionales)');
    const count = b.count === undefined ? 1 : b.count;
    if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 1 || count > 1_000_000)
      throw bad('count: un entero positivo');
    if (typeof b.action !== 'string' || !ACTIONS.includes(b.action as FaultAction))
      throw bad(`action: una de ${ACTIONS.join(', ')}`);
    const action = b.action as FaultAction;
    let status: number | null = null;
    if (b.status !== undefined) {
      if (
        typeof b.status !== 'number' ||
        !Number.isInteger(b.status) ||
        b.status < 100 ||
        b.status > 599
      )
        throw bad('status: un status HTTP entre 100 y 599');
      status = b.status;
    }
    const headers: Record<string, string> = {};
    if (b.headers !== undefined) {
      if (typeof b.headers !== 'object' || b.headers === null || Array.isArray(b.headers))
        throw bad('headers: un objeto de nombre: valor');
      for (const [k, v] of Object.entries(b.headers)) {
        // Printable ASCII only: a value Node cannot send would turn the injected answer into a 500.
        if (
          !/^[A-Za-z0-9-]{1,100}$/.test(k) ||
          (typeof v !== 'string' && typeof v !== 'number') ||
          !/^[\t\x20-\x7e]*$/.test(String(v))
        ) {
          throw bad(
            `headers: "${k.slice(0, 100).replace(/[^\x20-\x7e]/g, '?')}" no es un header válido (un nombre de letras, dígitos y "-", un valor de ASCII imprimible)`,
          );
        }
        headers[k] = String(v);
      }
    }
    let delay: number | null = null;
    if (action === 'delay' || b.delay_ms !== undefined) {
      if (
        typeof b.delay_ms !== 'number' ||
        !Number.isInteger(b.delay_ms) ||
        b.delay_ms < 0 ||
        b.delay_ms > MAX_DELAY_MS
      ) {
        throw bad(`delay_ms: milisegundos entre 0 y ${MAX_DELAY_MS}`);
      }
      delay = b.delay_ms;
    }
    const every = b.every === undefined ? 1 : b.every;
    if (typeof every !== 'number' || !Number.isSafeInteger(every) || every < 1 || every > 1000)
      throw bad('every: un entero de 1 a 1000 (falla uno de cada tantos pedidos que coinciden)');
    const fault: Fault = {
      id: this.nextId++,
      method,
      path: b.path,
      count,
      action,
      status,
      body: b.body ?? null,
      headers,
      delay_ms: delay,
      every,
    };
    this.list.push(fault);
    return fault;
  }

  /** The first fault matching the request, used once (removed when its count runs out). */
  take(method: string, path: string): Fault | undefined {
    if (this.list.length === 0) return undefined;
    const i = this.list.findIndex(
      (f) => (f.method === '*' || f.method === method) && matches(f.path, path),
    );
    if (i < 0) return undefined;
    const f = this.list[i]!;
    if (f.every > 1) {
      const seen = (this.seen.get(f.id) ?? 0) + 1;
      this.seen.set(f.id, seen);
      if (seen % f.every !== 0) return undefined;
    }
    f.count--;
    if (f.count <= 0) this.list.splice(i, 1);
    return f;
  }

  all(): Fault[] {
    return this.list;
  }

  clear(): number {
    const n = this.list.length;
    this.list = [];
    return n;
  }
}

function matches(pattern: string, path: string): boolean {
  return pattern.endsWith('*') ? path.startsWith(pattern.slice(0, -1)) : path === pattern;
}

/** The body and content type a `respond` (or `respond_after`) fault sends. */
export function faultResponse(f: Fault): { status: number; type: string; text: string } {
  const status = f.status ?? 500;
  if (typeof f.body === 'string') {
    if (f.body.trimStart().startsWith('<'))
      return { status, type: 'text/html; charset=utf-8', text: f.body };
    try {
      JSON.parse(f.body);
      return { status, type: 'application/json', text: f.body };
    } catch {
      return { status, type: 'text/plain; charset=utf-8', text: f.body };
    }
  }
  if (f.body === null) {
    return {
      status,
      type: 'application/json',
      text: JSON.stringify({
        error: status >= 500 ? 'internal_error' : 'injected_fault',
        message: 'fault injected by POST /_sandbox/fallas',
      }),
    };
  }
  return { status, type: 'application/json', text: JSON.stringify(f.body) };
}

export interface LogEntry {
  /** Increasing from 1: `svc sandbox log --follow` asks for what came after the last it saw. */
  id: number;
  method: string;
  path: string;
  /** null when the connection was cut without an answer. */
  status: number | null;
  ms: number;
  fecha: string;
  /** The merchant whose key the request carried; null without a known key. */
  comercio: number | null;
  /** A request of the rehearsal merchant (its live key). */
  ensayo?: true;
}

/** The last requests received (method, path, status, time); never headers or bodies. */
export class RequestLog {
  private entries: LogEntry[] = [];
  private nextId = 1;
  constructor(private readonly max = 1000) {}
  add(fields: Omit<LogEntry, 'id'>): LogEntry {
    const e = { id: this.nextId++, ...fields };
    this.entries.push(e);
    if (this.entries.length > this.max * 2) this.entries = this.entries.slice(-this.max);
    return e;
  }
  all(): LogEntry[] {
    return this.entries.slice(-this.max);
  }
}
