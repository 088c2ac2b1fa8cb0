// Benchmark of a long list (run after a build: node test/bench/run.mjs list):
// `svc cobro listar --json` over 10,000 requests, stdout a pipe, next to the bare
// script a merchant would write (fetch, JSON.parse, JSON.stringify). Prints the
// median wall time and peak resident memory (getrusage, written by each process as
// it exits) of each, and their ratios. Asserts nothing; the 150 MB budget is a test
// (test/load/sandbox-data.load.test.ts).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, median, runPeak, startSandbox } from './helpers.mjs';

const runs = Number(process.env.BENCH_RUNS ?? 7);
const count = Number(process.env.BENCH_LIST ?? 10_000);

const sandbox = await startSandbox();
const { info, env } = sandbox;

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

async function measure(args) {
  const all = [];
  for (let i = 0; i < runs; i++) all.push(await runPeak(args, env));
  return {
    ms: median(all.map((r) => r.ms)),
    kb: median(all.map((r) => r.kb)),
    most: Math.max(...all.map((r) => r.kb)),
    bytes: all[0].bytes,
  };
}

const b = await measure([bare]);
const s = await measure([bin, 'cobro', 'listar', '--json']);
await sandbox.stop();

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
