// Start-up benchmark: median wall time of `svc --version`, `svc --help` and
// `svc cobro ver 1 --json` (against a sandbox) next to `node -e 0` and a bare Node
// script doing the same fetch; prints the figures and their ratios.
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'svc.js');
const runs = Number(process.env.BENCH_RUNS ?? 15);

const sandbox = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--json'], { stdio: ['ignore', 'pipe', 'ignore'] });
const info = await new Promise((resolve) => createInterface({ input: sandbox.stdout }).once('line', (l) => resolve(JSON.parse(l))));
const env = { ...process.env, SVC_BASE_URL: info.base_url, SVC_API_KEY: info.api_key, SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-bench-')) };
await fetch(`${info.base_url}/v1/cobros`, {
  method: 'POST',
  headers: { authorization: `Bearer ${info.api_key}`, 'content-type': 'application/json' },
  body: JSON.stringify({ concepto: 'bench', monto: '10.00' }),
});
const bare = join(mkdtempSync(join(tmpdir(), 'svc-bench-')), 'bare.mjs');
writeFileSync(
  bare,
  `const r = await fetch(process.env.SVC_BASE_URL + '/v1/cobros/1', { headers: { authorization: 'Bearer ' + process.env.SVC_API_KEY } });
process.stdout.write(JSON.stringify((await r.json()).data, null, 2) + '\\n');\n`,
);

function median(args) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'ignore'] });
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}`);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const node0 = median(['-e', '0']);
const version = median([bin, '--version']);
const help = median([bin, '--help']);
const bareFetch = median([bare]);
const ver = median([bin, 'cobro', 'ver', '1', '--json']);
sandbox.kill('SIGTERM');

const row = (name, ms, base, baseName) => console.log(`${name.padEnd(28)} ${ms.toFixed(1).padStart(7)} ms   ${(ms / base).toFixed(2)}× ${baseName}`);
console.log(`median of ${runs} runs, Node ${process.version}`);
row('node -e 0', node0, node0, 'node -e 0');
row('svc --version', version, node0, 'node -e 0 (aim ≤ 1.3×)');
row('svc --help', help, node0, 'node -e 0');
row('bare fetch script', bareFetch, node0, 'node -e 0');
row('svc cobro ver 1 --json', ver, bareFetch, 'bare fetch (aim ≤ 1.5×)');
