// Payment requests in a batch, svc as processes against a real sandbox: SIGKILL at
// random points then resume, and two runs at once, each leave one request per referencia.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  faultRequestPosts,
  jsonLines,
  killAtRandom,
  requestsCsv,
  requestsPer,
} from '../../helpers/batches.js';
import { expectNoStack, svcSpawned } from '../../helpers/cli.js';
import { startSandbox, type Sandbox } from '../../helpers/sandbox.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb?.stop());

const perReferencia = (refs: string[]) => requestsPer(sb, refs);
let batch = 0;

/** `n` rows with referencias of their own on the shared sandbox. */
const csvOf = (n: number) =>
  requestsCsv(n, `cuota-k${++batch}-${Math.random().toString(36).slice(2, 7)}`);

describe('svc cobro crear --lote, killed and run twice at once', () => {
  // One trial here (npm test), killed once with each --paralelo; test/load/batches.load.test.ts
  // runs twenty trials of 200 rows, on every Node in CI (.ci/run).
  it('SIGKILL with a POST in flight, then resume: every row created exactly once (10 rows, killed twice: --paralelo 1, then 2)', async () => {
    // Each POST takes 150 ms at the sandbox, which then creates the request whether or not
    // svc is still there to read the reply: a kill lands between the intent and its outcome.
    await faultRequestPosts(sb, { action: 'delay', delay_ms: 150, count: 1000 });
    const { path, refs } = csvOf(10);
    const ledger = `${path}.registro.jsonl`;
    for (let k = 0; k < 2; k++) {
      const kill = await killAtRandom(
        sb,
        ['cobro', 'crear', '--lote', path, '--paralelo', String(1 + k)],
        ledger,
        { rows: 10, inFlight: true },
      );
      expect(kill.midBatch, kill.why).toBe(true);
    }
    // Whatever the sandbox still had in hand when svc died is done by now.
    await new Promise((r) => setTimeout(r, 200));
    const resumed = await svcSpawned(['cobro', 'crear', '--lote', path, '--json'], { env: sb.env });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expectNoStack(resumed.stderr);
    expect(
      jsonLines(resumed.stdout)
        .map((l) => l.estado)
        .every((e) => e === 'creado' || e === 'ya_creado'),
    ).toBe(true);
    expect(await perReferencia(refs)).toEqual(refs.map(() => 1));
    await sb.api('DELETE', '/_sandbox/fallas');
  }, 180_000);

  it('two runs at once: each row once; the second waits and finds them made', async () => {
    const { path, refs } = csvOf(6);
    // 100 ms a POST: the first run is still going when the second starts.
    await faultRequestPosts(sb, { action: 'delay', delay_ms: 100, count: 1000 });
    const runs = await Promise.all(
      [0, 1].map(() => svcSpawned(['cobro', 'crear', '--lote', path, '--json'], { env: sb.env })),
    );
    await sb.api('DELETE', '/_sandbox/fallas');
    expect(runs.map((x) => x.exitCode)).toEqual([0, 0]);
    expect(await perReferencia(refs)).toEqual(refs.map(() => 1));
    const estados = runs.map((x) => jsonLines(x.stdout).map((l) => l.estado as string));
    expect(
      estados.map((e) => e.every((s) => s === 'creado')).sort((a, b) => Number(a) - Number(b)),
    ).toEqual([false, true]);
  });
});
