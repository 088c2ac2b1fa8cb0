// Benchmark of lists read over pages (node test/bench/run.mjs pages, after a build): a
// generated year of BENCH_PAGES_COUNT requests (default 20,000) served whole
// (--por-pagina 0), in pages of 100 (the sandbox's default) and of 1,000; at each size
// `svc cobro listar --csv`, `--json` and `svc liquidaciones` (totals), beside a bare
// node:http script that reads every page over one kept-alive connection. Prints the
// median wall and CPU time (user + system, written by each process as it exits) of
// each, and each paged figure over the whole-list one. Asserts nothing.
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, median, startSandbox } from './helpers.mjs';

const runs = Number(process.env.BENCH_RUNS ?? 3);
const count = Number(process.env.BENCH_PAGES_COUNT ?? 20_000);
const sizes = (process.env.BENCH_PAGE_SIZES ?? '0,100,1000').split(',').map(Number);

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-pages-'));
const data = join(dir, 'data.jsonl');
{
  const made = await startSandbox(['--data', data, '--generar', String(count)]);
  await made.stop();
}

// CPU time as each process exits (user + system, ms), on stderr.
const cpu = join(dir, 'cpu.mjs');
writeFileSync(
  cpu,
  `process.on('exit', () => { const u = process.resourceUsage(); process.stderr.write('cpu_us=' + (u.userCPUTime + u.systemCPUTime) + '\\n'); });\n`,
);

// Every page of a list, following `next`, over one kept-alive connection.
const bare = join(dir, 'bare.mjs');
writeFileSync(
  bare,
  `import { Agent, request } from 'node:http';
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const get = (url) => new Promise((resolve, reject) => {
  request(url, { agent, headers: { authorization: 'Bearer ' + process.env.SVC_API_KEY } }, (res) => {
    const chunks = [];
    res.on('data', (c) => chunks.push(c));
    res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
  }).on('error', reject).end();
});
const [task] = process.argv.slice(2);
const path = task === 'totals' ? '/v1/liquidaciones' : '/v1/cobros';
let url = new URL(path, process.env.SVC_BASE_URL);
let [bruto, fee, net] = [0n, 0n, 0n];
const cents = (a) => BigInt(a.replace('.', ''));
const out = [];
for (;;) {
  const body = await get(url);
  for (const c of body.data)
    if (task === 'totals') ((bruto += cents(c.bruto)), (fee += cents(c.te_cobramos)), (net += cents(c.te_queda)));
    else out.push([c.id, c.codigo, c.concepto, c.monto, c.monto_cobrado, c.estado, c.referencia, c.created_at].join(','));
  if (!body.next) break;
  url = new URL(body.next, url);
}
process.stdout.write(task === 'totals' ? bruto + ' ' + fee + ' ' + net + '\\n' : out.join('\\n') + '\\n');
agent.destroy();
`,
);

function run(args, env) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const p = spawn(process.execPath, ['--import', cpu, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let bytes = 0;
    let err = '';
    p.stdout.on('data', (d) => (bytes += d.length));
    p.stderr.on('data', (d) => (err += d));
    p.once('close', (code) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      const us = Number(/cpu_us=(\d+)/.exec(err)?.[1]);
      if (code !== 0 || !us)
        reject(new Error(`${args.join(' ').slice(0, 200)} exited ${code}: ${err.slice(0, 500)}`));
      else resolve({ ms, cpu: us / 1000, bytes });
    });
  });
}

const tasks = [
  ['bare list-csv', (env) => run([bare, 'csv'], env)],
  ['cobro listar --csv', (env) => run([bin, 'cobro', 'listar', '--csv'], env)],
  ['cobro listar --json', (env) => run([bin, 'cobro', 'listar', '--json'], env)],
  ['bare totals', (env) => run([bare, 'totals'], env)],
  ['liquidaciones', (env) => run([bin, 'liquidaciones'], env)],
];

const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const results = new Map();
for (const size of sizes) {
  const copy = join(dir, `data-${size}.jsonl`);
  copyFileSync(data, copy);
  const sandbox = await startSandbox(['--data', copy, '--por-pagina', String(size)]);
  const loads = [load()];
  const all = tasks.map(() => []);
  // Runs interleaved, so a change of load falls on every task alike.
  for (let i = 0; i < runs; i++)
    for (const [t, [, f]] of tasks.entries()) all[t].push(await f(sandbox.env));
  loads.push(load());
  await sandbox.stop();
  results.set(size, { all, loads });
}

console.log(`median of ${runs} runs, Node ${process.version}, ${count} generated requests`);
const base = results.get(sizes[0]);
for (const size of sizes) {
  const { all, loads } = results.get(size);
  console.log(`\n--por-pagina ${size}  (load ${loads.join(' → ')})`);
  for (const [t, [name]] of tasks.entries()) {
    const ms = median(all[t].map((r) => r.ms));
    const c = median(all[t].map((r) => r.cpu));
    const vs =
      size === sizes[0]
        ? ''
        : `  ×${(ms / median(base.all[t].map((r) => r.ms))).toFixed(2)} wall, ×${(c / median(base.all[t].map((r) => r.cpu))).toFixed(2)} cpu vs ${sizes[0]}`;
    console.log(
      `${name.padEnd(22)} wall ${ms.toFixed(0).padStart(6)} ms  cpu ${c.toFixed(0).padStart(6)} ms  ${String(all[t][0].bytes).padStart(9)} bytes${vs}`,
    );
  }
}
