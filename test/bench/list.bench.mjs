// Benchmark of a long list (run after a build: node test/bench/run.mjs list):
// `svc cobro listar --json` over 10,000 requests, stdout a pipe, next to the bare
// script a merchant would write (fetch, JSON.parse, JSON.stringify). Prints the
// median wall time and peak resident memory (getrusage, written by each process as
// it exits) of each, and their ratios. Asserts nothing; the 150 MB budget is a test
// (test/load/sandbox-data.load.test.ts).
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
const runs = Number(process.env.BENCH_RUNS ?? 7);
const count = Number(process.env.BENCH_LIST ?? 10_000);
const peak = fileURLToPath(new URL('../helpers/report-peak-rss.mjs', import.meta.url));

const sandbox = spawn(
  process.execPath,
  [bin, 'sandbox', '--port', '0', '--json', '--ready-delay', '0'],
  { stdio: ['ignore', 'pipe', 'ignore'] },
);
const info = await new Promise((resolve) =>
  createInterface({ input: sandbox.stdout }).once('line', (l) => resolve(JSON.parse(l))),
);
const env = {
  ...process.env,
  SVC_BASE_URL: info.base_url,
  SVC_API_KEY: info.api_key,
  SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-bench-')),
  NO_COLOR: '1',
};

let next = 0;
await Promise.all(
  Array.from({ length: 20 }, async () => {
    while (next < count) {
      const i = next++;
      const r = await fetch(`${info.base_url}/v1/cobros`, {
        method: 'POST',
        headers: { authorization: `Bearer ${info.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          concepto: `Seña del pedido N° ${i}, envío a domicilio (${i % 7} bultos)`,
          monto: `${1 + (i % 9999)}.${String(i % 100).padStart(2, '0')}`,
          referencia: `ref-${i}`,
        }),
      });
      if (r.status !== 201) throw new Error(await r.text());
      await r.arrayBuffer();
    }
  }),
);

const bare = join(mkdtempSync(join(tmpdir(), 'svc-bench-')), 'bare.mjs');
writeFileSync(
  bare,
  `const r = await fetch(process.env.SVC_BASE_URL + '/v1/cobros', { headers: { authorization: 'Bearer ' + process.env.SVC_API_KEY } });
process.stdout.write(JSON.stringify((await r.json()).data, null, 2) + '\\n');\n`,
);

/** One run with stdout read through a pipe: wall ms, peak KB, bytes out. */
function once(args) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const p = spawn(process.execPath, ['--import', peak, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let bytes = 0;
    let err = '';
    p.stdout.on('data', (d) => (bytes += d.length));
    p.stderr.on('data', (d) => (err += d));
    p.once('close', (code) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      const kb = Number(/maxrss_kb=(\d+)/.exec(err)?.[1]);
      if (code !== 0 || !kb) reject(new Error(`${args.join(' ')} exited ${code}: ${err}`));
      else resolve({ ms, kb, bytes });
    });
  });
}

async function measure(args) {
  const all = [];
  for (let i = 0; i < runs; i++) all.push(await once(args));
  const mid = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return {
    ms: mid(all.map((r) => r.ms)),
    kb: mid(all.map((r) => r.kb)),
    most: Math.max(...all.map((r) => r.kb)),
    bytes: all[0].bytes,
  };
}

const b = await measure([bare]);
const s = await measure([bin, 'cobro', 'listar', '--json']);
sandbox.kill('SIGTERM');

console.log(`median of ${runs} runs, Node ${process.version}, ${count} requests, stdout a pipe`);
const row = (name, r) =>
  console.log(
    `${name.padEnd(26)} ${r.ms.toFixed(0).padStart(6)} ms  ${(r.kb / 1024).toFixed(1).padStart(6)} MB peak (most ${(r.most / 1024).toFixed(1)} MB)  ${r.bytes} bytes`,
  );
row('bare fetch script', b);
row('svc cobro listar --json', s);
console.log(
  `ratios svc / bare: time ${(s.ms / b.ms).toFixed(2)}×, peak memory ${(s.kb / b.kb).toFixed(2)}× (budget 150 MB)`,
);
