// Benchmark of a large sandbox data file (run after a build: node test/bench/run.mjs datafile).
// Builds a journal of BENCH_DATA_MB (default 600, past the 512 MiB a file could be read
// as one string) from the lines a real sandbox writes for one request's life (created,
// paid in part, refunded, each event settled), repeated with fresh ids. Then, each in
// its own process: the time and peak memory to open it (replay only), `svc sandbox
// compactar` on it, and a `svc sandbox` start on the compacted file. Prints figures;
// asserts nothing about time.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { bin, lifeTemplates, peak, writeLives } from './helpers.mjs';

const storeJs = new URL('../../dist/sandbox/store.js', import.meta.url).href;
const targetMb = Number(process.env.BENCH_DATA_MB ?? 600);
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-data-'));
const file = join(dir, 'big.jsonl');
const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MB`;

// One request's life as a real sandbox journals it, its notifications owed to a URL.
const { headerLine, templates } = await lifeTemplates(dir);
const header = JSON.parse(headerLine);
header.meta.merchants[0].webhookUrl = 'http://127.0.0.1:9/hook';

let t0 = performance.now();
const requests = writeLives(
  file,
  JSON.stringify(header),
  templates,
  (_k, bytes) => bytes < targetMb * 1024 * 1024,
);
const size = statSync(file).size;
console.log(
  `data file: ${mb(size)}, ${requests.toLocaleString('en')} requests (${(templates.length * 2 * requests).toLocaleString('en')} lines), written in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
);

/** Runs node with the peak-memory preload; resolves with wall ms, peak KB, stdout and stderr. */
function run(args, { untilLine = false } = {}) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const p = spawn(process.execPath, ['--max-old-space-size=4096', '--import', peak, ...args], {
      env: { ...process.env, SVC_CONFIG_DIR: dir, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let readyMs = null;
    p.stderr.on('data', (d) => (err += d));
    createInterface({ input: p.stdout }).on('line', (l) => {
      out += l + '\n';
      if (untilLine && readyMs === null) {
        readyMs = Number(process.hrtime.bigint() - start) / 1e6;
        p.kill('SIGTERM');
      }
    });
    p.once('close', (code) => {
      const ms = readyMs ?? Number(process.hrtime.bigint() - start) / 1e6;
      const kb = Number(/maxrss_kb=(\d+)/.exec(err)?.[1]);
      if (code !== 0) reject(new Error(`${args.join(' ').slice(0, 200)} exited ${code}: ${err}`));
      else resolve({ ms, mb: kb / 1024, out, err: err.replace(/maxrss_kb=\d+\n/, '') });
    });
  });
}

const open = await run([
  '--input-type=module',
  '-e',
  `const { Store } = await import(${JSON.stringify(storeJs)});
   const t = performance.now();
   const s = Store.open(${JSON.stringify(file)}, { compactAtBytes: Infinity });
   console.log(JSON.stringify({ replay_ms: Math.round(performance.now() - t), cobros: s.cobros.size }));
   s.close();`,
]);
const replay = JSON.parse(open.out);
console.log(
  `open (replay only, each line checked): ${(replay.replay_ms / 1000).toFixed(1)} s, ${replay.cobros.toLocaleString('en')} requests, peak RSS ${open.mb.toFixed(0)} MB`,
);

const compact = await run([bin, 'sandbox', 'compactar', '--data', file]);
console.log(
  `svc sandbox compactar: ${(compact.ms / 1000).toFixed(1)} s, peak RSS ${compact.mb.toFixed(0)} MB — ${compact.out.trim()}`,
);

const restart = await run([bin, 'sandbox', '--port', '0', '--json', '--data', file], {
  untilLine: true,
});
console.log(
  `svc sandbox on the compacted file (${mb(statSync(file).size)}): ready in ${(restart.ms / 1000).toFixed(1)} s, peak RSS ${restart.mb.toFixed(0)} MB`,
);
if (process.env.BENCH_KEEP) console.log(`kept ${dir}`);
else rmSync(dir, { recursive: true, force: true });
