// Benchmark of svc webhook listen (run after a build: node test/bench/run.mjs listen).
// The app (a minimal node:http server answering 200) and the listener (the built CLI,
// one line per event on stdout) run as their own processes. The journal is where svc
// keeps it by default, the user's data folder (~/.local/share/svc, or XDG_DATA_HOME),
// so the durable writes are those of the disk users have; its file system is printed
// (on tmpfs the figures would be those of no disk at all). Three parts, each run
// BENCH_RUNS times (default 3) and given as the median, with the load average beside it:
//   steady  500 events/s for 10 s, open loop: each event has a scheduled send time, is
//           sent then to the app directly and through the listener (which goes first
//           alternates), both timed from that scheduled time; the listener's added
//           latency is via - direct for each pair, and its p99 is the p99 of those.
//   busy    the same with one core kept busy by another process (a spinning node).
//   burst   10,000 signed events from 100 concurrent senders through the listener:
//           events/s answered, and events per durable write from the journal's own
//           count of its batches, with the journal's descriptor checked for O_DSYNC
//           in /proc (a batch counted without it would not be a durable write).
//   floor   the steady part again against test/bench/bare/listen-floor.cjs: the same
//           work (read, forward with undici, a group-committed O_DSYNC line, answer)
//           with nothing of svc's, so what the listener adds above Node's own cost
//           reads on any machine; and the disk alone: O_DSYNC appends of a journal-sized
//           line in the journal's folder at the same rate (no answer can be durable sooner).
// CPU per event is the listener's user + system time over the steady part after its
// warm-up. BENCH_PROFILE=DIR writes the listener's CPU profile (--cpu-prof) into DIR;
// BENCH_PARTS=steady (or steady,burst…) runs only those parts, to profile one of them.
// BENCH_PARTS=pieces (not run by default) runs the floor four times: reading and answering
// alone, then with the forward, with the durable line, with both: what each piece of
// the work costs Node itself here, the least any listener written in Node could spend.
// Asserts nothing.
import { spawn, spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import {
  closeSync,
  constants as fsConstants,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statfsSync,
  writeSync,
} from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, homedir, loadavg, tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
const FLOOR = fileURLToPath(new URL('./bare/listen-floor.cjs', import.meta.url));
const RATE = Number(process.env.BENCH_RATE ?? 500);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = 1;
const BURST = Number(process.env.BENCH_BURST ?? 10_000);
const SENDERS = 100;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SECRET = 'whsec_bench_only';
const PARTS = new Set(
  (process.env.BENCH_PARTS ?? 'steady,floor,busy,burst').split(',').map((p) => p.trim()),
);

// Where svc keeps its journal by default (src/config/profiles.ts dataDir), without SVC_DATA_DIR.
const dataDir =
  process.env.XDG_DATA_HOME && isAbsolute(process.env.XDG_DATA_HOME)
    ? join(process.env.XDG_DATA_HOME, 'svc')
    : join(homedir(), '.local', 'share', 'svc');
mkdirSync(dataDir, { recursive: true, mode: 0o700 });
const configDir = mkdtempSync(join(tmpdir(), 'svc-bench-listen-'));

const FS_TYPES = {
  0xef53: 'ext4',
  0x01021994: 'tmpfs',
  0x9123683e: 'btrfs',
  0x58465342: 'xfs',
  0x794c7630: 'overlayfs',
  0x6969: 'nfs',
  0x2fc12fc1: 'zfs',
  0x65735546: 'fuse',
};
function fileSystem(dir) {
  try {
    const df = spawnSync('df', ['-T', dir], { encoding: 'utf8' })
      .stdout.trim()
      .split('\n')
      .at(-1)
      ?.split(/\s+/);
    if (df?.length >= 2) return `${df[1]} (${df[0]})`;
  } catch {
    // no df: the type from statfs
  }
  const t = statfsSync(dir).type;
  return FS_TYPES[t] ?? `0x${t.toString(16)}`;
}
const load = () => loadavg()[0].toFixed(1);

const APP = `
const http = require('node:http');
const s = http.createServer((req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, {'content-length': 2}); res.end('ok'); }); });
s.keepAliveTimeout = 10000;
s.listen(0, '127.0.0.1', () => console.log(s.address().port));
`;

function spawnLine(args, env, match) {
  const proc = spawn(process.execPath, args, {
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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

const agent = new Agent({ keepAlive: true, maxSockets: 512 });
/** Sends one request; resolves with the time its answer ended and its status. */
function send(url, body, headers) {
  return new Promise((resolve) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent,
        headers: { ...headers, 'content-length': body.length },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ at: performance.now(), status: res.statusCode }));
      },
    );
    req.on('error', () => resolve({ at: performance.now(), status: 0 }));
    req.end(body);
  });
}

function signed(i) {
  const body = Buffer.from(
    JSON.stringify({
      event: 'payment.approved',
      cobro_id: i,
      codigo: 'K7QM3XW9PA',
      estado: 'PAGADA',
      monto: '1500.00',
      monto_cobrado: '1500.00',
      transaccion_id: i,
    }),
  );
  const ts = String(Math.floor(Date.now() / 1000));
  const sig = createHmac('sha256', SECRET).update(`${ts}.`).update(body).digest('hex');
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-svc-event': 'payment.approved',
      'x-svc-timestamp': ts,
      'x-svc-signature': `sha256=${sig}`,
    },
  };
}

// CPU time (user, system) of a process or thread, from /proc.
function cpu(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return { user: (Number(f[11]) * 1000) / 100, sys: (Number(f[12]) * 1000) / 100 }; // clock ticks of 10 ms
  } catch {
    return { user: NaN, sys: NaN };
  }
}
function threadCpu(pid) {
  const byName = {};
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const c = cpu(`${pid}/task/${tid}`);
      byName[name] = (byName[name] ?? 0) + c.user + c.sys;
    }
  } catch {
    // no /proc
  }
  return byName;
}
/** The flags the journal's descriptor was opened with, from /proc/<pid>/fdinfo: does it have O_DSYNC? */
function journalDsync(pid, path) {
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      let target;
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      if (target !== path) continue;
      const flags = parseInt(
        /flags:\s*(\d+)/.exec(readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8'))[1],
        8,
      );
      return (flags & 0o10000) !== 0 ? 'yes' : 'no (write + fdatasync)';
    }
  } catch {
    // no /proc
  }
  return 'unknown';
}

async function health(url) {
  const res = await fetch(url);
  return res.json();
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const median = (xs) => pct(xs, 50);

/** Steady open-loop run: RATE events/s for SECONDS after a warm-up, in pairs (direct, via). */
async function steady(appUrl, listenUrl, listenerPid) {
  const total = RATE * (SECONDS + WARMUP_SECONDS);
  const added = [];
  const direct = [];
  const via = [];
  let errors = 0;
  let unanswered = 0;
  let late = 0;
  const pending = [];
  const start = performance.now();
  let sent = 0;
  let warmCpu;
  await new Promise((resolve) => {
    const tick = () => {
      if (!warmCpu && sent >= RATE * WARMUP_SECONDS) warmCpu = cpu(listenerPid);
      // Open loop: whatever the schedule says is due is sent now, whatever the answers do,
      // and timed from its scheduled time (a sender that fell behind still counts the wait).
      const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * RATE));
      while (sent < due) {
        const i = sent++;
        const scheduled = start + (i * 1000) / RATE;
        const warm = i < RATE * WARMUP_SECONDS;
        const { body, headers } = signed(i);
        const pair =
          i % 2
            ? [send(listenUrl, body, headers), send(appUrl, body, headers)].reverse()
            : [send(appUrl, body, headers), send(listenUrl, body, headers)];
        pending.push(
          Promise.all(pair).then(([d, v]) => {
            if (v.status === 0) unanswered++;
            if (d.status !== 200 || v.status !== 200) return errors++;
            if (v.at > start + (SECONDS + WARMUP_SECONDS) * 1000 + 1000) late++;
            if (warm) return;
            direct.push(d.at - scheduled);
            via.push(v.at - scheduled);
            added.push(v.at - d.at);
          }),
        );
      }
      if (sent >= total) resolve();
      else setTimeout(tick, 1);
    };
    tick();
  });
  await Promise.all(pending);
  const used = cpu(listenerPid);
  const measured = RATE * SECONDS;
  return {
    errors,
    unanswered,
    late,
    total,
    elapsed: (performance.now() - start) / 1000,
    direct99: pct(direct, 99),
    via99: pct(via, 99),
    added50: pct(added, 50),
    added99: pct(added, 99),
    cpuUser: (used.user - warmCpu.user) / measured,
    cpuSys: (used.sys - warmCpu.sys) / measured,
  };
}

/** BURST events, SENDERS at a time, each sender sending its next as soon as the last is answered. */
async function burst(listenUrl, journalFile, listenerPid) {
  const events = Array.from({ length: BURST }, (_, i) => signed(1_000_000 + i));
  const before = (await health(listenUrl)).journal;
  const dsync = journalDsync(listenerPid, journalFile);
  const cpuBefore = cpu(listenerPid);
  let next = 0;
  let ok = 0;
  let errors = 0;
  let unanswered = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: SENDERS }, async () => {
      while (next < events.length) {
        const { body, headers } = events[next++];
        const r = await send(listenUrl, body, headers);
        if (r.status === 200) ok++;
        else errors++;
        if (r.status === 0) unanswered++;
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  const used = cpu(listenerPid);
  const after = (await health(listenUrl)).journal;
  const writes = after.syncs - before.syncs;
  const lines = after.lines - before.lines;
  return {
    ok,
    errors,
    unanswered,
    elapsed,
    rate: ok / elapsed,
    writes,
    perWrite: lines / writes,
    dsync,
    cpuPerEvent: (used.user + used.sys - cpuBefore.user - cpuBefore.sys) / BURST,
  };
}

/** The disk alone: RATE durable appends a second of a journal-sized line, each timed (ms). */
async function diskFloor(file) {
  const fd = openSync(
    file,
    fsConstants.O_APPEND | fsConstants.O_CREAT | fsConstants.O_WRONLY | fsConstants.O_DSYNC,
    0o600,
  );
  const line = Buffer.from(
    `${JSON.stringify({ ...signed(0).headers, body: signed(0).body.toString(), pad: 'x'.repeat(400) })}\n`,
  );
  const took = [];
  try {
    for (let i = 0; i < Math.min(RATE * 2, 1000); i++) {
      const t = performance.now();
      writeSync(fd, line);
      took.push(performance.now() - t);
      const wait = 1000 / RATE - (performance.now() - t);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
  return { p50: pct(took, 50), p99: pct(took, 99) };
}

/** What the floor is asked to do beside reading and answering (FLOOR_DOES), alone and together. */
const PIECES = ['', 'forward', 'journal', 'forward,journal'];
const pieceName = (does) => (does === '' ? 'read and answer' : `+ ${does.replace(',', ' + ')}`);

/** The steady part against listen-floor.cjs doing `does` (forward, journal, both, or neither). */
async function floorRun(appUrl, run, does) {
  const floorFile = join(dataDir, `webhooks.bench-floor-${process.pid}-${run}.jsonl`);
  const floor = await spawnLine([FLOOR, appUrl.href, floorFile], { FLOOR_DOES: does });
  try {
    const loadFloor = load();
    return {
      ...(await steady(appUrl, new URL(`http://127.0.0.1:${floor.value}/hook`), floor.proc.pid)),
      load: loadFloor,
    };
  } finally {
    floor.proc.kill('SIGINT');
    await new Promise((r) => floor.proc.once('exit', r));
    rmSync(floorFile, { force: true });
  }
}

async function oneRun(run) {
  const journal = join(dataDir, `webhooks.bench-${process.pid}-${run}.jsonl`);
  const app = await spawnLine(['-e', APP], {});
  const appUrl = new URL(`http://127.0.0.1:${app.value}/hook`);
  const profile = process.env.BENCH_PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
    : [];
  const listener = await spawnLine(
    [
      ...profile,
      BIN,
      'webhook',
      'listen',
      '--port',
      '0',
      '--forward-to',
      appUrl.href,
      '--journal',
      journal,
    ],
    { SVC_WEBHOOK_SECRET: SECRET, SVC_CONFIG_DIR: configDir, SVC_KEYRING: 'off' },
    /^Listo\. Esperando notificaciones en (\S+)/,
  );
  listener.proc.stdout.resume(); // one line per event: drained, as a terminal would
  const listenUrl = new URL(listener.value);
  const pid = listener.proc.pid;
  const out = {};
  try {
    if (PARTS.has('steady')) {
      const loadQuiet = load();
      out.quiet = { ...(await steady(appUrl, listenUrl, pid)), load: loadQuiet };
    }
    if (PARTS.has('floor')) {
      out.floor = await floorRun(appUrl, run, 'forward,journal');
      out.disk = await diskFloor(join(dataDir, `webhooks.bench-disk-${process.pid}-${run}.jsonl`));
    }
    if (PARTS.has('pieces')) {
      out.pieces = {};
      for (const does of PIECES) out.pieces[does] = await floorRun(appUrl, run, does);
    }
    if (PARTS.has('busy')) {
      const spinner = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
      await new Promise((r) => setTimeout(r, 300));
      const loadBusy = load();
      out.busy = { ...(await steady(appUrl, listenUrl, pid)), load: loadBusy };
      spinner.kill();
    }
    if (PARTS.has('burst')) {
      const loadBurst = load();
      out.burst = { ...(await burst(listenUrl, journal, pid)), load: loadBurst };
    }
    out.threads = threadCpu(pid);
    return out;
  } finally {
    listener.proc.kill('SIGINT');
    await new Promise((r) => listener.proc.once('exit', r));
    app.proc.kill();
    const journaled = readFileSync(journal, 'utf8').split('\n').filter(Boolean).length;
    const expected =
      (PARTS.has('steady') ? RATE * (SECONDS + WARMUP_SECONDS) : 0) +
      (PARTS.has('busy') ? RATE * (SECONDS + WARMUP_SECONDS) : 0) +
      (PARTS.has('burst') ? BURST : 0);
    // A send that got no answer at all (a connection reset under load) may never have
    // reached the listener: only those may be missing. An answered one never is.
    const unanswered =
      (out.quiet?.unanswered ?? 0) + (out.busy?.unanswered ?? 0) + (out.burst?.unanswered ?? 0);
    if (journaled !== expected)
      console.log(
        `  run ${run}: journaled ${journaled} lines of ${expected} sent; ${unanswered} sends got no answer`,
      );
    for (const f of [journal, `${journal}.1`, journal.replace(/\.jsonl$/, '.rechazados.jsonl')])
      rmSync(f, { force: true });
  }
}

const f = (ms) => `${ms.toFixed(2)} ms`;
console.log(
  `svc webhook listen on ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown cpu'}), Node ${process.version}`,
);
console.log(`  journal in ${dataDir} on ${fileSystem(dataDir)}`);
const runs = [];
for (let run = 1; run <= RUNS; run++) {
  const r = await oneRun(run);
  runs.push(r);
  const said = [];
  if (r.quiet) said.push(`steady p99 added ${f(r.quiet.added99)} (load ${r.quiet.load})`);
  if (r.busy)
    said.push(`busy core p99 added ${f(r.busy.added99)} late ${r.busy.late} (load ${r.busy.load})`);
  if (r.burst)
    said.push(
      `burst ${r.burst.rate.toFixed(0)} events/s, ${r.burst.perWrite.toFixed(1)} per durable write (load ${r.burst.load})`,
    );
  if (r.quiet) said.push(`CPU ${(r.quiet.cpuUser + r.quiet.cpuSys).toFixed(3)} ms/event`);
  if (r.floor)
    said.push(
      `floor: p99 added ${f(r.floor.added99)}, CPU ${(r.floor.cpuUser + r.floor.cpuSys).toFixed(3)} ms/event (load ${r.floor.load}); disk p99 ${f(r.disk.p99)}`,
    );
  console.log(`  run ${run}: ${said.join(', ')}`);
}
const m = (get) => median(runs.map(get));
console.log(`medians of ${RUNS} runs:`);
if (PARTS.has('steady')) {
  console.log(
    `  steady ${RATE}/s for ${SECONDS} s: added p50 ${f(m((r) => r.quiet.added50))}, p99 ${f(m((r) => r.quiet.added99))} (aim ≤ 5 ms); ` +
      `p99 from scheduled send: direct ${f(m((r) => r.quiet.direct99))}, via listener ${f(m((r) => r.quiet.via99))}; errors ${m((r) => r.quiet.errors)}; load ${m((r) => Number(r.quiet.load))}`,
  );
}
if (PARTS.has('busy')) {
  console.log(
    `  one core busy: added p99 ${f(m((r) => r.busy.added99))}; answered after the run + 1 s: ${m((r) => r.busy.late)} of ${runs[0].busy.total} (aim 0); ` +
      `whole run ${m((r) => r.busy.elapsed).toFixed(2)} s for ${SECONDS + WARMUP_SECONDS} s of sending; load ${m((r) => Number(r.busy.load))}`,
  );
}
if (PARTS.has('burst')) {
  console.log(
    `  burst of ${BURST} from ${SENDERS} senders: ${m((r) => r.burst.rate).toFixed(0)} events/s answered 2xx (aim ≥ 3000), errors ${m((r) => r.burst.errors)}; ` +
      `${m((r) => r.burst.writes)} durable writes, ${m((r) => r.burst.perWrite).toFixed(1)} events each (the journal's batches; O_DSYNC on its descriptor: ${runs[0].burst.dsync}); load ${m((r) => Number(r.burst.load))}`,
  );
}
if (PARTS.has('steady')) {
  const inBurst = PARTS.has('burst')
    ? `; in the burst ${m((r) => r.burst.cpuPerEvent).toFixed(3)} ms`
    : '';
  console.log(
    `  CPU per event (steady, after warm-up): ${m((r) => r.quiet.cpuUser + r.quiet.cpuSys).toFixed(3)} ms (user ${m((r) => r.quiet.cpuUser).toFixed(3)}, system ${m((r) => r.quiet.cpuSys).toFixed(3)}; aim ≤ 0.35)${inBurst}`,
  );
}
if (PARTS.has('floor')) {
  console.log(
    `  floor (the same work with Node and undici alone, bare/listen-floor.cjs) at ${RATE}/s: added p50 ${f(m((r) => r.floor.added50))}, p99 ${f(m((r) => r.floor.added99))}; ` +
      `CPU ${m((r) => r.floor.cpuUser + r.floor.cpuSys).toFixed(3)} ms/event (user ${m((r) => r.floor.cpuUser).toFixed(3)}, system ${m((r) => r.floor.cpuSys).toFixed(3)}); load ${m((r) => Number(r.floor.load))}`,
  );
  if (PARTS.has('steady')) {
    console.log(
      `  listener / floor: CPU ${(m((r) => r.quiet.cpuUser + r.quiet.cpuSys) / m((r) => r.floor.cpuUser + r.floor.cpuSys)).toFixed(2)}×, added p99 ${(m((r) => r.quiet.added99) / m((r) => r.floor.added99)).toFixed(2)}×`,
    );
  }
  console.log(
    `  the disk alone: an O_DSYNC append of a journal line at ${RATE}/s takes p50 ${f(m((r) => r.disk.p50))}, p99 ${f(m((r) => r.disk.p99))} (no answer can be durable sooner)`,
  );
}
if (PARTS.has('pieces')) {
  console.log(
    `  what each piece costs Node alone (bare/listen-floor.cjs with FLOOR_DOES) at ${RATE}/s, CPU per event and added p99:`,
  );
  for (const does of PIECES) {
    const cpuMs = m((r) => r.pieces[does].cpuUser + r.pieces[does].cpuSys);
    console.log(
      `    ${pieceName(does).padEnd(28)} ${cpuMs.toFixed(3)} ms (user ${m((r) => r.pieces[does].cpuUser).toFixed(3)}, system ${m((r) => r.pieces[does].cpuSys).toFixed(3)}), p99 ${f(m((r) => r.pieces[does].added99))}; load ${m((r) => Number(r.pieces[does].load))}`,
    );
  }
}
console.log(
  `  listener CPU by thread (last run, ms): ${Object.entries(runs.at(-1).threads)
    .map(([k, v]) => `${k} ${Math.round(v)}`)
    .join(', ')}`,
);
rmSync(configDir, { recursive: true, force: true });
