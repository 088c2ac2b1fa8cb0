// What the benchmarks share: a sandbox of the built svc started on port 0 (its address
// and key, and an environment for svc pointing at it), and one run of a command with
// its wall time and peak memory (the report-peak-rss preload). Not a bench itself.
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const bin = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
export const peak = fileURLToPath(new URL('../helpers/report-peak-rss.mjs', import.meta.url));

/**
 * `svc sandbox --port 0 --json --ready-delay 0 --por-pagina 0 ...args` (no request's cvu/qr is still
 * being prepared while runs are timed); resolves once it says where it listens, with
 * the time that took. `env`: svc's environment pointed at it, a config folder of its own.
 * `{ paged: true }` leaves out `--por-pagina 0`: lists in the pages users meet.
 */
export async function startSandbox(args = [], nodeArgs = [], { paged = false } = {}) {
  const t0 = process.hrtime.bigint();
  const proc = spawn(
    process.execPath,
    // Whole lists (--por-pagina 0, not the sandbox's pages of 100) unless paged: the bare
    // scripts timed beside svc read a list in one reply, so the figures stay comparable
    // with earlier runs.
    [
      ...nodeArgs,
      bin,
      'sandbox',
      '--port',
      '0',
      '--json',
      '--ready-delay',
      '0',
      ...(paged ? [] : ['--por-pagina', '0']),
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let err = '';
  proc.stderr.on('data', (d) => (err += d));
  const info = await new Promise((resolve, reject) => {
    createInterface({ input: proc.stdout }).once('line', (l) => resolve(JSON.parse(l)));
    proc.once('exit', (code) => reject(new Error(`sandbox exited ${code}: ${err}`)));
  });
  const readyMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const env = {
    ...process.env,
    SVC_BASE_URL: info.base_url,
    SVC_API_KEY: info.api_key,
    SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-bench-')),
    NO_COLOR: '1',
  };
  return {
    info,
    env,
    proc,
    readyMs,
    stderr: () => err,
    stop: () =>
      new Promise((resolve) => {
        if (proc.exitCode !== null) return resolve(undefined);
        proc.once('exit', resolve);
        proc.kill('SIGTERM');
      }),
  };
}

/** One run of node with the peak-memory preload, stdout read through a pipe: wall ms, peak KB, bytes out. */
export function runPeak(args, env, nodeArgs = []) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const p = spawn(process.execPath, [...nodeArgs, '--import', peak, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let bytes = 0;
    let err = '';
    p.stdout.on('data', (d) => (bytes += d.length));
    p.stderr.on('data', (d) => (err += d));
    p.once('close', (code) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      const kb = Number(/maxrss_kb=(\d+)/.exec(err)?.[1]);
      if (code !== 0 || !kb)
        reject(new Error(`${args.join(' ').slice(0, 200)} exited ${code}: ${err.slice(0, 500)}`));
      else resolve({ ms, kb, bytes, err: err.replace(/maxrss_kb=\d+\n/, '') });
    });
  });
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * One request's life as a real sandbox journals it (created, paid in part, refunded):
 * an in-process sandbox of this build on a data file in `dir`, driven through its API.
 * Returns the file's header line and the change lines that followed it, parsed.
 */
export async function lifeTemplates(dir) {
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
  try {
    const c = await call('POST', '/v1/cobros', {
      concepto: 'Seña del pedido N° 1042, envío a domicilio (3 bultos)',
      monto: '1500.00',
      referencia: 'ref-1042',
    });
    await call('POST', `/_sandbox/cobros/${c.id}/pagar`, { monto: '900.00', medio: 'credito' });
    await call('POST', `/v1/cobros/${c.id}/devoluciones`, { monto: '100.00', transaccion_id: 1 });
  } finally {
    await sb.close();
  }
  const [headerLine, ...life] = readFileSync(seedFile, 'utf8').trim().split('\n');
  return { headerLine, templates: life.map((l) => JSON.parse(l)) };
}

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
/** Request k's public code (k in base 32, ten letters of the sandbox's alphabet). */
export function codigoOf(k) {
  let s = '';
  for (let i = 0; i < 10; i++, k = Math.floor(k / 32)) s += ALPHABET[k % 32];
  return s;
}

/**
 * Request k's lines from `templates`: every record's id is k, its events numbered from
 * firstSeq + 1, each change followed by the line saying its events were delivered.
 * Returns the text and the last event number.
 */
export function lifeOf(templates, k, firstSeq) {
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

/**
 * Writes a data file: `headerLine`, then requests 1, 2, … each living `templates`'
 * life, a thousand at a time while `more(requests, bytes)` says go on. Returns how
 * many requests it wrote.
 */
export function writeLives(file, headerLine, templates, more) {
  const fd = openSync(file, 'w', 0o600);
  let bytes = writeSync(fd, headerLine + '\n');
  let seq = 0;
  let k = 0;
  while (more(k, bytes)) {
    let chunk = '';
    for (let i = 0; i < 1000; i++) {
      const l = lifeOf(templates, ++k, seq);
      chunk += l.text;
      seq = l.seq;
    }
    bytes += writeSync(fd, chunk);
  }
  closeSync(fd);
  return k;
}
