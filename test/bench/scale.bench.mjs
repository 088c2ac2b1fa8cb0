// Benchmark of a merchant's year (run after a build: node test/bench/run.mjs scale):
// for each size (BENCH_SCALE, default 10000,100000 requests; BENCH_SCALE_1M=1 adds
// 1,000,000), a sandbox data file of that many requests, each created, paid in part
// and refunded, with its settlements and notifications, and a listener journal of
// that many entries. Prints the sandbox's start (time to ready, resident memory at
// rest and peak) and, median of BENCH_RUNS (3) runs each, wall time and peak memory
// of `cobro listar --limit 20`, `liquidaciones --limit 20` (totals of every
// settlement), `caso <código>`, and `webhook ver <id>` of the newest and of the oldest
// entry; then each figure over the smallest size's. BENCH_SVC names another build's
// bin/svc.js for the commands (the sandbox stays this one's), to set two builds side
// by side. Figures only: nothing here asserts a time.
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, median, runPeak, startSandbox } from './helpers.mjs';

const svcBin = process.env.BENCH_SVC ?? bin;
const runs = Number(process.env.BENCH_RUNS ?? 3);
const sizes = (process.env.BENCH_SCALE ?? '10000,100000').split(',').map(Number);
if (process.env.BENCH_SCALE_1M === '1') sizes.push(1_000_000);
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-scale-'));
const mb = (kb) => `${(kb / 1024).toFixed(0)} MB`;

// One request's life, as a real sandbox journals it.
const { startSandbox: inProcess } = await import(
  new URL('../../dist/sandbox/index.js', import.meta.url).href
);
const seedFile = join(dir, 'seed.jsonl');
const sb = await inProcess({ port: 0, dataFile: seedFile, readyDelayMs: 0 });
const call = async (method, path, body) => {
  const r = await fetch(sb.baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${sb.apiKey}`, 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  });
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
  return (await r.json()).data;
};
const c = await call('POST', '/v1/cobros', {
  concepto: 'Seña del pedido N° 1042, envío a domicilio (3 bultos)',
  monto: '1500.00',
  referencia: 'ref-1042',
});
await call('POST', `/_sandbox/cobros/${c.id}/pagar`, { monto: '900.00', medio: 'credito' });
await call('POST', `/v1/cobros/${c.id}/devoluciones`, { monto: '100.00', transaccion_id: 1 });
await sb.close();
const [headerLine, ...life] = readFileSync(seedFile, 'utf8').trim().split('\n');
const templates = life.map((l) => JSON.parse(l));

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const codigoOf = (k) => {
  let s = '';
  for (let i = 0; i < 10; i++, k = Math.floor(k / 32)) s += ALPHABET[k % 32];
  return s;
};

/** Request k's lines: ids k, its events numbered after the previous requests'. */
function lifeOf(k, firstSeq) {
  const codigo = codigoOf(k);
  const out = [];
  let n = firstSeq;
  for (const t of templates) {
    const line = structuredClone(t);
    for (const [kind, rec] of line.c ?? []) {
      const d = rec.wire;
      d.id = k;
      if (kind === 'cobro') {
        d.codigo = codigo;
        d.referencia = `ref-${k}`;
        d.url = `http://127.0.0.1/pagar/${codigo}`;
        rec.cvu = `0000003100${String(k).padStart(12, '0')}`;
        rec.qr = `SVCQR1|${codigo}|${d.monto}`;
      } else d.cobro_id = k;
      if (kind === 'transaccion') d.codigo = `OP-${String(k).padStart(10, '0')}`;
      if (kind === 'liquidacion') d.transaccion_id = k;
    }
    for (const e of line.e ?? []) {
      e.seq = ++n;
      e.body.cobro_id = k;
      e.body.codigo = codigo;
      if (e.body.transaccion_id !== null) e.body.transaccion_id = k;
    }
    out.push(JSON.stringify(line));
    if (line.e?.length) out.push(JSON.stringify({ s: line.e.map((e) => e.seq) }));
  }
  return { text: out.join('\n') + '\n', seq: n };
}

function writeData(file, n) {
  const fd = openSync(file, 'w', 0o600);
  writeSync(fd, headerLine + '\n');
  let seq = 0;
  for (let k = 1; k <= n;) {
    let chunk = '';
    for (let i = 0; i < 1000 && k <= n; i++, k++) {
      const l = lifeOf(k, seq);
      chunk += l.text;
      seq = l.seq;
    }
    writeSync(fd, chunk);
  }
  closeSync(fd);
}

/** A listener journal of n entries (about 1 KiB each), ids evt_ and k in hex; returns the first and last id. */
function writeJournal(file, n) {
  const fd = openSync(file, 'w', 0o600);
  const id = (k) => `evt_${k.toString(16).padStart(12, '0')}`;
  for (let k = 1; k <= n;) {
    let chunk = '';
    for (let i = 0; i < 1000 && k <= n; i++, k++) {
      const body = JSON.stringify({
        event: 'payment.approved',
        cobro_id: k,
        codigo: codigoOf(k),
        estado: 'PAGADA',
        monto: '1500.00',
        referencia: `ref-${k}`,
        medio: 'credito',
        fecha: '2026-03-01 10:00:00',
        pad: 'x'.repeat(400),
      });
      chunk += `${JSON.stringify({
        id: id(k),
        received_at: new Date(Date.UTC(2026, 0, 1) + k * 30_000).toISOString(),
        source: 'listen',
        method: 'POST',
        path: '/',
        headers: { 'content-type': 'application/json', 'x-svc-event': 'payment.approved' },
        body,
        body_encoding: 'utf8',
        bytes: body.length,
        event: 'payment.approved',
        cobro_id: k,
        estado: 'PAGADA',
        monto: '1500.00',
        verification: { valid: true },
        outcome: 'forwarded',
        target: 'http://127.0.0.1:3000/webhooks',
        status: 200,
        answered: 200,
        latency_ms: 3,
      })}\n`;
    }
    writeSync(fd, chunk);
  }
  closeSync(fd);
  return { first: id(1), last: id(n) };
}

/** VmRSS and VmHWM of a running process, in KB. */
function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1]);
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

async function measure(args, env) {
  const all = [];
  for (let i = 0; i < runs; i++) all.push(await runPeak([svcBin, ...args], env));
  return { ms: median(all.map((r) => r.ms)), kb: median(all.map((r) => r.kb)) };
}

const results = [];
for (const n of sizes) {
  const data = join(dir, `year-${n}.jsonl`);
  let t = performance.now();
  writeData(data, n);
  const dataBytes = statSync(data).size;
  const journalDir = join(dir, `journal-${n}`);
  const { mkdirSync } = await import('node:fs');
  mkdirSync(journalDir);
  const ids = writeJournal(join(journalDir, 'webhooks.jsonl'), n);
  const journalBytes = statSync(join(journalDir, 'webhooks.jsonl')).size;
  console.log(
    `\n${n.toLocaleString('en')} requests: data file ${(dataBytes / 1048576).toFixed(0)} MB, journal ${(journalBytes / 1048576).toFixed(0)} MB, written in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  t = performance.now();
  const sandbox = await startSandbox(['--data', data], ['--max-old-space-size=8192']);
  const atRest = memoryOf(sandbox.proc.pid);
  const start = { ms: sandbox.readyMs, rss: atRest.rss, hwm: atRest.hwm };
  const env = { ...sandbox.env, SVC_DATA_DIR: journalDir };
  const target = codigoOf(Math.ceil(n / 2));
  const row = { n, start, cmds: {} };
  const cmds = [
    ['cobro listar --limit 20', ['cobro', 'listar', '--limit', '20']],
    ['liquidaciones --limit 20', ['liquidaciones', '--limit', '20']],
    [`caso <código>`, ['caso', target, '--json']],
    ['webhook ver <newest>', ['webhook', 'ver', ids.last, '--json']],
    ['webhook ver <oldest>', ['webhook', 'ver', ids.first, '--json']],
    ['webhook eventos --limit 20', ['webhook', 'eventos', '--limit', '20', '--json']],
  ];
  for (const [name, args] of cmds) {
    try {
      row.cmds[name] = await measure(args, env);
    } catch (err) {
      row.cmds[name] = { error: err.message.split('\n')[0].slice(0, 160) };
    }
  }
  const after = memoryOf(sandbox.proc.pid);
  start.hwm = after.hwm;
  await sandbox.stop();
  rmSync(data, { force: true });
  rmSync(journalDir, { recursive: true, force: true });
  results.push(row);
  console.log(
    `  sandbox start: ready in ${(start.ms / 1000).toFixed(1)} s, ${mb(start.rss)} at rest, ${mb(start.hwm)} peak`,
  );
  for (const [name, r] of Object.entries(row.cmds))
    console.log(
      r.error
        ? `  ${name.padEnd(28)} failed: ${r.error}`
        : `  ${name.padEnd(28)} ${r.ms.toFixed(0).padStart(7)} ms  ${mb(r.kb).padStart(7)} peak`,
    );
}

if (results.length > 1) {
  const base = results[0];
  console.log(`\nratios over ${base.n.toLocaleString('en')} requests (time, peak memory):`);
  for (const r of results.slice(1)) {
    console.log(`  ${r.n.toLocaleString('en')} requests (${r.n / base.n}× the data):`);
    console.log(
      `    sandbox start${' '.repeat(15)} ${(r.start.ms / base.start.ms).toFixed(1)}×, ${(r.start.hwm / base.start.hwm).toFixed(1)}×`,
    );
    for (const [name, x] of Object.entries(r.cmds)) {
      const b = base.cmds[name];
      if (x.error || b.error) continue;
      console.log(
        `    ${name.padEnd(28)} ${(x.ms / b.ms).toFixed(1)}×, ${(x.kb / b.kb).toFixed(1)}×`,
      );
    }
  }
}
console.log(
  `\nmedian of ${runs} runs, Node ${process.version}, commands of ${svcBin === bin ? 'this build' : svcBin}`,
);
rmSync(dir, { recursive: true, force: true });
