// The sandbox's own routes (/v1/… and /_sandbox/…), called with the key the person
// pasted, kept in this tab's sessionStorage only; and the two ways a call is timed:
// soon (after a pause, once) and latest (a newer call's answer wins).
import { showError } from './messages.js';

const STORE = 'svc-panel-clave';

export function storedKey(): string {
  try {
    return sessionStorage.getItem(STORE) ?? '';
  } catch {
    return '';
  }
}
export function storeKey(key: string): void {
  try {
    sessionStorage.setItem(STORE, key);
  } catch {
    // the key lives only in this page then
  }
}
export function forgetKey(): void {
  try {
    sessionStorage.removeItem(STORE);
  } catch {
    // nothing kept
  }
}

export function headers(extra: Record<string, string> = {}): Record<string, string> {
  return { Authorization: `Bearer ${storedKey()}`, 'X-Svc-Panel': '1', ...extra };
}

/** What to do when the sandbox refuses the key (session.ts: forget it, ask again). */
let refused: (why: string) => void = () => {};
export function onKeyRefused(fn: (why: string) => void): void {
  refused = fn;
}
export function keyRefused(why: string): void {
  refused(why);
}

/** A call the sandbox answered with an error: its status and its words. */
export class SandboxError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** One call; the reply's data, or a SandboxError saying what the sandbox answered. */
export async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: headers(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'omit',
      redirect: 'error',
    });
  } catch {
    throw new Error('No se pudo hablar con el sandbox: ¿sigue corriendo?');
  }
  const raw = await res.text();
  let json: { data?: unknown; message?: unknown; error?: unknown } | null = null;
  try {
    json = JSON.parse(raw);
  } catch {
    json = null;
  }
  if (!res.ok) {
    const why = json && typeof json.message === 'string' ? json.message : raw.slice(0, 200);
    const err = new SandboxError(
      `El sandbox respondió ${res.status}${json && json.error ? ` ${String(json.error)}` : ''}: ${why}`,
      res.status,
    );
    if (res.status === 401) keyRefused(`El sandbox no aceptó la clave: ${why}.`);
    throw err;
  }
  return (json ? json.data : null) as T;
}

const timers: Record<string, ReturnType<typeof setTimeout>> = {};
const seq: Record<string, number> = {};

/** Runs fn once after ms, however many times it is asked for meanwhile under name. */
export function soon(name: string, fn: () => Promise<unknown>, ms = 120): void {
  clearTimeout(timers[name]);
  timers[name] = setTimeout(() => {
    fn().catch((err: unknown) => showError(err));
  }, ms);
}

/** Runs fn and drops its result when a newer call of the same name started meanwhile. */
export async function latest<T>(name: string, fn: () => Promise<T>): Promise<{ v: T } | null> {
  const n = (seq[name] ?? 0) + 1;
  seq[name] = n;
  const v = await fn();
  return seq[name] === n ? { v } : null;
}
