// Benchmark of svc sandbox (run after a build: node test/bench/run.mjs sandbox).
// The sandbox runs as its own process (the built CLI), the load comes from this one
// over keep-alive HTTP. Prints figures; asserts nothing about time.
//  1. GET /v1/cobros/{id} requests per second with 10,000 requests in the store.
//  2. Persisted creates per second (--data, fsync per change) at 1,000 and at 10,000
//     stored requests, and their ratio (the write cost must not grow with the store).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

async function startSandbox(args) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const proc = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', '--json', ...args], {
    env: { ...process.env, SVC_CONFIG_DIR: dir, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: proc.stdout }).once('line', resolve);
    proc.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
  const info = JSON.parse(line);
  const url = new URL(info.base_url);
  return {
    call(method, path, body) {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      return new Promise((resolve, reject) => {
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            method,
            path,
            agent,
            headers: {
              authorization: `Bearer ${info.api_key}`,
              ...(payload
                ? {
                    'content-type': 'application/json',
                    'content-length': Buffer.byteLength(payload),
                  }
                : {}),
            },
          },
          (res) => {
            const chunks = [];
            res.on('data', (c) => chunks.push(c));
            res.on('end', () =>
              resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString() }),
            );
          },
        );
        req.on('error', reject);
        req.end(payload);
      });
    },
    stop() {
      proc.kill('SIGTERM');
      return new Promise((r) => proc.once('exit', r));
    },
    dir,
  };
}

/** Runs `total` calls with `concurrency` workers; returns calls per second. */
async function load(total, concurrency, makeCall) {
  let next = 0;
  let failures = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const r = await makeCall(i);
        if (r.status >= 300) failures++;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  if (failures) console.log(`  (${failures} calls failed)`);
  return total / seconds;
}

const create = (sb) => () =>
  sb.call('POST', '/v1/cobros', { concepto: 'bench', monto: '1500.00', referencia: 'bench' });
const fmt = (n) => Math.round(n).toLocaleString('en-US');

// 1. Reads with 10,000 requests in the store (in memory).
{
  const sb = await startSandbox(['--ready-delay', '0']);
  await load(10_000, 16, create(sb));
  await load(2_000, 32, (i) => sb.call('GET', `/v1/cobros/${1 + (i % 10_000)}`)); // warm-up
  const rps = await load(20_000, 32, () =>
    sb.call('GET', `/v1/cobros/${1 + Math.floor(Math.random() * 10_000)}`),
  );
  console.log(`GET /v1/cobros/{id}, 10,000 stored: ${fmt(rps)} req/s`);
  await sb.stop();
}

// 2. Persisted creates at 1,000 and at 10,000 stored requests. Two journals, filled
// to 1,000 and to 10,000, measured in alternating rounds so that the load of a shared
// machine falls on both figures alike; the median round of each is printed.
{
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-data-'));
  const small = await startSandbox(['--data', join(dir, 'small.jsonl'), '--ready-delay', '0']);
  const large = await startSandbox(['--data', join(dir, 'large.jsonl'), '--ready-delay', '0']);
  await load(1_000, 8, create(small));
  await load(10_000, 8, create(large));
  const rounds = { small: [], large: [] };
  for (let i = 0; i < 5; i++) {
    rounds.small.push(await load(200, 8, create(small)));
    rounds.large.push(await load(200, 8, create(large)));
  }
  const median = (r) => [...r].sort((a, b) => a - b)[Math.floor(r.length / 2)];
  const at1k = median(rounds.small);
  const at10k = median(rounds.large);
  console.log(
    `persisted creates (--data, fsync per change), ~1,000 stored:  ${fmt(at1k)} /s   (rounds ${rounds.small.map(fmt).join(', ')})`,
  );
  console.log(
    `persisted creates (--data, fsync per change), ~10,000 stored: ${fmt(at10k)} /s   (rounds ${rounds.large.map(fmt).join(', ')})`,
  );
  console.log(
    `ratio 10,000 / 1,000: ${(at10k / at1k).toFixed(2)} (journals ${(statSync(join(dir, 'small.jsonl')).size / 1e6).toFixed(1)} MB and ${(statSync(join(dir, 'large.jsonl')).size / 1e6).toFixed(1)} MB)`,
  );
  await small.stop();
  await large.stop();
  rmSync(dir, { recursive: true, force: true });
}
agent.destroy();
