// Benchmark of the journal's look-ups (run after a build: node test/bench/run.mjs journal):
// a journal of BENCH_JOURNAL (1,000,000) entries as the listener leaves it (files of 64 MiB,
// each with its index; journal-files.mjs), and, each the median of BENCH_RUNS (3) spawned
// runs, CPU time, wall time and peak memory of:
//   webhook ver <oldest> --json on a journal without look-up files (the run builds them:
//     they are removed before each run);
//   webhook ver <newest> --json, webhook ver <oldest> --json;
//   caso <referencia> --json of the request of the oldest entry (its one notification is
//     in the oldest file), against a sandbox holding that request;
//   node -e '' (Node's own start), for scale;
// with /proc/loadavg before each line. BENCH_SVC names another build's bin/svc.js (to
// compare with an earlier commit). Figures only: nothing here asserts a time.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, median, startSandbox } from './helpers.mjs';
import { writeListenerJournal } from './journal-files.mjs';

const svcBin = process.env.BENCH_SVC ?? bin;
const runs = Number(process.env.BENCH_RUNS ?? 3);
const entries = Number(process.env.BENCH_JOURNAL ?? 1_000_000);
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-journal-'));
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
let failed = 0;

// The child's CPU time and peak memory, written to stderr as it exits.
const report = `data:text/javascript,${encodeURIComponent(
  "process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write(`\\nbench cpu_us=${u.userCPUTime+u.systemCPUTime} maxrss_kb=${u.maxRSS}\\n`)})",
)}`;

/** One run: CPU ms, wall ms, peak MB, stdout. */
function run(args, env) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const p = spawn(process.execPath, ['--import', report, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.once('close', (code) => {
      const wall = Number(process.hrtime.bigint() - t0) / 1e6;
      const m = /bench cpu_us=(\d+) maxrss_kb=(\d+)/.exec(err);
      if (code !== 0 || !m) reject(new Error(`exit ${code}: ${err.trim().split('\n')[0]}`));
      else resolve({ cpu: Number(m[1]) / 1000, wall, mb: Number(m[2]) / 1024, out });
    });
  });
}

/** `runs` runs of `args` (each after `before()`), their medians printed; `check` sees each stdout. */
async function line(name, args, env, { before = () => {}, check = () => {} } = {}) {
  const loadBefore = load();
  const got = [];
  try {
    for (let i = 0; i < runs; i++) {
      before();
      const r = await run(args, env);
      check(r.out);
      got.push(r);
    }
  } catch (err) {
    failed++;
    console.log(`  ${name.padEnd(36)} FAILED: ${err.message.slice(0, 200)}`);
    return;
  }
  const m = (k) => median(got.map((r) => r[k]));
  console.log(
    `  ${name.padEnd(36)} cpu ${m('cpu').toFixed(0).padStart(5)} ms  wall ${m('wall').toFixed(0).padStart(5)} ms  peak ${m('mb').toFixed(0).padStart(4)} MB   load ${loadBefore} → ${load()}`,
  );
}

const journalDir = join(dir, 'journal');
mkdirSync(journalDir);
const journal = join(journalDir, 'webhooks.jsonl');
let t = performance.now();
const ids = writeListenerJournal(journal, entries);
let bytes = 0;
for (const f of readdirSync(journalDir)) bytes += statSync(join(journalDir, f)).size;
console.log(
  `journal: ${entries.toLocaleString('en')} entries in ${ids.files} files with their indexes, ${(bytes / 1048576).toFixed(0)} MB, written in ${((performance.now() - t) / 1000).toFixed(1)} s`,
);

const sandbox = await startSandbox();
try {
  const r = await fetch(`${sandbox.info.base_url}/v1/cobros`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${sandbox.info.api_key}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ concepto: 'Pedido 1', monto: '1500.00', referencia: 'ref-1' }),
  });
  const cobro = (await r.json()).data;
  // The journal's entry k is about request k: request 1's is the oldest entry.
  if (cobro.id !== 1) throw new Error(`the request is ${cobro.id}, not 1`);
  const env = { ...sandbox.env, SVC_DATA_DIR: journalDir };
  const lookUpFiles = () =>
    readdirSync(journalDir).filter((f) => f.endsWith('.ids') || f.endsWith('.tmp'));
  const shows = (id) => (out) => {
    if (JSON.parse(out).id !== id) throw new Error(`webhook ver ${id} showed another entry`);
  };
  t = performance.now();
  await line('node -e "" (Node’s start)', ['-e', ''], env);
  await line(
    'webhook ver <oldest>, building',
    [svcBin, 'webhook', 'ver', ids.first, '--json'],
    env,
    {
      before: () => {
        for (const f of lookUpFiles()) rmSync(join(journalDir, f));
      },
      check: shows(ids.first),
    },
  );
  console.log(
    `  (look-up files after it: ${lookUpFiles().length} of ${ids.files - 1} previous files)`,
  );
  await line('webhook ver <newest>', [svcBin, 'webhook', 'ver', ids.last, '--json'], env, {
    check: shows(ids.last),
  });
  await line('webhook ver <oldest>', [svcBin, 'webhook', 'ver', ids.first, '--json'], env, {
    check: shows(ids.first),
  });
  await line('caso ref-1 (1 notification)', [svcBin, 'caso', 'ref-1', '--json'], env, {
    check: (out) => {
      const n = JSON.parse(out).notificaciones;
      if (!Array.isArray(n) || n.length !== 1)
        throw new Error(`caso: ${JSON.stringify(n)?.slice(0, 200)} notifications, not 1`);
    },
  });
} finally {
  await sandbox.stop();
}
console.log(
  `\nmedian of ${runs} runs, Node ${process.version}, commands of ${svcBin === bin ? 'this build' : svcBin}`,
);
rmSync(dir, { recursive: true, force: true });
process.exitCode = failed ? 1 : 0;
