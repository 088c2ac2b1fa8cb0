// Batches at the size a merchant runs them, exactly once: a 200-row refund batch and a
// 200-row batch of payment requests, each killed with SIGKILL at a random point and
// resumed (20 trials each), and each run whole against connections cut after the service
// processed one POST in ten. Prints rows per second of an uninterrupted run (the
// few-trial versions are test/cli/devolver/lote.test.ts and test/cli/cobro/lote.test.ts).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAtRandom, paidCobros, refundsPer, requestsPer } from '../helpers/batches.js';
import { svcSpawned, tempDir } from '../helpers/cli.js';
import { svc } from '../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';

const ROWS = 200;
const TRIALS = 20;

let sb: Sandbox;
beforeAll(async () => {
  // Whole lists: each trial's check reads a list in one reply (svc itself follows pages).
  sb = await startSandbox({ spawned: ['--ready-delay', '0', '--por-pagina', '0'] });
});
afterAll(() => sb?.stop());

/** A refund plan of `ROWS` paid requests, 10.00 each; their ids. */
async function refundPlan(): Promise<{ plan: string; ids: number[] }> {
  const ids = (await paidCobros(sb, ROWS)).map((c) => c.id);
  const dir = tempDir('svc-lote-load-');
  writeFileSync(
    join(dir, 'lote.csv'),
    `cobro,monto\n${ids.map((id) => `${id},10.00`).join('\n')}\n`,
  );
  const made = await svc(
    ['devolver', '--lote', join(dir, 'lote.csv'), '--plan', join(dir, 'lote.json')],
    { env: sb.env },
  );
  expect(made.exitCode, made.stderr).toBe(0);
  return { plan: join(dir, 'lote.json'), ids };
}

let csvs = 0;
/** A CSV of `ROWS` payment requests with fresh referencias. */
function requestsCsv(): { path: string; refs: string[] } {
  const p = `carga-${++csvs}-${Math.random().toString(36).slice(2, 7)}`;
  const refs = Array.from({ length: ROWS }, (_, i) => `${p}-${i + 1}`);
  const path = join(tempDir('svc-cobros-load-'), 'cuotas.csv');
  writeFileSync(
    path,
    `concepto,monto,referencia\n${refs.map((r) => `Cuota,10.00,${r}`).join('\n')}\n`,
  );
  return { path, refs };
}

/** Runs `argv` whole and prints its rows per second. */
async function timed(label: string, argv: string[]): Promise<void> {
  const started = process.hrtime.bigint();
  const r = await svcSpawned(argv, { env: sb.env });
  const s = Number(process.hrtime.bigint() - started) / 1e9;
  expect(r.exitCode, r.stderr).toBe(0);
  console.log(
    `${label}: ${ROWS} rows in ${s.toFixed(2)} s, ${(ROWS / s).toFixed(0)} rows/s (load ${(await import('node:os')).loadavg()[0]!.toFixed(1)})`,
  );
}

describe(`batches of ${ROWS} rows: exactly once`, () => {
  it(`devolver --aplicar: SIGKILL at a random point then resume, ${TRIALS} trials; one POST in ten cut after processing; rows per second`, async () => {
    for (let t = 0; t < TRIALS; t++) {
      const { plan, ids } = await refundPlan();
      const kill = await killAtRandom(
        sb,
        ['devolver', '--aplicar', plan, '--yes', '--paralelo', String(1 + (t % 4))],
        `${plan}.registro.jsonl`,
        { rows: ROWS, maxLines: 2 * ROWS },
      );
      expect(kill.midBatch, kill.why).toBe(true);
      const resumed = await svcSpawned(['devolver', '--aplicar', plan, '--yes'], { env: sb.env });
      if (resumed.exitCode === 2) expect(resumed.stderr).toMatch(/el plan ya se aplicó/);
      else expect(resumed.exitCode, resumed.stderr).toBe(0);
      expect(
        (await refundsPer(sb, ids)).filter((n) => n !== 1),
        `trial ${t}`,
      ).toEqual([]);
    }
    const cut = await refundPlan();
    expect(
      (
        await sb.api('POST', '/_sandbox/fallas', {
          method: 'POST',
          path: '/v1/cobros/*',
          action: 'cut_after',
          every: 10,
          count: 1000,
        })
      ).status,
    ).toBe(201);
    const r = await svcSpawned(['devolver', '--aplicar', cut.plan, '--yes'], { env: sb.env });
    await sb.api('DELETE', '/_sandbox/fallas');
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await refundsPer(sb, cut.ids)).filter((n) => n !== 1)).toEqual([]);
    for (const paralelo of ['1', '4'])
      await timed(`devolver --aplicar --paralelo ${paralelo}`, [
        'devolver',
        '--aplicar',
        (await refundPlan()).plan,
        '--yes',
        '--paralelo',
        paralelo,
      ]);
  });

  it(`cobro crear --lote: SIGKILL at a random point then resume, ${TRIALS} trials; one POST in ten cut after processing; rows per second`, async () => {
    for (let t = 0; t < TRIALS; t++) {
      const { path, refs } = requestsCsv();
      const kill = await killAtRandom(
        sb,
        ['cobro', 'crear', '--lote', path, '--paralelo', String(1 + (t % 4))],
        `${path}.registro.jsonl`,
        { rows: ROWS, maxLines: 2 * ROWS },
      );
      expect(kill.midBatch, kill.why).toBe(true);
      const resumed = await svcSpawned(['cobro', 'crear', '--lote', path], { env: sb.env });
      expect(resumed.exitCode, resumed.stderr).toBe(0);
      expect(
        (await requestsPer(sb, refs)).filter((n) => n !== 1),
        `trial ${t}`,
      ).toEqual([]);
    }
    const cut = requestsCsv();
    expect(
      (
        await sb.api('POST', '/_sandbox/fallas', {
          method: 'POST',
          path: '/v1/cobros',
          action: 'cut_after',
          every: 10,
          count: 1000,
        })
      ).status,
    ).toBe(201);
    const r = await svcSpawned(['cobro', 'crear', '--lote', cut.path], { env: sb.env });
    await sb.api('DELETE', '/_sandbox/fallas');
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await requestsPer(sb, cut.refs)).filter((n) => n !== 1)).toEqual([]);
    for (const paralelo of ['1', '4'])
      await timed(`cobro crear --lote --paralelo ${paralelo}`, [
        'cobro',
        'crear',
        '--lote',
        requestsCsv().path,
        '--paralelo',
        paralelo,
      ]);
  });
});
