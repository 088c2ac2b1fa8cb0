// src/durable.ts keeps its promise, seen through a spy file layer: what it writes is
// fsynced before the call returns (and before the rename that publishes it), and a
// new name in a folder (a created file, a rename) is followed by an fsync of that
// folder. Each caller's use of it has its own test beside the caller.
import * as nodeFs from 'node:fs';
import {
  lstatSync,
  readFileSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AppendLog,
  appendAsync,
  createFile,
  files,
  nodeFiles,
  openAppendAsync,
  replaceFile,
  useFileLayer,
} from '../src/durable.js';
import { tempDir } from './helpers/cli.js';
import { folderSyncAfter, spyFiles, syncAfter, writeOf } from './helpers/file-spy.js';

const dirOf = () => nodeFs.realpathSync(tempDir('svc-durable-'));

describe('replaceFile', () => {
  it('writes a temporary file beside the name, fsyncs it, renames it over the name, then fsyncs the folder', () => {
    const dir = dirOf();
    const path = join(dir, 'config.json');
    writeFileSync(path, 'antes');
    const { fs, log } = spyFiles();
    replaceFile(path, '{"nuevo":1}', fs);
    expect(readFileSync(path, 'utf8')).toBe('{"nuevo":1}');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['config.json']);

    const rename = log.findIndex((o) => o.op === 'rename' && o.to === path);
    expect(rename, JSON.stringify(log)).toBeGreaterThan(0);
    const temp = (log[rename] as { from: string }).from;
    expect(temp.startsWith(`${dir}/`), 'the temporary file is in the same folder').toBe(true);
    const w = writeOf(log, temp, '{"nuevo":1}');
    expect(w, 'the content written to the temporary file').toBeGreaterThan(0);
    const sync = syncAfter(log, w);
    expect(sync, 'the temporary file fsynced after its write').toBeGreaterThan(w);
    expect(sync, 'and before the rename').toBeLessThan(rename);
    expect(
      folderSyncAfter(log, dir, rename),
      'the folder fsynced after the rename',
    ).toBeGreaterThan(rename);
  });

  it('writes content handed out piece by piece, every piece before the fsync', () => {
    const dir = dirOf();
    const path = join(dir, 'state.jsonl');
    const { fs, log } = spyFiles();
    const big = 'x'.repeat(700 * 1024);
    const size = replaceFile(
      path,
      (out) => {
        out(`${big}a\n`);
        out(`${big}b\n`);
        out('fin\n');
      },
      fs,
    );
    expect(readFileSync(path, 'utf8')).toBe(`${big}a\n${big}b\nfin\n`);
    expect(size).toBe(2 * (big.length + 2) + 4);
    const rename = log.findIndex((o) => o.op === 'rename');
    const last = writeOf(log, (log[rename] as { from: string }).from, 'fin');
    expect(syncAfter(log, last)).toBeGreaterThan(last);
    expect(syncAfter(log, last)).toBeLessThan(rename);
  });

  it('replaces a link planted at the name with a 0600 file and leaves the link’s target untouched', () => {
    const dir = dirOf();
    const target = join(tempDir('svc-durable-target-'), 'victim');
    writeFileSync(target, 'original', { mode: 0o644 });
    const path = join(dir, 'config.json');
    symlinkSync(target, path);
    replaceFile(path, '{"secret":1}');
    expect(readFileSync(target, 'utf8')).toBe('original');
    expect(statSync(target).mode & 0o777).toBe(0o644);
    expect(lstatSync(path).isSymbolicLink()).toBe(false);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toBe('{"secret":1}');
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it('a rename that fails leaves the file as it was and no temporary file', () => {
    const dir = dirOf();
    const path = join(dir, 'config.json');
    writeFileSync(path, 'antes');
    const { fs } = spyFiles();
    const failing = {
      ...fs,
      renameSync() {
        throw Object.assign(new Error('EXDEV: cross-device link'), { code: 'EXDEV' });
      },
    };
    expect(() => replaceFile(path, 'después', failing)).toThrow(/EXDEV/);
    expect(readFileSync(path, 'utf8')).toBe('antes');
    expect(readdirSync(dir)).toEqual(['config.json']);
  });
});

describe('createFile', () => {
  it('creates the file, fsyncs it, then fsyncs the folder for its new name', () => {
    const dir = dirOf();
    const path = join(dir, 'plan.json');
    const { fs, log } = spyFiles();
    createFile(path, '{"plan":1}\n', fs);
    expect(readFileSync(path, 'utf8')).toBe('{"plan":1}\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const w = writeOf(log, path, '{"plan":1}');
    const sync = syncAfter(log, w);
    expect(sync, JSON.stringify(log)).toBeGreaterThan(w);
    expect(folderSyncAfter(log, dir, sync)).toBeGreaterThan(sync);
  });

  it('never replaces a file that exists, nor writes through a link', () => {
    const dir = dirOf();
    const path = join(dir, 'plan.json');
    writeFileSync(path, 'aplicado');
    expect(() => createFile(path, 'otro')).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    expect(readFileSync(path, 'utf8')).toBe('aplicado');
    const target = join(dir, 'victim');
    symlinkSync(target, join(dir, 'link.json'));
    expect(() => createFile(join(dir, 'link.json'), 'x')).toThrow();
    expect(nodeFs.existsSync(target)).toBe(false);
  });
});

describe('AppendLog', () => {
  it('every line is fsynced before append() returns; a log it creates has its folder fsynced', () => {
    const dir = dirOf();
    const path = join(dir, 'lote.csv.registro.jsonl');
    const { fs, log } = spyFiles();
    const ledger = AppendLog.open(path, fs);
    const created = log.findIndex((o) => o.op === 'open' && o.path === path);
    expect(folderSyncAfter(log, dir, created), 'the new log’s folder fsynced').toBeGreaterThan(
      created,
    );
    for (const line of ['{"fila":1,"intento":"a"}\n', '{"fila":1,"estado":"creado"}\n']) {
      ledger.append(line);
      const w = writeOf(log, path, line.trim());
      expect(w).toBeGreaterThan(created);
      expect(syncAfter(log, w), `${line.trim()} fsynced before append returned`).toBe(
        log.length - 1,
      );
    }
    ledger.close();
    expect(readFileSync(path, 'utf8')).toBe(
      '{"fila":1,"intento":"a"}\n{"fila":1,"estado":"creado"}\n',
    );
    expect(statSync(path).mode & 0o777).toBe(0o600);
    // Opened again: appended to, not truncated.
    const again = AppendLog.open(path, fs);
    again.append('{"fila":2,"intento":"b"}\n');
    again.close();
    expect(readFileSync(path, 'utf8').split('\n')).toHaveLength(4);
  });

  it('never appends through a link planted at the name', () => {
    const dir = dirOf();
    const target = join(dir, 'victim');
    writeFileSync(target, 'original');
    symlinkSync(target, join(dir, 'registro.jsonl'));
    expect(() => AppendLog.open(join(dir, 'registro.jsonl'))).toThrow();
    expect(readFileSync(target, 'utf8')).toBe('original');
  });
});

describe('the file layer', () => {
  it('a swapped layer sees every durable write until it is put back', () => {
    const dir = dirOf();
    const { fs, log } = spyFiles();
    expect(files()).toBe(nodeFiles);
    const restore = useFileLayer(fs);
    try {
      replaceFile(join(dir, 'a'), 'uno');
      createFile(join(dir, 'b'), 'dos');
      const l = AppendLog.open(join(dir, 'c'));
      l.append('tres\n');
      l.close();
    } finally {
      restore();
    }
    expect(files()).toBe(nodeFiles);
    for (const name of ['a', 'b', 'c'])
      expect(
        log.some(
          (o) => o.op === 'sync' && (o.path === join(dir, name) || o.path.includes(`.${name}.`)),
        ),
        name,
      ).toBe(true);
  });
});

describe('appends off the main thread', () => {
  it('openAppendAsync opens the file O_DSYNC where the platform has it (each write durable when it returns)', async () => {
    const dir = dirOf();
    const { fh, dsync } = await openAppendAsync(join(dir, 'webhooks.jsonl'));
    try {
      expect(dsync).toBe(process.platform !== 'win32');
      if (process.platform === 'linux') {
        // The descriptor's open flags as the kernel holds them (octal); O_DSYNC is 010000.
        const info = readFileSync(`/proc/self/fdinfo/${fh.fd}`, 'utf8');
        const flags = parseInt(/^flags:\s+([0-7]+)/m.exec(info)![1]!, 8);
        expect(flags & nodeFs.constants.O_DSYNC, info).toBe(nodeFs.constants.O_DSYNC);
      }
      await appendAsync(fh, Buffer.from('uno\n'), dsync);
    } finally {
      await fh.close();
    }
    expect(readFileSync(join(dir, 'webhooks.jsonl'), 'utf8')).toBe('uno\n');
    expect(statSync(join(dir, 'webhooks.jsonl')).mode & 0o777).toBe(0o600);
  });

  it('without O_DSYNC, appendAsync fdatasyncs after the last byte is written', async () => {
    const dir = dirOf();
    const real = await open(join(dir, 'j.jsonl'), 'a');
    const calls: string[] = [];
    const fh = {
      write: async (b: Uint8Array, off: number, len: number) => {
        // Short writes: two bytes at a time.
        const r = await real.write(b, off, Math.min(2, len));
        calls.push(`write ${r.bytesWritten}`);
        return r;
      },
      datasync: async () => {
        calls.push('datasync');
        await real.datasync();
      },
    } as unknown as FileHandle;
    await appendAsync(fh, Buffer.from('abcde'), false);
    await real.close();
    expect(calls).toEqual(['write 2', 'write 2', 'write 1', 'datasync']);
    expect(readFileSync(join(dir, 'j.jsonl'), 'utf8')).toBe('abcde');
  });
});
