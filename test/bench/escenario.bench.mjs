// Benchmark of svc sandbox --escenario (run after a build: node test/bench/run.mjs escenario).
// Scenarios of 500, 2,000 and 10,000 requests (each paid, one in four refunded in
// part, one in ten rejected), applied by the built CLI at start; the time is from the
// spawn to the ready line (--json). Applying must grow linearly: the time per request
// is printed for each size. BENCH_ESCENARIO=500,2000 picks the sizes. Asserts nothing.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
const SIZES = (process.env.BENCH_ESCENARIO ?? '500,2000,10000').split(',').map(Number);

function scenario(n) {
  const cobros = [];
  for (let i = 0; i < n; i++) {
    const c = { concepto: `Pedido ${i + 1}`, monto: '1500.00' };
    if (i % 10 === 9) c.rechazar = true;
    else {
      c.pagos = [{ medio: i % 2 ? 'qr' : 'credito' }];
      if (i % 4 === 0) c.devoluciones = [{ monto: '100.00', transaccion: 0 }];
    }
    cobros.push(c);
  }
  return { cobros };
}

async function timeStart(n) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-esc-'));
  const file = join(dir, 'escenario.json');
  writeFileSync(file, JSON.stringify(scenario(n)));
  const started = performance.now();
  const proc = spawn(
    process.execPath,
    [BIN, 'sandbox', '--port', '0', '--json', '--escenario', file],
    {
      env: { ...process.env, SVC_CONFIG_DIR: dir, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let err = '';
  proc.stderr.on('data', (d) => (err += d));
  await new Promise((resolve, reject) => {
    createInterface({ input: proc.stdout }).once('line', resolve);
    proc.once('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${err}`)));
  });
  const ms = performance.now() - started;
  proc.kill('SIGINT');
  await new Promise((r) => proc.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
  return ms;
}

console.log(
  `svc sandbox --escenario: start-up with N requests applied through the sandbox's API (load average ${loadavg()[0].toFixed(1)})`,
);
for (const n of SIZES) {
  const ms = await timeStart(n);
  console.log(
    `  ${String(n).padStart(6)} requests: ${(ms / 1000).toFixed(2)} s to ready, ${(ms / n).toFixed(2)} ms per request (load ${loadavg()[0].toFixed(1)})`,
  );
}
