// Load: (a) the sandbox with --data takes N payment requests and 2N payments over HTTP,
// is killed with SIGKILL in the middle of a burst of writes, restarts on the same file,
// and has lost nothing it answered and stays consistent (for every request the sum of
// its ACREDITADO transactions is its monto_cobrado, exact cents); (b) `svc cobro
// listar --json` over 10,000 requests stays under 150 MB of peak memory.
//
// Sizes: N = 10,000 requests and 20,000 payments (about 25 s of fsynced writes on a
// quiet 2-core machine). SVC_LOAD_SCALE multiplies N (0.2 for a quick local run).
// SVC_LOAD_LIST (default 10,000) is the number of requests listed in (b).
import { execa, type Options, type ResultPromise } from 'execa';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAmount, formatCents } from '../../src/domain/money.js';
import { BIN, ROOT, tempDir } from '../helpers/cli.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
import { pool } from '../helpers/fixtures.js';

const SCALE =
  Number(process.env.SVC_LOAD_SCALE ?? '1') > 0 ? Number(process.env.SVC_LOAD_SCALE ?? '1') : 1;
const N = Math.max(50, Math.round(10_000 * SCALE));
const LIST_N = Math.max(100, Number(process.env.SVC_LOAD_LIST ?? '10000') || 10_000);
const CONCURRENCY = 16;
const MAX_RSS_KB = 150 * 1024;

interface Proc {
  proc: ResultPromise;
  baseUrl: string;
  apiKey: string;
}

const procs: ResultPromise[] = [];
afterAll(async () => {
  for (const p of procs) if (p.exitCode === null) p.kill('SIGKILL');
  await Promise.allSettled(procs);
});

async function spawnSandbox(dataFile: string): Promise<Proc> {
  const options: Options = {
    cwd: ROOT,
    env: { SVC_CONFIG_DIR: tempDir('svc-load-config-'), NO_COLOR: '1', PATH: process.env.PATH },
    extendEnv: false,
    reject: false,
    buffer: false,
    stdin: 'ignore',
  };
  const proc = execa(
    'node',
    // Whole lists: what survived the kill is read back in one reply per list.
    [BIN, 'sandbox', '--port', '0', '--json', '--data', dataFile, '--por-pagina', '0'],
    options,
  );
  procs.push(proc);
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += String(d)));
  const rl = createInterface({ input: proc.stdout! });
  const info = await new Promise<{ base_url: string; api_key: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sandbox did not start: ${stderr}`)), 30_000);
    rl.once('line', (line) => {
      clearTimeout(timer);
      resolve(JSON.parse(line));
    });
    void proc.then(() => reject(new Error(`sandbox exited: ${stderr}`)));
  });
  rl.on('line', () => {});
  return { proc, baseUrl: info.base_url, apiKey: info.api_key };
}

async function call(
  p: { baseUrl: string; apiKey: string },
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(p.baseUrl + path, {
    method,
    headers: {
      authorization: `Bearer ${p.apiKey}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Amounts between 1.00 and 99,999.99, exact cents, from a tiny deterministic generator. */
function amounts(seed: number): () => bigint {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return 100n + BigInt(x % 9_999_900);
  };
}

interface Ack {
  cobros: Map<number, { monto: string }>;
  /** Last estado answered per request. */
  estado: Map<number, string>;
}

describe('sandbox with --data under load, killed with SIGKILL mid-burst', () => {
  it(`${N} requests and ${2 * N} payments; after kill -9 and restart nothing answered is lost and every sum matches`, async () => {
    const dataFile = join(tempDir('svc-load-'), 'sandbox.jsonl');
    const first = await spawnSandbox(dataFile);
    const ack: Ack = { cobros: new Map(), estado: new Map() };
    const next = amounts(42);

    // 1. N requests and 2N payments, CONCURRENCY at a time.
    const started = performance.now();
    await pool(
      Array.from({ length: N }, (_, i) => i),
      CONCURRENCY,
      async () => {
        const monto = next();
        const c = await call(first, 'POST', '/v1/cobros', {
          concepto: 'carga',
          monto: formatCents(monto),
        });
        expect(c.status).toBe(201);
        const id = c.body.data.id as number;
        ack.cobros.set(id, { monto: c.body.data.monto });
        const part = 1n + (next() % (monto - 1n));
        const p1 = await call(first, 'POST', `/_sandbox/cobros/${id}/pagar`, {
          monto: formatCents(part),
        });
        expect(p1.status, JSON.stringify(p1.body)).toBe(200);
        const p2 = await call(first, 'POST', `/_sandbox/cobros/${id}/pagar`, {});
        expect(p2.status, JSON.stringify(p2.body)).toBe(200);
        expect(p2.body.data.estado).toBe('PAGADA');
        ack.estado.set(id, 'PAGADA');
      },
    );
    const loadMs = performance.now() - started;
    console.log(
      `[load] ${N} creates + ${2 * N} payments over HTTP (--data, fsync per write): ${(loadMs / 1000).toFixed(1)} s, ${Math.round((3 * N) / (loadMs / 1000))} writes/s`,
    );

    // 2. A burst of writes (creates and payments, recorded as answered), killed with SIGKILL.
    const burstAck: Ack = { cobros: new Map(), estado: new Map() };
    let answered = 0;
    let killed = false;
    const burst = pool(
      Array.from({ length: 4_000 }, (_, i) => i),
      CONCURRENCY,
      async () => {
        if (killed) return;
        try {
          const monto = next();
          const c = await call(first, 'POST', '/v1/cobros', {
            concepto: 'ráfaga',
            monto: formatCents(monto),
          });
          if (c.status !== 201) return;
          const id = c.body.data.id as number;
          burstAck.cobros.set(id, { monto: c.body.data.monto });
          burstAck.estado.set(id, c.body.data.estado);
          answered++;
          const p = await call(first, 'POST', `/_sandbox/cobros/${id}/pagar`, {
            monto: formatCents(monto / 2n || 1n),
          });
          if (p.status !== 200) return;
          burstAck.estado.set(id, p.body.data.estado);
          answered++;
        } catch {
          // the connection died with the sandbox: this write was not answered
        }
      },
    );
    while (answered < 300 && !killed) await new Promise((r) => setTimeout(r, 5));
    first.proc.kill('SIGKILL');
    killed = true;
    await burst;
    await first.proc;
    expect(first.proc.signalCode ?? (await first.proc).signal).toBe('SIGKILL');
    expect(burstAck.cobros.size).toBeGreaterThan(0);
    expect(existsSync(dataFile)).toBe(true);

    // 3. Restart on the same file: same keys, everything answered is there, sums exact.
    const second = await spawnSandbox(dataFile);
    expect(second.apiKey).toBe(first.apiKey);
    try {
      const cobros = (await call(second, 'GET', '/v1/cobros')).body.data as any[];
      const txs = (await call(second, 'GET', '/v1/transacciones')).body.data as any[];
      const byId = new Map(cobros.map((c) => [c.id as number, c]));
      const lost: string[] = [];
      for (const [id, a] of [...ack.cobros, ...burstAck.cobros]) {
        const c = byId.get(id);
        if (!c || c.monto !== a.monto)
          lost.push(`cobro ${id}: answered monto ${a.monto}, stored ${c ? c.monto : 'nothing'}`);
      }
      for (const [id, estado] of [...ack.estado, ...burstAck.estado]) {
        // A request answered PENDIENTE whose payment was sent but not answered may hold either state.
        const allowed = estado === 'PENDIENTE' ? ['PENDIENTE', 'PAGADA_PARCIALMENTE'] : [estado];
        const stored = byId.get(id)?.estado;
        if (!allowed.includes(stored))
          lost.push(`cobro ${id}: answered ${estado}, stored ${stored}`);
      }
      expect(lost.slice(0, 20), `${lost.length} answered writes lost`).toEqual([]);
      expect(cobros.length).toBeGreaterThanOrEqual(N + burstAck.cobros.size);
      expect(txs.length).toBeGreaterThanOrEqual(2 * N);

      const sums = new Map<number, bigint>();
      for (const t of txs)
        if (t.estado === 'ACREDITADO')
          sums.set(t.cobro_id, (sums.get(t.cobro_id) ?? 0n) + parseAmount(t.monto));
      const wrong = cobros
        .filter(
          (c) =>
            (sums.get(c.id) ?? 0n) !== parseAmount(c.monto_cobrado) ||
            parseAmount(c.monto_cobrado) > parseAmount(c.monto),
        )
        .map(
          (c) =>
            `cobro ${c.id}: monto ${c.monto}, monto_cobrado ${c.monto_cobrado}, sum of ACREDITADO ${formatCents(sums.get(c.id) ?? 0n)}`,
        );
      expect(wrong.slice(0, 20), `${wrong.length} inconsistent requests`).toEqual([]);
      console.log(
        `[load] after kill -9 mid-burst: ${burstAck.cobros.size} burst requests answered, ${cobros.length} stored, ${txs.length} transactions, all sums exact`,
      );
    } finally {
      second.proc.kill('SIGTERM');
      await second.proc;
    }
  }, 400_000);
});

describe('svc cobro listar --json with 10,000 requests', () => {
  let sb: InProcessSandbox | undefined;
  afterAll(async () => {
    await sb?.close();
  });

  // The peak resident set of the whole process, written by the process itself as it exits.
  const peak = join(ROOT, 'test', 'helpers', 'report-peak-rss.mjs');
  it("peak memory under 150 MB, output byte-equal to the service's list", async () => {
    // Whole lists: svc's output is compared with the service's list in one reply.
    sb = await startSandbox({ pageSize: 0 });
    const started = performance.now();
    await pool(
      Array.from({ length: LIST_N }, (_, i) => i),
      20,
      async (i) => {
        const r = await sb!.api('POST', '/v1/cobros', {
          concepto: `Seña del pedido N° ${i}, envío a domicilio (${i % 7} bultos)`,
          monto: `${1 + (i % 9999)}.${String(i % 100).padStart(2, '0')}`,
          referencia: `ref-${i}`,
        });
        if (r.status !== 201) throw new Error(r.text);
      },
    );
    console.log(
      `[load] ${LIST_N} requests created over HTTP, 20 at a time: ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    // stdout is a pipe read by this process, as in `svc cobro listar --json | jq`.
    const r = await execa('node', ['--import', peak, BIN, 'cobro', 'listar', '--json'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        SVC_CONFIG_DIR: tempDir('svc-load-config-'),
        SVC_BASE_URL: sb.baseUrl,
        SVC_API_KEY: sb.apiKey,
        NO_COLOR: '1',
      },
      extendEnv: false,
      reject: false,
      maxBuffer: 1024 * 1024 * 1024,
    });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const service = (await sb.api('GET', '/v1/cobros')).body as { data: unknown[] };
    expect(
      String(r.stdout) === JSON.stringify(service.data, null, 2),
      "stdout is the service's list, byte for byte",
    ).toBe(true);
    const rows = JSON.parse(String(r.stdout)) as unknown[];
    expect(rows).toHaveLength(LIST_N);
    const m = /maxrss_kb=(\d+)/.exec(String(r.stderr));
    expect(m, String(r.stderr)).not.toBeNull();
    const kb = Number(m![1]);
    console.log(
      `[load] svc cobro listar --json over ${LIST_N} requests: peak RSS ${(kb / 1024).toFixed(1)} MB, ${String(r.stdout).length} bytes of JSON`,
    );
    expect(kb).toBeLessThan(MAX_RSS_KB);
  }, 120_000);
});
