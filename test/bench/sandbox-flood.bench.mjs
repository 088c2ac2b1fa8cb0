// Benchmark of svc sandbox under a flood of big bodies (run after a build:
// node test/bench/run.mjs sandbox-flood). The sandbox runs as its own process (the
// built CLI, its peak RSS reported as it exits); this process opens the connections
// and holds them open. Prints figures; asserts nothing.
//  1. 1,000 POSTs of 1 MiB without a key, all at once, each connection held open.
//  2. The same with the ready merchant's key (a client that knows the key, or a bug
//     in one): the bodies held at once are the budget's, the rest answered 503.
// Set SVC_BENCH_BIN to run it against another build of bin/svc.js.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const BIN =
  process.env.SVC_BENCH_BIN ?? fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
const PEAK = fileURLToPath(new URL('../helpers/report-peak-rss.mjs', import.meta.url));
const CONNECTIONS = 1000;
const MiB = 1024 * 1024;
const BODY = Buffer.alloc(MiB, 0x20);

async function startSandbox() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const proc = spawn(
    process.execPath,
    ['--import', PEAK, BIN, 'sandbox', '--port', '0', '--json'],
    {
      env: { ...process.env, SVC_CONFIG_DIR: dir, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += String(d)));
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: proc.stdout }).once('line', resolve);
    proc.once('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${stderr}`)));
  });
  const info = JSON.parse(line);
  return {
    info,
    port: Number(new URL(info.base_url).port),
    /** Stops the sandbox; its peak RSS in MiB. */
    async stop() {
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
      const kb = Number(/maxrss_kb=(\d+)/.exec(stderr)?.[1]);
      return Math.round(kb / 1024);
    },
  };
}

/** Opens every connection at once, sends headers and a whole 1 MiB body on each, and holds them open; counts the answers by status. */
async function flood(port, key) {
  const statuses = {};
  const sockets = [];
  let settled = 0;
  await new Promise((resolve) => {
    const deadline = setTimeout(resolve, 60_000);
    const one = () => {
      if (++settled === CONNECTIONS) {
        clearTimeout(deadline);
        resolve();
      }
    };
    for (let i = 0; i < CONNECTIONS; i++) {
      const s = connect(port, '127.0.0.1');
      sockets.push(s);
      let seen = false;
      const done = (status) => {
        if (seen) return;
        seen = true;
        statuses[status] = (statuses[status] ?? 0) + 1;
        one();
      };
      s.on('data', (d) => done(/^HTTP\/1\.1 (\d{3})/.exec(d.toString('latin1'))?.[1] ?? 'other'));
      s.on('error', () => done('cut'));
      s.on('close', () => done('cut'));
      s.on('connect', () => {
        s.write(
          `POST /v1/cobros HTTP/1.1\r\nHost: x\r\n${key ? `Authorization: Bearer ${key}\r\n` : ''}Content-Type: application/json\r\nContent-Length: ${MiB}\r\n\r\n`,
        );
        s.write(BODY);
      });
    }
  });
  // Held open a moment longer: whatever the sandbox keeps, it keeps now.
  await new Promise((r) => setTimeout(r, 2000));
  for (const s of sockets) s.destroy();
  return Object.entries(statuses)
    .map(([k, v]) => `${k}×${v}`)
    .join(' ');
}

async function measure(label, withKey) {
  const sb = await startSandbox();
  const answers = await flood(sb.port, withKey ? sb.info.api_key : null);
  const peak = await sb.stop();
  console.log(`${label}: peak RSS ${peak} MiB (answers: ${answers})`);
}

const idle = await startSandbox();
console.log(`idle sandbox: peak RSS ${await idle.stop()} MiB`);
await measure(`${CONNECTIONS} POSTs of 1 MiB without a key, held open`, false);
await measure(`${CONNECTIONS} POSTs of 1 MiB with the key, held open`, true);
