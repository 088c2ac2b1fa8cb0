// Benchmark of `svc caso` for a merchant with 10,000 payment requests (run after a
// build: node test/bench/run.mjs caso): the case of one request found by its code
// (one list call to find it, then three lists at once), median of 5 runs, with the
// time of a bare `cobro ver` by id beside it. Figures only.
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
const N = Number(process.env.BENCH_COBROS ?? 10_000);
const sandbox = spawn(
  process.execPath,
  [bin, 'sandbox', '--port', '0', '--json', '--ready-delay', '0'],
  { stdio: ['ignore', 'pipe', 'ignore'] },
);
const info = await new Promise((resolve) =>
  createInterface({ input: sandbox.stdout }).once('line', (l) => resolve(JSON.parse(l))),
);
const call = async (method, path, body) => {
  const r = await fetch(info.base_url + path, {
    method,
    headers: { authorization: `Bearer ${info.api_key}`, 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  });
  return (await r.json()).data;
};
const t0 = performance.now();
let next = 0;
let target;
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (next < N) {
      const i = next++;
      const c = await call('POST', '/v1/cobros', {
        concepto: `Pedido ${i}`,
        monto: '100.00',
        referencia: `ref-${i}`,
      });
      if (i % 10 === 0) await call('POST', `/_sandbox/cobros/${c.id}/pagar`, { medio: 'qr' });
      if (i === Math.floor(N / 2)) target = c;
    }
  }),
);
await call('POST', `/v1/cobros/${target.id}/devoluciones`, { monto: '10.00' });
console.log(`${N} requests (every 10th paid) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
const env = {
  ...process.env,
  SVC_BASE_URL: info.base_url,
  SVC_API_KEY: info.api_key,
  SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-bench-')),
};
const median = (args) => {
  const times = [];
  for (let i = 0; i < 5; i++) {
    const s = performance.now();
    const r = spawnSync(process.execPath, [bin, ...args], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    if (r.status !== 0) throw new Error(`${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
    times.push(performance.now() - s);
  }
  return times.sort((a, b) => a - b)[2];
};
const caso = median(['caso', target.codigo, '--json']);
const ver = median(['cobro', 'ver', String(target.id), '--json']);
sandbox.kill('SIGTERM');
console.log(
  `svc caso ${target.codigo} --json (by code, ${N} requests): ${caso.toFixed(0)} ms median of 5 (aim < 1000 ms)`,
);
console.log(`svc cobro ver ${target.id} --json (by id): ${ver.toFixed(0)} ms`);
