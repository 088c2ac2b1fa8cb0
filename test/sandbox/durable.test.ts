// The sandbox's data file, durable and not only written: a spy on the file calls the
// store makes (its injectable fs). A SIGKILL test cannot tell the page cache from the
// disk; this one sees that every answered change's line was written and then
// fdatasync'ed (or fsync'ed) on the data file before the answer left, and that
// compaction writes a new file, fsyncs it, renames it over the old one and fsyncs the
// folder, in that order.
import * as nodeFs from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../../src/sandbox/store.js';
import { tempDir } from '../helpers/cli.js';
import { spyFiles, syncAfter, writeOf } from '../helpers/file-spy.js';
import { startSandbox } from '../helpers/sandbox.js';

describe('the data file is written durably', () => {
  it('every change answered 2xx was written and fdatasynced on the data file before its answer', async () => {
    const file = join(nodeFs.realpathSync(tempDir('svc-durable-')), 'state.jsonl');
    const spy = spyFiles();
    const sb = await startSandbox({ dataFile: file, dataFs: spy.fs });
    const problems: string[] = [];
    try {
      // Called as the answer arrives: its line's write must already be synced.
      const check = (marker: string) => {
        if (syncAfter(spy.log, writeOf(spy.log, file, marker)) < 0)
          problems.push(`${marker}: answered before a durable write of its line`);
        spy.log.push({ op: 'mark', text: `answered ${marker}` });
      };
      for (let i = 0; i < 5; i++) {
        const concepto = `durable-${i}-fin`;
        const r = await sb.api('POST', '/v1/cobros', { concepto, monto: '10.00' });
        expect(r.status).toBe(201);
        check(concepto);
        // A payment: the new transaction's id is in the line that records it.
        const paid = await sb.api('POST', `/_sandbox/cobros/${r.body.data.id}/pagar`, {});
        expect(paid.status).toBe(200);
        check(`"codigo":"${r.body.data.codigo}"`);
      }
    } finally {
      await sb.close();
    }
    expect(problems).toEqual([]);
  });

  it('compaction: a new file written and fsynced, renamed over the old one, then the folder fsynced', async () => {
    const dir = tempDir('svc-durable-');
    const file = join(dir, 'state.jsonl');
    const sb = await startSandbox({ dataFile: file });
    for (let i = 0; i < 3; i++)
      expect(
        (await sb.api('POST', '/v1/cobros', { concepto: `antes-${i}`, monto: '1.00' })).status,
      ).toBe(201);
    await sb.close();

    const spy = spyFiles();
    const store = Store.open(file, { fs: spy.fs });
    const real = nodeFs.realpathSync(file);
    spy.log.length = 0;
    store.compact();
    const log = spy.log;
    const rename = log.findIndex((o) => o.op === 'rename' && o.to === real);
    expect(rename, `a rename over ${real}: ${JSON.stringify(log)}`).toBeGreaterThanOrEqual(0);
    const temp = (log[rename] as { from: string }).from;
    expect(dirname(temp), 'the new file is made in the same folder (rename is atomic there)').toBe(
      dirname(real),
    );
    const tempWrites = log.flatMap((o, i) => (o.op === 'write' && o.path === temp ? [i] : []));
    expect(tempWrites.length, 'the state written to the new file').toBeGreaterThan(0);
    const tempSync = log.findIndex(
      (o, i) => o.op === 'sync' && o.path === temp && i > Math.max(...tempWrites),
    );
    expect(tempSync, 'the new file synced after its last write').toBeGreaterThan(0);
    expect(tempSync, 'and before the rename').toBeLessThan(rename);
    const dirSync = log.findIndex(
      (o, i) => o.op === 'sync' && o.path === dirname(real) && i > rename,
    );
    expect(
      dirSync,
      'the folder fsynced after the rename, so the rename survives a crash',
    ).toBeGreaterThan(rename);
    // Appends go on in the new file, durably.
    const reopened = log.findIndex((o, i) => o.op === 'open' && o.path === real && i > rename);
    expect(reopened, 'the data file opened again for appending').toBeGreaterThan(rename);
    store.close();
  });
});
