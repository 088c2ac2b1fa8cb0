// What the benchmarks share: a sandbox of the built svc started on port 0 (its address
// and key, and an environment for svc pointing at it), and one run of a command with
// its wall time and peak memory (the report-peak-rss preload). Not a bench itself.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const bin = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
export const peak = fileURLToPath(new URL('../helpers/report-peak-rss.mjs', import.meta.url));

/**
 * `svc sandbox --port 0 --json --ready-delay 0 ...args` (no request's cvu/qr is still
 * being prepared while runs are timed); resolves once it says where it listens, with
 * the time that took. `env`: svc's environment pointed at it, a config folder of its own.
 */
export async function startSandbox(args = [], nodeArgs = []) {
  const t0 = process.hrtime.bigint();
  const proc = spawn(
    process.execPath,
    [...nodeArgs, bin, 'sandbox', '--port', '0', '--json', '--ready-delay', '0', ...args],
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
