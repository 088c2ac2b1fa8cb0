// Benchmark of a large sandbox data file (run after a build: node test/bench/run.mjs datafile).
// Builds a journal of BENCH_DATA_MB (default 600, past the 512 MiB a file could be read
// as one string) from the lines a real sandbox writes for one request's life (created,
// paid in part, refunded, each event settled), repeated with fresh ids. Then, each in
// its own process: the time and peak memory to open it (replay only), `svc sandbox
// compactar` on it, and a `svc sandbox` start on the compacted file. Prints figures;
// asserts nothing about time.
import { spawn } from 'node:child_process';
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
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
const storeJs = new URL('../../dist/sandbox/store.js', import.meta.url).href;
const peak = fileURLToPath(new URL('../helpers/report-peak-rss.mjs', import.meta.url));
const targetMb = Number(process.env.BENCH_DATA_MB ?? 600);
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-data-'));
const file = join(dir, 'big.jsonl');
const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MB`;

// One request's life, as a real sandbox journals it.
const { startSandbox } = await import(new URL('../../dist/sandbox/index.js', import.meta.url).href);
const seedFile = join(dir, 'seed.jsonl');
const sb = await startSandbox({ port: 0, dataFile: seedFile, readyDelayMs: 0 });
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
const header = JSON.parse(headerLine);
header.meta.merchants[0].webhookUrl = 'http://127.0.0.1:9/hook';
const templates = life.map((l) => JSON.parse(l));

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const codigoOf = (k) => {
  let s = '';
  for (let i = 0; i < 10; i++, k = Math.floor(k / 32)) s += ALPHABET[k % 32];
  return s;
};

// Request k: ids k, event numbers 3(k-1)+1…3k.
function lifeOf(k) {
  const codigo = codigoOf(k);
  const out = [];
  let n = 3 * (k - 1);
  for (const t of templates) {
    const line = structuredClone(t);
    for (const [kind, rec] of line.c) {
      const d = rec.wire;
      d.id = k;
      if (kind === 'cobro') {
        d.codigo = codigo;
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
  return out.join('\n') + '\n';
}

let t0 = performance.now();
const fd = openSync(file, 'w', 0o600);
writeSync(fd, JSON.stringify(header) + '\n');
let size = 0;
let requests = 0;
while (size < targetMb * 1024 * 1024) {
  let chunk = '';
  for (let i = 0; i < 1000; i++) chunk += lifeOf(++requests);
  size += writeSync(fd, chunk);
}
closeSync(fd);
size = statSync(file).size;
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
