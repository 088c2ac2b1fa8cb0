// Shared pieces of the hardening tests: an in-process sandbox (faster than a process
// when the test only needs HTTP), its control plane, fixtures, a closed port, a
// small concurrency pool and the "one clear error line" check.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { expectNoStack, type SvcResult } from './cli.js';

export interface Reply {
  status: number;
  body: any;
  text: string;
}

export interface HSandbox extends RunningSandbox {
  env: Record<string, string>;
  api(method: string, path: string, body?: unknown, key?: string): Promise<Reply>;
  /** Adds a fault (POST /_sandbox/fallas) and returns its id. */
  fault(f: Record<string, unknown>): Promise<number>;
  /** Remaining count of each fault still armed, by id. */
  faultsLeft(): Promise<Map<number, number>>;
  clearFaults(): Promise<void>;
  /** Requests received on /v1/… (the control plane filtered out). */
  apiLog(): Promise<{ method: string; path: string; status: number | null }[]>;
}

export async function sandbox(options: SandboxOptions = {}): Promise<HSandbox> {
  // Every /v1 reply is checked against the endpoint table: one that drifts is a 500.
  const sb = await startSandbox({ port: 0, readyDelayMs: 0, retrySchedule: [50], checkReplies: true, ...options });
  const api: HSandbox['api'] = async (method, path, body, key = sb.apiKey) => {
    const res = await fetch(sb.baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed, text };
  };
  const must = async (method: string, path: string, body?: unknown): Promise<any> => {
    const r = await api(method, path, body);
    if (r.status >= 300) throw new Error(`${method} ${path} -> ${r.status} ${r.text}`);
    return r.body;
  };
  return Object.assign(sb, {
    env: { SVC_BASE_URL: sb.baseUrl, SVC_API_KEY: sb.apiKey },
    api,
    async fault(f: Record<string, unknown>) {
      return (await must('POST', '/_sandbox/fallas', f)).data.id as number;
    },
    async faultsLeft() {
      const list = (await must('GET', '/_sandbox/fallas')).data as { id: number; count: number }[];
      return new Map(list.map((f) => [f.id, f.count]));
    },
    async clearFaults() {
      await must('DELETE', '/_sandbox/fallas');
    },
    async apiLog() {
      const all = (await must('GET', '/_sandbox/log')).data as { method: string; path: string; status: number | null }[];
      return all.filter((e) => e.path.startsWith('/v1/'));
    },
  });
}

export interface Fixture {
  /** A paid request (1000.00) with one credited transaction and one refund of 1.00. */
  cobroId: number;
  txId: number;
  devId: number;
  /** A paid request (1000.00) with room for many small refunds. */
  refundableId: number;
}

export async function fixture(sb: HSandbox): Promise<Fixture> {
  const create = async () => {
    const r = await sb.api('POST', '/v1/cobros', { concepto: 'Pedido de prueba', monto: '1000.00' });
    if (r.status !== 201) throw new Error(r.text);
    const id = r.body.data.id as number;
    const p = await sb.api('POST', `/_sandbox/cobros/${id}/pagar`, {});
    if (p.status !== 200) throw new Error(p.text);
    return id;
  };
  const cobroId = await create();
  const refundableId = await create();
  const d = await sb.api('POST', `/v1/cobros/${cobroId}/devoluciones`, { monto: '1.00' });
  if (d.status !== 201) throw new Error(d.text);
  const txs = (await sb.api('GET', '/v1/transacciones')).body.data as { id: number; cobro_id: number }[];
  const tx = txs.find((t) => t.cobro_id === cobroId);
  if (!tx) throw new Error('no transaction');
  return { cobroId, txId: tx.id, devId: d.body.data.id, refundableId };
}

/** A loopback port nobody listens on (bound, then released). Port 1 would be refused by fetch as a "bad port". */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** Runs fn over items with at most n at once; results in input order. */
export async function pool<T, R>(items: readonly T[], n: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  return out;
}

export function lines(text: string): string[] {
  return text.split('\n').filter((l) => l.trim() !== '');
}

/**
 * The failure contract: the expected exit code, nothing on stdout, no stack trace,
 * exactly one `error:` line matching `line` (after any lines the command wrote
 * before failing), optionally followed by one `→` suggestion, and nothing after.
 * Returns the error line.
 */
export function expectOneErrorLine(r: SvcResult, exit: number, line: RegExp, what: string, opts: { preamble?: boolean } = {}): string {
  const ctx = `${what}\nexit ${r.exitCode}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
  expectNoStack(r.stderr);
  expect(r.exitCode, ctx).toBe(exit);
  expect(r.stdout, ctx).toBe('');
  const ls = lines(r.stderr);
  const errs = ls.filter((l) => l.startsWith('error:'));
  expect(errs, ctx).toHaveLength(1);
  const at = ls.indexOf(errs[0]!);
  const after = ls.slice(at + 1);
  expect(after.length <= 1 && after.every((l) => l.startsWith('→')), ctx).toBe(true);
  if (!opts.preamble) expect(at, ctx).toBe(0);
  expect(errs[0], ctx).toMatch(line);
  expect(errs[0]!.length, ctx).toBeLessThan(400);
  return errs[0]!;
}
