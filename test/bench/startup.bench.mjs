// Start-up benchmark (#16): median wall time and peak memory of svc's quickest calls
// next to what Node itself needs for the same work, on the running Node, with each
// ratio printed beside its target. The baselines are `node -e 0` and bare scripts
// (test/bench/bare/) that do the same GET with node:http and print `data` as svc's
// --json does. Runs alternate (baseline, svc, baseline, svc…) so a noisy machine
// weighs on both alike. Figures, never assertions. Compile cache: on by default
// (NODE_COMPILE_CACHE is set to a fresh folder, warmed by one untimed run of each).
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSandbox } from './helpers.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'svc.js');
const bare = join(root, 'test', 'bench', 'bare', 'get.mjs');
const bareBuiltin = join(root, 'test', 'bench', 'bare', 'get-builtin.mjs');
const peak = join(root, 'test', 'helpers', 'report-peak-rss.mjs');
const runs = Number(process.env.BENCH_RUNS ?? 15);
const major = Number(process.versions.node.split('.')[0]);

const sandbox = await startSandbox();
const { info } = sandbox;
const env = {
  ...sandbox.env,
  NO_COLOR: process.env.NO_COLOR,
  NODE_COMPILE_CACHE: mkdtempSync(join(tmpdir(), 'svc-bench-cache-')),
};
if (env.NO_COLOR === undefined) delete env.NO_COLOR;
for (let i = 0; i < 100; i++) {
  await fetch(`${info.base_url}/v1/cobros`, {
    method: 'POST',
    headers: { authorization: `Bearer ${info.api_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ concepto: `bench ${i}`, monto: '10.00' }),
  });
}

function once(args, withPeak = false) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, withPeak ? ['--import', peak, ...args] : args, {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const kb = Number(/maxrss_kb=(\d+)/.exec(r.stderr.toString())?.[1] ?? NaN);
  return { ms, kb };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Alternating runs of a baseline and svc: their medians (ms) and the ratio. */
function compare(baseArgs, svcArgs) {
  (once(baseArgs), once(svcArgs)); // warm the compile cache and the page cache
  const base = [];
  const ours = [];
  for (let i = 0; i < runs; i++) {
    base.push(once(baseArgs).ms);
    ours.push(once(svcArgs).ms);
  }
  return { base: median(base), ours: median(ours) };
}
function compareMemory(baseArgs, svcArgs) {
  const base = [];
  const ours = [];
  for (let i = 0; i < 5; i++) {
    base.push(once(baseArgs, true).kb);
    ours.push(once(svcArgs, true).kb);
  }
  return { base: median(base), ours: median(ours) };
}

const rows = [];
const row = (name, r, target, unit = 'ms') => rows.push({ name, ...r, target, unit });
const call = (p) => [bare, p];
const node0 = ['-e', '0'];
const timeTarget = major >= 22 ? 1.3 : 1.5;
row('svc --version', compare(node0, [bin, '--version']), 1.2);
row('svc --help', compare(node0, [bin, '--help']), 1.2);
row('svc cobro crear --help', compare(node0, [bin, 'cobro', 'crear', '--help']), 1.2);
row(
  'svc cobro ver 1 --json',
  compare(call('/v1/cobros/1'), [bin, 'cobro', 'ver', '1', '--json']),
  timeTarget,
);
row(
  'svc cobro listar --json (100)',
  compare(call('/v1/cobros'), [bin, 'cobro', 'listar', '--json']),
  timeTarget,
);
// For the record, not a target: the same script taking node:http as svc's bundle does
// (process.getBuiltinModule), without the ES facade that loads Node's undici on 22+.
row(
  '  cobro ver, against get-builtin',
  compare([bareBuiltin, '/v1/cobros/1'], [bin, 'cobro', 'ver', '1', '--json']),
  null,
);
row(
  '  peak memory, cobro ver',
  compareMemory(call('/v1/cobros/1'), [bin, 'cobro', 'ver', '1', '--json']),
  1.3,
  'MiB',
);
await sandbox.stop();

console.log(`Node ${process.version}, median of ${runs} alternating runs, compile cache on`);
console.log(`${'call'.padEnd(32)} ${'baseline'.padStart(9)} ${'svc'.padStart(9)}  ratio  target`);
for (const r of rows) {
  const f = (v) => (r.unit === 'MiB' ? (v / 1024).toFixed(1) : v.toFixed(1)).padStart(9);
  const ratio = r.ours / r.base;
  const verdict =
    r.target === null
      ? '(for the record)'
      : `≤ ${r.target}× ${ratio <= r.target ? 'met' : 'NOT met'}`;
  console.log(`${r.name.padEnd(32)} ${f(r.base)} ${f(r.ours)}  ${ratio.toFixed(2)}×  ${verdict}`);
}
console.log(
  'baselines: node -e 0 for --version/--help; test/bench/bare/get.mjs (node:http GET, prints data) for the calls;',
);
console.log(
  'get-builtin.mjs: the same GET with node:http from process.getBuiltinModule, as svc takes it',
);

// Then the same on the Node majors users run, from the npm registry (npx caches them):
// the ratios of each are printed by its own run. SVC_BENCH_OTHER_NODES=0 skips them.
if (!process.env.SVC_BENCH_NODE_CHILD && process.env.SVC_BENCH_OTHER_NODES !== '0') {
  for (const other of [22, 24, 26]) {
    const found = spawnSync('npx', ['-y', `node@${other}`, '-p', 'process.execPath'], {
      encoding: 'utf8',
    });
    const node = found.status === 0 ? found.stdout.trim().split('\n').at(-1) : '';
    console.log('');
    if (!node) {
      console.log(
        `Node ${other}: not available from the registry (${(found.stderr ?? '').trim().split('\n').at(-1)})`,
      );
      continue;
    }
    spawnSync(node, [fileURLToPath(import.meta.url)], {
      stdio: 'inherit',
      env: { ...process.env, SVC_BENCH_NODE_CHILD: '1' },
    });
  }
}
