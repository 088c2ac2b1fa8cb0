// Benchmark of svc webhook listen (run after a build: node test/bench/run.mjs listen).
// The app (a minimal node:http server answering 200) and the listener (the built CLI,
// journal fsynced, one line per event on stdout) run as their own processes; this one
// sends signed notifications at a fixed rate, open loop, alternating "direct to the
// app" and "through the listener", so both see the same conditions. The listener's
// added latency is the difference of the two distributions. Asserts nothing.
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
const RATE = Number(process.env.BENCH_RATE ?? 500); // events per second through the listener
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_SECONDS = 1;
const SECRET = 'whsec_bench_only';
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-listen-'));
const journal = join(dir, 'webhooks.jsonl');

const APP = `
const http = require('node:http');
const s = http.createServer((req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, {'content-length': 2}); res.end('ok'); }); });
s.keepAliveTimeout = 10000;
s.listen(0, '127.0.0.1', () => console.log(s.address().port));
`;

function spawnLine(args, env, match) {
  const proc = spawn(process.execPath, args, { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = '';
    const src = match ? proc.stderr : proc.stdout;
    if (!match) proc.stderr.on('data', (d) => (err += d));
    const rl = createInterface({ input: src });
    rl.on('line', (line) => {
      if (match) {
        const m = match.exec(line);
        if (m) resolve({ proc, value: m[1] });
      } else {
        resolve({ proc, value: line.trim() });
      }
    });
    proc.once('exit', (code) => reject(new Error(`exited with ${code}: ${err}`)));
  });
}

const app = await spawnLine(['-e', APP], {});
const appUrl = `http://127.0.0.1:${app.value}/hook`;
const appTarget = new URL(appUrl);
// BENCH_PROFILE=DIR: the listener writes a CPU profile (node --cpu-prof) into DIR as it exits.
const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
const listener = await spawnLine(
  [...profile, BIN, 'webhook', 'listen', '--port', '0', '--forward-to', appUrl, '--journal', journal],
  { SVC_WEBHOOK_SECRET: SECRET, SVC_CONFIG_DIR: dir, SVC_DATA_DIR: dir },
  /^Listo\. Esperando notificaciones en (\S+)/,
);
listener.proc.stdout.resume(); // one line per event: drained, as a terminal would
const listenUrl = new URL(listener.value);

const agent = new Agent({ keepAlive: true, maxSockets: 512 });
function send(url, body, headers) {
  return new Promise((resolve) => {
    const started = performance.now();
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers: { ...headers, 'content-length': body.length } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ ms: performance.now() - started, status: res.statusCode }));
      },
    );
    req.on('error', () => resolve({ ms: performance.now() - started, status: 0 }));
    req.end(body);
  });
}

function signed(i) {
  const body = Buffer.from(
    JSON.stringify({ event: 'payment.approved', cobro_id: i, codigo: 'K7QM3XW9PA', estado: 'PAGADA', monto: '1500.00', monto_cobrado: '1500.00', transaccion_id: i }),
  );
  const ts = String(Math.floor(Date.now() / 1000));
  const sig = createHmac('sha256', SECRET).update(`${ts}.`).update(body).digest('hex');
  return {
    body,
    headers: { 'content-type': 'application/json', 'x-svc-event': 'payment.approved', 'x-svc-timestamp': ts, 'x-svc-signature': `sha256=${sig}` },
  };
}

// Durable journal writes (group commit), from the listener's health answer.
async function journalSyncs() {
  const res = await fetch(listenUrl);
  const health = await res.json();
  return health.journal?.syncs ?? health.journal?.fsyncs ?? NaN;
}
const syncsStart = await journalSyncs();
const listenerCpuStart = cpuMs(listener.proc.pid);
const appCpuStart = cpuMs(app.proc.pid);
const direct = [];
const via = [];
let errors = 0;
const pending = [];
const total = RATE * (SECONDS + WARMUP_SECONDS);
const start = performance.now();
let sent = 0;
// CPU is counted again from the end of the warm-up: start-up and the first JIT work are not per event.
let warmCpu;
await new Promise((resolve) => {
  const tick = () => {
    if (!warmCpu && sent >= RATE * WARMUP_SECONDS) warmCpu = { listener: cpuMs(listener.proc.pid), app: cpuMs(app.proc.pid) };
    // Open loop: send whatever the schedule says is due, whatever the answers do.
    const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * RATE));
    while (sent < due) {
      const i = sent++;
      const warm = i < RATE * WARMUP_SECONDS;
      const { body, headers } = signed(i);
      pending.push(
        send(appTarget, body, headers).then((r) => {
          if (r.status !== 200) errors++;
          else if (!warm) direct.push(r.ms);
        }),
        send(listenUrl, body, headers).then((r) => {
          if (r.status !== 200) errors++;
          else if (!warm) via.push(r.ms);
        }),
      );
    }
    if (sent >= total) resolve();
    else setTimeout(tick, 1);
  };
  tick();
});
await Promise.all(pending);
const elapsed = (performance.now() - start) / 1000;
const syncs = (await journalSyncs()) - syncsStart;

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const f = (ms) => `${ms.toFixed(2)} ms`;
// CPU time of a process's threads grouped by name (main thread, libuv pool, V8 helpers), from /proc.
function threadCpu(pid) {
  const byName = {};
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      byName[name] = (byName[name] ?? 0) + cpuMs(`${pid}/task/${tid}`);
    }
  } catch {
    // no /proc: the total is all there is
  }
  return byName;
}
// CPU time of each process (user + system), from /proc where there is one.
function cpuMs(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // clock ticks of 10 ms
  } catch {
    return NaN;
  }
}
const listenerCpu = cpuMs(listener.proc.pid) - listenerCpuStart;
const threads = threadCpu(listener.proc.pid);
const appCpu = cpuMs(app.proc.pid) - appCpuStart;
const measured = RATE * SECONDS;
const listenerCpuWarm = cpuMs(listener.proc.pid) - warmCpu.listener;
const appCpuWarm = cpuMs(app.proc.pid) - warmCpu.app;
listener.proc.kill('SIGINT');
await new Promise((r) => listener.proc.once('exit', r));
app.proc.kill();
const journaled = readFileSync(journal, 'utf8').split('\n').filter(Boolean).length;
rmSync(dir, { recursive: true, force: true });

const load = (await import('node:os')).loadavg()[0].toFixed(1);
console.log(`svc webhook listen: ${RATE} events/s for ${SECONDS} s (+${WARMUP_SECONDS} s warm-up), same rate straight to the app, alternating (load average ${load} on ${(await import('node:os')).cpus().length} cores)`);
console.log(`  sent ${total} through the listener in ${elapsed.toFixed(2)} s; errors ${errors}; journaled ${journaled}/${total}`);
console.log(`                    p50        p90        p99        max`);
for (const [name, xs] of [['direct to app', direct], ['via listener', via]]) {
  console.log(`  ${name.padEnd(15)} ${[50, 90, 99, 100].map((p) => f(pct(xs, p)).padStart(10)).join(' ')}`);
}
console.log(`  CPU per event: listener ${(listenerCpu / total).toFixed(3)} ms, app ${(appCpu / (2 * total)).toFixed(3)} ms per request (whole run)`);
console.log(`  CPU per event after warm-up: listener ${(listenerCpuWarm / measured).toFixed(3)} ms, app ${(appCpuWarm / (2 * measured)).toFixed(3)} ms per request`);
console.log(`  journal: ${Number.isNaN(syncs) ? 'durable writes not reported by this listener' : `${syncs} durable writes (fsync or O_DSYNC), ${(syncs / elapsed).toFixed(0)}/s, ${(total / syncs).toFixed(1)} events each`}`);
console.log(`  listener CPU by thread (whole run, ms): ${Object.entries(threads).map(([k, v]) => `${k} ${Math.round(v)}`).join(', ')}`);
const added50 = pct(via, 50) - pct(direct, 50);
const added99 = pct(via, 99) - pct(direct, 99);
console.log(`  added by the listener: p50 ${f(added50)}, p99 ${f(added99)}  (aim: p99 added < 5 ms at 500/s)`);
