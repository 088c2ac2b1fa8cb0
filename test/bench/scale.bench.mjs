// Benchmark of a merchant's year (run after a build: node test/bench/run.mjs scale): for
// each size (BENCH_SCALE, default 100000 requests; BENCH_SCALE_1M=1 adds 1,000,000, the
// only one with BENCH_SCALE= empty), a data file made by `svc sandbox --generar N` (a
// year of requests paid, in part, expired, rejected and refunded, with their settlements
// and notifications) and one listener journal of BENCH_JOURNAL (1,000,000) entries, in
// files of 64 MiB with their indexes as the listener leaves them (journal-files.mjs).
// The sandbox runs as users start it, its lists in pages of 100 (`next` with `tras=`):
// svc reads those pages, and so does the bare script beside it (bare/scale.mjs: node:http
// and JSON.parse, following each reply's `next` and stopping where svc may), the same
// work through the same API.
// Prints, each the median of BENCH_RUNS (3) runs, svc beside the bare script, wall time
// and peak memory of:
//   sandbox start on that file (beside: reading its bytes and JSON.parse of each line),
//     with its resident memory at rest;
//   cobro listar --limit 20, cobro listar --csv, liquidaciones --limit 20 (totals of
//   every settlement), caso <referencia>, cobro crear --lote (BENCH_LOTE, 10,000 rows;
//   each run makes new requests), devolver --lote --plan (10,000 rows), and webhook ver
//   of the newest and the oldest journal entry;
// with /proc/loadavg before and after each line. A command that fails is printed with
// its exit and first line, and the bench exits 1. BENCH_SVC names another build's
// bin/svc.js for the commands (the sandbox stays this one's). BENCH_DATA_<N> (e.g.
// BENCH_DATA_100000) names a data file `--generar N` made earlier, copied instead of
// generated again. Figures only: nothing here asserts a time.
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bin, median, runPeak, startSandbox } from './helpers.mjs';
import { writeListenerJournal } from './journal-files.mjs';

const svcBin = process.env.BENCH_SVC ?? bin;
const bare = fileURLToPath(new URL('./bare/scale.mjs', import.meta.url));
const runs = Number(process.env.BENCH_RUNS ?? 3);
const sizes = (process.env.BENCH_SCALE ?? '100000').split(',').filter(Boolean).map(Number);
if (process.env.BENCH_SCALE_1M === '1') sizes.push(1_000_000);
const journalEntries = Number(process.env.BENCH_JOURNAL ?? 1_000_000);
const loteRows = Number(process.env.BENCH_LOTE ?? 10_000);
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-scale-'));
const mb = (kb) => `${(kb / 1024).toFixed(0)} MB`;
/** A ratio to one decimal, or two below 0.1 (0.0× says nothing). */
const times = (r) => `${r.toFixed(r < 0.1 ? 2 : 1)}×`;
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
let failed = 0;

/** VmRSS and VmHWM of a running process, in KB. */
function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1]);
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** Median wall time and peak memory of `runs` runs of `args` (fresh arguments per run from a function). */
async function measure(args, env) {
  const all = [];
  for (let i = 0; i < runs; i++)
    all.push(await runPeak(typeof args === 'function' ? args(i) : args, env));
  return { ms: median(all.map((r) => r.ms)), kb: median(all.map((r) => r.kb)) };
}

function row(name, svc, floor, before) {
  const cell = (r) =>
    r.error ? `failed: ${r.error}` : `${r.ms.toFixed(0).padStart(7)} ms ${mb(r.kb).padStart(7)}`;
  const ratio =
    svc.error || floor.error ? '' : `${times(svc.ms / floor.ms)}, ${times(svc.kb / floor.kb)}`;
  console.log(
    `  ${name.padEnd(31)} ${cell(svc).padEnd(24)} ${cell(floor).padEnd(24)} ${ratio.padEnd(11)} ${before} → ${load()}`,
  );
}

async function both(name, svcArgs, bareArgs, env) {
  const before = load();
  const result = async (args) => {
    try {
      return await measure(args, env);
    } catch (err) {
      failed++;
      return { error: err.message.split('\n')[0].slice(0, 200) };
    }
  };
  const s = await result(svcArgs);
  const b = await result(bareArgs);
  row(name, s, b, before);
}

const journalDir = join(dir, 'journal');
mkdirSync(journalDir);
let t = performance.now();
// As the listener leaves it: files of 64 MiB, each with its index (journal-files.mjs).
const ids = writeListenerJournal(join(journalDir, 'webhooks.jsonl'), journalEntries);
console.log(
  `journal: ${journalEntries.toLocaleString('en')} entries in ${ids.files} files of up to 64 MiB, written in ${((performance.now() - t) / 1000).toFixed(1)} s`,
);

for (const n of sizes) {
  const data = join(dir, `year-${n}.jsonl`);
  let before = load();
  t = performance.now();
  let made;
  const reuse = process.env[`BENCH_DATA_${n}`];
  if (reuse) {
    // Copied, not used in place: the batches below add requests to the file.
    copyFileSync(reuse, data);
    made = `copied from ${reuse} in ${((performance.now() - t) / 1000).toFixed(1)} s`;
  } else {
    const maker = await startSandbox(
      ['--data', data, '--generar', String(n)],
      ['--max-old-space-size=8192'],
      { paged: true },
    );
    const madeIn = performance.now() - t;
    await maker.stop();
    const said = /generados [^\n]*\)/.exec(maker.stderr())?.[0] ?? '';
    made = `made by --generar in ${(madeIn / 1000).toFixed(1)} s (${said})`;
  }
  console.log(
    `\n${n.toLocaleString('en')} requests: data file ${(statSync(data).size / 1048576).toFixed(0)} MB, ${made} (load ${before} → ${load()})`,
  );
  console.log(
    `  ${'command'.padEnd(31)} ${'svc'.padEnd(24)} ${'bare script'.padEnd(24)} ${'svc/bare'.padEnd(11)} load before → after`,
  );

  // The start: ready line, memory at rest; beside it, reading the file's bytes and JSON.parse of each line.
  before = load();
  const starts = [];
  let sandbox;
  for (let i = 0; i < runs; i++) {
    if (sandbox) await sandbox.stop();
    sandbox = await startSandbox(['--data', data], [], { paged: true });
    // At rest: five seconds after ready, nothing asked (V8 hands freed pages back within seconds).
    await new Promise((r) => setTimeout(r, 5000));
    starts.push({ ms: sandbox.readyMs, kb: memoryOf(sandbox.proc.pid).rss });
  }
  const start = { ms: median(starts.map((s) => s.ms)), kb: median(starts.map((s) => s.kb)) };
  let floor;
  try {
    floor = await measure([bare, 'read-data', data], process.env);
  } catch (err) {
    floor = { error: err.message.split('\n')[0] };
  }
  row('sandbox start (rss at rest)', start, floor, before);

  const env = { ...sandbox.env, SVC_DATA_DIR: journalDir };
  const ref = `PED-${String(Math.ceil(n / 2)).padStart(7, '0')}`;
  await both(
    'cobro listar --limit 20',
    [svcBin, 'cobro', 'listar', '--limit', '20'],
    [bare, 'list-limit', '20'],
    env,
  );
  await both('cobro listar --csv', [svcBin, 'cobro', 'listar', '--csv'], [bare, 'list-csv'], env);
  await both(
    'liquidaciones (totals)',
    [svcBin, 'liquidaciones', '--limit', '20'],
    [bare, 'totals'],
    env,
  );
  await both(`caso ${ref}`, [svcBin, 'caso', ref, '--json'], [bare, 'caso', ref], env);

  // 10,000 new requests per run (fresh referencias), svc's and the bare script's alike.
  const lote = (who) => (i) => {
    const file = join(dir, `lote-${n}-${who}-${i}.csv`);
    const lines = ['concepto,monto,referencia'];
    for (let k = 1; k <= loteRows; k++)
      lines.push(`Cuota ${who} ${i},1500.00,L-${n}-${who}-${i}-${k}`);
    writeFileSync(file, lines.join('\n') + '\n');
    return file;
  };
  const svcLote = lote('svc');
  const bareLote = lote('bare');
  await both(
    `cobro crear --lote (${loteRows.toLocaleString('en')})`,
    (i) => [svcBin, 'cobro', 'crear', '--lote', svcLote(i)],
    (i) => [bare, 'lote', bareLote(i)],
    env,
  );

  // Refund rows of paid requests, planned only (nothing changes).
  const paid = [];
  for (
    let next = `${sandbox.info.base_url}/v1/cobros?estado=PAGADA`;
    next && paid.length < loteRows;
  ) {
    const page = await (
      await fetch(next, { headers: { authorization: `Bearer ${sandbox.info.api_key}` } })
    ).json();
    for (const c of page.data) if (paid.length < loteRows) paid.push(c.referencia);
    next = page.next;
  }
  const refunds = join(dir, `devoluciones-${n}.csv`);
  writeFileSync(refunds, ['cobro,monto', ...paid.map((r) => `${r},total`)].join('\n') + '\n');
  await both(
    `devolver --lote --plan (${paid.length.toLocaleString('en')})`,
    (i) => [svcBin, 'devolver', '--lote', refunds, '--plan', join(dir, `plan-${n}-${i}.json`)],
    [bare, 'plan', refunds],
    env,
  );
  const journal = join(journalDir, 'webhooks.jsonl');
  // The first look-up of an old entry builds the previous files' look-up files, once
  // (a listener writes them as it rotates): not timed.
  spawnSync(process.execPath, [svcBin, 'webhook', 'ver', ids.first, '--json'], {
    env: { ...process.env, ...env },
    stdio: 'ignore',
  });
  await both(
    'webhook ver <newest>',
    [svcBin, 'webhook', 'ver', ids.last, '--json'],
    [bare, 'journal', journal, ids.last],
    env,
  );
  await both(
    'webhook ver <oldest>',
    [svcBin, 'webhook', 'ver', ids.first, '--json'],
    [bare, 'journal', journal, ids.first],
    env,
  );

  const after = memoryOf(sandbox.proc.pid);
  console.log(`  sandbox after the commands: ${mb(after.rss)} resident, ${mb(after.hwm)} peak`);
  await sandbox.stop();
  rmSync(data, { force: true });
}

console.log(
  `\nmedian of ${runs} runs, Node ${process.version}, commands of ${svcBin === bin ? 'this build' : svcBin}; ratios are svc over the bare script (time, peak memory)`,
);
rmSync(dir, { recursive: true, force: true });
process.exitCode = failed ? 1 : 0;
