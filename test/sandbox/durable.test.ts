// The sandbox's data file, durable and not only written: a spy on the file calls the
// store makes (its injectable fs). A SIGKILL test cannot tell the page cache from the
// disk; this one sees that every answered change's line was written and then
// fdatasync'ed (or fsync'ed) on the data file before the answer left, and that
// compaction writes a new file, fsyncs it, renames it over the old one and fsyncs the
// folder, in that order.
import * as nodeFs from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FileLayer } from '../../src/durable.js';
import { Store } from '../../src/sandbox/store.js';
import { tempDir } from '../helpers/cli.js';
import { startSandbox } from '../helpers/sandbox.js';

type Op =
  | { op: 'open'; fd: number; path: string; flags: string }
  | { op: 'write'; fd: number; path: string; text: string }
  | { op: 'sync'; fd: number; path: string; how: 'fdatasync' | 'fsync' }
  | { op: 'close'; fd: number; path: string }
  | { op: 'rename'; from: string; to: string }
  | { op: 'answer'; marker: string };

/** node:fs, every call the journal makes recorded in order (with the path behind each descriptor). */
function spyFs() {
  const log: Op[] = [];
  const paths = new Map<number, string>();
  const at = (fd: number) => paths.get(fd) ?? `fd ${fd}`;
  const fs: FileLayer = {
    ...nodeFs,
    openSync(path: string, flags: string, mode?: number) {
      const fd = nodeFs.openSync(path, flags, mode);
      paths.set(fd, path);
      log.push({ op: 'open', fd, path, flags });
      return fd;
    },
    writeSync(fd: number, buf: Uint8Array, off: number, len: number) {
      const n = nodeFs.writeSync(fd, buf, off, len);
      log.push({
        op: 'write',
        fd,
        path: at(fd),
        text: Buffer.from(buf.subarray(off, off + n)).toString('utf8'),
      });
      return n;
    },
    fdatasyncSync(fd: number) {
      nodeFs.fdatasyncSync(fd);
      log.push({ op: 'sync', fd, path: at(fd), how: 'fdatasync' });
    },
    fsyncSync(fd: number) {
      nodeFs.fsyncSync(fd);
      log.push({ op: 'sync', fd, path: at(fd), how: 'fsync' });
    },
    closeSync(fd: number) {
      nodeFs.closeSync(fd);
      log.push({ op: 'close', fd, path: at(fd) });
      paths.delete(fd);
    },
    renameSync(from: string, to: string) {
      nodeFs.renameSync(from, to);
      log.push({ op: 'rename', from, to });
    },
  };
  return { fs, log };
}

/** Where in `log` the write holding `marker` to `path` became durable: the index of the sync after it on the same descriptor, or -1. */
function durableAt(log: Op[], path: string, marker: string, before: number): number {
  let w = -1;
  for (let i = before - 1; i >= 0; i--) {
    const o = log[i]!;
    if (o.op === 'write' && o.path === path && o.text.includes(marker)) {
      w = i;
      break;
    }
  }
  if (w < 0) return -1;
  const fd = (log[w] as { fd: number }).fd;
  for (let i = w + 1; i < before; i++) {
    const o = log[i]!;
    if (o.op === 'sync' && o.fd === fd) return i;
    if (o.op === 'close' && o.fd === fd) return -1;
  }
  return -1;
}

describe('the data file is written durably', () => {
  it('every change answered 2xx was written and fdatasynced on the data file before its answer', async () => {
    const file = join(nodeFs.realpathSync(tempDir('svc-durable-')), 'state.jsonl');
    const spy = spyFs();
    const sb = await startSandbox({ dataFile: file, dataFs: spy.fs });
    const problems: string[] = [];
    try {
      const check = (marker: string) => {
        spy.log.push({ op: 'answer', marker });
        if (durableAt(spy.log, file, marker, spy.log.length - 1) < 0)
          problems.push(`${marker}: answered before a durable write of its line`);
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

    const spy = spyFs();
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
