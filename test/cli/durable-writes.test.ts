// Each file svc promises to keep is written through src/durable.ts and fsynced where
// the promise says, seen through a spy file layer (useFileLayer) while svc runs in
// this process: a batch row's intent is on the disk before its POST reaches the
// service; config.json and a plan marked applied are replaced by a fsynced temporary
// file, renamed, then the folder fsynced; a new plan is fsynced with its folder. (The
// sandbox's data file: test/sandbox/durable.test.ts; the listener's journal:
// test/webhooks/listen-durable.test.ts.) kill -9 cannot show an fsync missing: the
// page cache outlives the process.
import { realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useFileLayer } from '../../src/durable.js';
import { tempDir } from '../helpers/cli.js';
import { folderSyncAfter, spyFiles, syncAfter, writeOf, type FileOp } from '../helpers/file-spy.js';
import { svc } from '../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';

const spy = spyFiles();
let sb: Sandbox;
let dataFile: string;
let restore: () => void;
beforeAll(async () => {
  dataFile = join(realpathSync(tempDir('svc-durable-sb-')), 'state.jsonl');
  // The sandbox writes its data file through the same spy: a request that reached it
  // shows in the log as the write of its line, after whatever svc did before sending it.
  sb = await startSandbox({ dataFile, dataFs: spy.fs });
  restore = useFileLayer(spy.fs);
});
afterAll(async () => {
  restore?.();
  await sb?.stop();
});

/** The rename over `path` (the last one), with the temporary file's write fsynced before it and the folder after it. */
function expectReplacedDurably(log: FileOp[], path: string, marker: string): void {
  const rename = log.findLastIndex((o) => o.op === 'rename' && o.to === path);
  expect(rename, `a rename over ${path}: ${JSON.stringify(log.slice(-20))}`).toBeGreaterThan(0);
  const temp = (log[rename] as { from: string }).from;
  expect(dirname(temp)).toBe(dirname(path));
  const w = writeOf(log, temp, marker);
  expect(w, `${marker} written to ${temp}`).toBeGreaterThanOrEqual(0);
  const sync = syncAfter(log, w);
  expect(sync, `${temp} fsynced after its write`).toBeGreaterThan(w);
  expect(sync, 'and before the rename').toBeLessThan(rename);
  expect(
    folderSyncAfter(log, dirname(path), rename),
    'the folder fsynced after the rename',
  ).toBeGreaterThan(rename);
}

describe('durable writes of the CLI', () => {
  it('a batch row’s intent is fsynced in its ledger before its POST reaches the service, its outcome with the next', async () => {
    const dir = realpathSync(tempDir('svc-durable-lote-'));
    const csv = join(dir, 'cuotas.csv');
    const rows = [1, 2, 3, 4];
    writeFileSync(
      csv,
      `concepto,monto,referencia\n${rows.map((n) => `durable-${n}-fin,10.00,dur-${n}-${process.pid}`).join('\n')}\n`,
    );
    spy.log.length = 0;
    const r = await svc(['cobro', 'crear', '--lote', csv, '--yes'], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const log = spy.log;
    const ledger = `${csv}.registro.jsonl`;
    const early: string[] = [];
    for (const n of rows) {
      // The row's line in the sandbox's data file: its POST arrived.
      const arrived = writeOf(log, dataFile, `durable-${n}-fin`);
      expect(arrived, `row ${n} created on the service`).toBeGreaterThan(0);
      const intent = log.findIndex(
        (o) =>
          o.op === 'write' &&
          o.path.endsWith(ledger) &&
          o.text.includes(`{"fila":${n + 1},"intento"`),
      );
      expect(intent, `row ${n}: its intent written to ${ledger}`).toBeGreaterThanOrEqual(0);
      const synced = syncAfter(log, intent);
      if (synced < 0 || synced > arrived)
        early.push(
          `row ${n}: its POST arrived (log ${arrived}) before its intent was fsynced (${synced < 0 ? 'never' : `log ${synced}`})`,
        );
    }
    expect(early).toEqual([]);
    // Each outcome is on the disk (with the next row's intent, or when the ledger is
    // closed): one fdatasync a row (its intent), plus the batch's first line and the close.
    for (const n of rows) {
      const outcome = log.findIndex(
        (o) =>
          o.op === 'write' &&
          o.path.endsWith(ledger) &&
          o.text.includes(`"fila":${n + 1},"estado"`),
      );
      expect(outcome, `row ${n}: its outcome written`).toBeGreaterThan(0);
      expect(syncAfter(log, outcome), `row ${n}: its outcome fsynced`).toBeGreaterThan(outcome);
    }
    const syncs = log.filter((o) => o.op === 'sync' && o.path.endsWith(ledger));
    expect(syncs).toHaveLength(rows.length + 2);
  });

  it('config.json: a fsynced temporary file renamed over it, then the folder fsynced', async () => {
    const dir = join(realpathSync(tempDir('svc-durable-cfg-')), 'svc');
    spy.log.length = 0;
    const r = await svc(['login', '--with-key-stdin', '--base-url', sb.base_url], {
      env: { SVC_CONFIG_DIR: dir },
      input: `${sb.api_key}\n`,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expectReplacedDurably(spy.log, join(dir, 'config.json'), sb.base_url);
  });

  it('a refund plan: created and fsynced with its folder; marked applied by a fsynced file renamed over it', async () => {
    const id = (await sb.api('POST', '/v1/cobros', { concepto: 'Con plan', monto: '300.00' })).body
      .data.id as number;
    expect((await sb.api('POST', `/_sandbox/cobros/${id}/pagar`, {})).status).toBe(200);
    const dir = realpathSync(tempDir('svc-durable-plan-'));
    const file = join(dir, 'plan.json');
    spy.log.length = 0;
    const made = await svc(['devolver', String(id), '--monto', '20', '--plan', file], {
      env: sb.env,
    });
    expect(made.exitCode, made.stderr).toBe(0);
    const w = writeOf(spy.log, file, '"version"');
    expect(w, JSON.stringify(spy.log)).toBeGreaterThanOrEqual(0);
    const sync = syncAfter(spy.log, w);
    expect(sync, 'the plan fsynced after its write').toBeGreaterThan(w);
    expect(folderSyncAfter(spy.log, dir, sync), 'then its folder').toBeGreaterThan(sync);

    spy.log.length = 0;
    const applied = await svc(['devolver', '--aplicar', file, '--yes'], { env: sb.env });
    expect(applied.exitCode, applied.stderr).toBe(0);
    expectReplacedDurably(spy.log, file, '"aplicado"');
  });
});
