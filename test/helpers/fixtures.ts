// Shared pieces of the hardening tests (the fault, hostile and bad-input matrices):
// the paid requests they run on, a closed port, a small concurrency pool and the
// "one clear error line" check. Their sandbox is startSandbox() of sandbox.ts.
import { connect } from 'node:net';
import { afterAll, beforeAll, expect } from 'vitest';
import { expectNoStack, type SvcResult } from './cli.js';
import { startSandbox, type InProcessSandbox, type Sandbox } from './sandbox.js';

export interface Fixture {
  /** A paid request (1000.00) with one credited transaction and one refund of 1.00. */
  cobroId: number;
  txId: number;
  devId: number;
  /** A paid request (1000.00) with room for many small refunds. */
  refundableId: number;
}

export async function fixture(sb: Sandbox): Promise<Fixture> {
  const create = async () => {
    const r = await sb.api('POST', '/v1/cobros', {
      concepto: 'Pedido de prueba',
      monto: '1000.00',
    });
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
  const txs = (await sb.api('GET', '/v1/transacciones')).body.data as {
    id: number;
    cobro_id: number;
  }[];
  const tx = txs.find((t) => t.cobro_id === cobroId);
  if (!tx) throw new Error('no transaction');
  return { cobroId, txId: tx.id, devId: d.body.data.id, refundableId };
}

/**
 * The fault matrices' setup: one in-process sandbox holding the fixture's requests for
 * the whole file (handed to `ready` before the first test), closed after the last.
 */
export function faultSandbox(ready: (sb: InProcessSandbox, fx: Fixture) => void): void {
  let sb: InProcessSandbox | undefined;
  beforeAll(async () => {
    sb = await startSandbox();
    ready(sb, await fixture(sb));
  });
  afterAll(async () => {
    await sb?.close();
  });
}

/**
 * A loopback port nobody listens on. Taken below 1024, where no server started on port 0
 * (by this suite or another on the machine) is ever placed: a port bound and released
 * could be handed to a parallel test's server before svc reaches it (seen: a 404 from a
 * stranger instead of "conexión rechazada"). Ports fetch refuses as "bad" are avoided.
 * Each candidate is checked to refuse a connection; bounded.
 */
export async function closedPort(): Promise<number> {
  for (let port = 1000; port < 1024; port++) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('connect', () => (socket.destroy(), resolve(false)));
      socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
    });
    if (refused) return port;
  }
  throw new Error('no closed loopback port between 1000 and 1023');
}

/** Runs fn over items with at most n at once; results in input order. */
export async function pool<T, R>(
  items: readonly T[],
  n: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
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
export function expectOneErrorLine(
  r: SvcResult,
  exit: number,
  line: RegExp,
  what: string,
  opts: { preamble?: boolean } = {},
): string {
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
