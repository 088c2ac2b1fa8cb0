// src/durable.ts keeps its promise, seen through a spy file layer: what it writes is
// fsynced before the call returns (and before the rename that publishes it), and a
// new name in a folder (a created file, a rename) is followed by an fsync of that
// folder. Each caller's use of it has its own test beside the caller.
import { execFileSync } from 'node:child_process';
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
  openRegularFile,
  replaceFile,
  type FileLayer,
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

  it('write() is on the disk with the next append() (one fdatasync for both), or at close()', () => {
    const path = join(dirOf(), 'lote.csv.registro.jsonl');
    const { fs, log } = spyFiles();
    const ledger = AppendLog.open(path, fs);
    ledger.append('{"fila":1,"intento":"a"}\n');
    ledger.write('{"fila":1,"estado":"creado"}\n');
    const outcome = writeOf(log, path, '"estado":"creado"');
    expect(outcome).toBeGreaterThan(0);
    expect(log.slice(outcome + 1), 'not fsynced by write()').toEqual([]);
    ledger.append('{"fila":2,"intento":"b"}\n');
    const next = writeOf(log, path, '"fila":2');
    expect(syncAfter(log, outcome), 'the next append fsyncs it').toBe(next + 1);
    expect(log.slice(next + 2)).toEqual([]);
    ledger.write('{"fila":2,"estado":"creado"}\n');
    const last = log.length - 1;
    ledger.close();
    expect(syncAfter(log, last), 'close() fsyncs the last').toBe(last + 1);
    expect(log.at(-1)?.op).toBe('close');
    // Nothing written since the last append: close() has nothing to fsync.
    const quiet = AppendLog.open(path, fs);
    quiet.append('{"fila":3,"intento":"c"}\n');
    const synced = log.length;
    quiet.close();
    expect(log.slice(synced).map((o) => o.op)).toEqual(['close']);
    expect(readFileSync(path, 'utf8').split('\n').filter(Boolean)).toHaveLength(5);
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

    // Opened O_DSYNC, each write is on the disk when it returns: one trip to the
    // thread pool, no fdatasync after it.
    calls.length = 0;
    const again = await open(join(dir, 'j.jsonl'), 'a');
    await appendAsync(
      {
        ...fh,
        write: (b: Uint8Array, off: number, len: number) => {
          calls.push(`write ${len}`);
          return again.write(b, off, len);
        },
      } as unknown as FileHandle,
      Buffer.from('fg'),
      true,
    );
    await again.close();
    expect(calls).toEqual(['write 2']);
  });

  it('where there is no O_DSYNC (Windows), openAppendAsync says so: each append is then fdatasynced', async () => {
    const dir = dirOf();
    const platform = Object.getOwnPropertyDescriptor(process, 'platform')!;
    Object.defineProperty(process, 'platform', { ...platform, value: 'win32' });
    let opened: Awaited<ReturnType<typeof openAppendAsync>>;
    try {
      opened = await openAppendAsync(join(dir, 'webhooks.jsonl'));
    } finally {
      Object.defineProperty(process, 'platform', platform);
    }
    try {
      expect(opened.dsync).toBe(false);
      if (process.platform === 'linux') {
        const info = readFileSync(`/proc/self/fdinfo/${opened.fh.fd}`, 'utf8');
        const flags = parseInt(/^flags:\s+([0-7]+)/m.exec(info)![1]!, 8);
        expect(flags & nodeFs.constants.O_DSYNC, info).toBe(0);
      }
    } finally {
      await opened.fh.close();
    }
  });
});

describe('what a write does when the system does less than asked', () => {
  it('a short write is continued until every byte is on the file', () => {
    const dir = dirOf();
    const { fs } = spyFiles();
    // At most three bytes a call, as a write interrupted by a signal may return.
    const short: FileLayer = {
      ...fs,
      writeSync: (fd, buf, off, len) => fs.writeSync(fd, buf, off, Math.min(3, len)),
    };
    replaceFile(join(dir, 'config.json'), '{"clave":"ñandú"}', short);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe('{"clave":"ñandú"}');
    createFile(join(dir, 'plan.json'), Buffer.from('0123456789'), short);
    expect(readFileSync(join(dir, 'plan.json'), 'utf8')).toBe('0123456789');
    const ledger = AppendLog.open(join(dir, 'registro.jsonl'), short);
    ledger.append('{"fila":1}\n');
    ledger.close();
    expect(readFileSync(join(dir, 'registro.jsonl'), 'utf8')).toBe('{"fila":1}\n');
  });

  it('content handed out piece by piece reaches the file a mebibyte at a time, never held whole', () => {
    const dir = dirOf();
    const { fs, log } = spyFiles();
    const MiB = 1024 * 1024;
    const piece = 'y'.repeat(64 * 1024);
    // 3 MiB in 48 pieces, then a tail of 5 bytes.
    createFile(
      join(dir, 'state.jsonl'),
      (out) => {
        for (let i = 0; i < 48; i++) out(piece);
        out('fin\n\n');
      },
      fs,
    );
    const writes = log.flatMap((o) => (o.op === 'write' ? [o.text.length] : []));
    expect(writes).toEqual([MiB, MiB, MiB, 5]);
    expect(statSync(join(dir, 'state.jsonl')).size).toBe(3 * MiB + 5);
  });

  it('replaceFile makes the mode 0600 whatever the umask took away', () => {
    const dir = dirOf();
    const { fs } = spyFiles();
    // A umask of 0277 turns the 0600 asked for into 0400 (process.umask cannot be set in
    // a worker thread, where the mutation runner puts tests: the open does it here).
    const umask277: FileLayer = {
      ...fs,
      openSync: (p, flags, mode) => fs.openSync(p, flags, mode === undefined ? mode : mode & 0o400),
    };
    replaceFile(join(dir, 'config.json'), '{}', umask277);
    // 0400 would leave svc unable to write its own config in place.
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
  });

  it('a folder that cannot be opened or fsynced: the file’s own fsync stands, and no descriptor is left open', () => {
    const dir = dirOf();
    const path = join(dir, 'config.json');
    const { fs, log } = spyFiles();
    const refusesOpen: FileLayer = {
      ...fs,
      openSync: (p, flags, mode) => {
        if (p === dir) throw Object.assign(new Error('EACCES'), { code: 'EACCES' });
        return fs.openSync(p, flags, mode);
      },
    };
    replaceFile(path, 'uno', refusesOpen);
    createFile(join(dir, 'plan.json'), 'dos', refusesOpen);
    expect(readFileSync(path, 'utf8')).toBe('uno');

    const folderFds = new Set<number>();
    const refusesSync: FileLayer = {
      ...fs,
      openSync: (p, flags, mode) => {
        const fd = fs.openSync(p, flags, mode);
        if (p === dir) folderFds.add(fd);
        return fd;
      },
      fsyncSync: (fd) => {
        if (folderFds.has(fd)) throw Object.assign(new Error('EINVAL'), { code: 'EINVAL' });
        fs.fsyncSync(fd);
      },
    };
    log.length = 0;
    replaceFile(path, 'tres', refusesSync);
    expect(readFileSync(path, 'utf8')).toBe('tres');
    expect(folderFds.size).toBe(1);
    expect(log.filter((o) => o.op === 'close' && o.path === dir)).toHaveLength(1);
  });

  it('every descriptor a write opens is closed, on success and on failure', () => {
    const dir = dirOf();
    const { fs, log } = spyFiles();
    const full: FileLayer = {
      ...fs,
      writeSync: () => {
        throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
      },
    };
    writeFileSync(join(dir, 'config.json'), 'antes');
    expect(() => replaceFile(join(dir, 'config.json'), 'después', full)).toThrow(/ENOSPC/);
    expect(readFileSync(join(dir, 'config.json'), 'utf8'), 'left as it was').toBe('antes');
    expect(readdirSync(dir), 'the temporary file removed').toEqual(['config.json']);
    expect(() => createFile(join(dir, 'plan.json'), 'x', full)).toThrow(/ENOSPC/);
    replaceFile(join(dir, 'a'), 'a', fs);
    createFile(join(dir, 'b'), 'b', fs);
    const ledger = AppendLog.open(join(dir, 'c'), fs);
    ledger.append('c\n');
    ledger.close();
    const opened = log.filter((o) => o.op === 'open').map((o) => (o as { fd: number }).fd);
    const closed = log.filter((o) => o.op === 'close').map((o) => (o as { fd: number }).fd);
    expect(opened.length).toBeGreaterThan(5);
    // Each open matched by a close of its descriptor (numbers are reused, so counted).
    const byFd = (fds: number[]) => fds.toSorted((a, b) => a - b);
    expect(byFd(closed)).toEqual(byFd(opened));
  });
});

describe('openAppend when another process creates the log at the same moment', () => {
  it('the log someone else created in between is opened and appended to, not refused', () => {
    const dir = dirOf();
    const path = join(dir, 'registro.jsonl');
    const { fs, log } = spyFiles();
    let first = true;
    const race: FileLayer = {
      ...fs,
      openSync: (p, flags, mode) => {
        if (p === path && first) {
          // Missing when looked for; there by the time this process creates it.
          first = false;
          writeFileSync(path, 'del otro\n');
          throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
        }
        return fs.openSync(p, flags, mode);
      },
    };
    const ledger = AppendLog.open(path, race);
    ledger.append('mío\n');
    ledger.close();
    expect(readFileSync(path, 'utf8')).toBe('del otro\nmío\n');
    // Its folder entry is the creator's to sync: this process made no new name.
    expect(log.some((o) => o.op === 'sync' && o.path === dir)).toBe(false);
  });

  it('a log that cannot be created says why', () => {
    const dir = dirOf();
    const { fs } = spyFiles();
    const readOnly: FileLayer = {
      ...fs,
      openSync: (p, flags, mode) => {
        if (typeof flags === 'number' && flags & nodeFs.constants.O_CREAT)
          throw Object.assign(new Error('EROFS: read-only file system'), { code: 'EROFS' });
        return fs.openSync(p, flags, mode);
      },
    };
    expect(() => AppendLog.open(join(dir, 'registro.jsonl'), readOnly)).toThrow(
      expect.objectContaining({ code: 'EROFS' }),
    );
  });
});

describe('openRegularFile: what svc reads back is a regular file, or it is refused at once', () => {
  const openFds = () => readdirSync('/proc/self/fd').length;

  it('a regular file: its descriptor and size', () => {
    const path = join(dirOf(), 'plan.json');
    writeFileSync(path, '{"filas":[]}');
    const { fd, size } = openRegularFile(path);
    try {
      expect(size).toBe(12);
      expect(nodeFs.readFileSync(fd, 'utf8')).toBe('{"filas":[]}');
    } finally {
      nodeFs.closeSync(fd);
    }
  });

  it.skipIf(process.platform !== 'linux')(
    'a FIFO, a folder or a link to /dev/zero: ENOTREG without waiting, and no descriptor left open',
    () => {
      const dir = dirOf();
      execFileSync('mkfifo', [join(dir, 'fifo')]);
      nodeFs.mkdirSync(join(dir, 'carpeta'));
      symlinkSync('/dev/zero', join(dir, 'cero'));
      const before = openFds();
      for (const [name, follow] of [
        ['fifo', false],
        ['carpeta', false],
        ['cero', true],
      ] as const)
        expect(() => openRegularFile(join(dir, name), follow), name).toThrow(
          expect.objectContaining({
            code: 'ENOTREG',
            message: `${join(dir, name)}: not a regular file`,
          }),
        );
      expect(openFds()).toBe(before);
    },
  );

  it('a link at the name is refused (ELOOP) unless the caller follows links', () => {
    const dir = dirOf();
    writeFileSync(join(dir, 'real.json'), 'x');
    symlinkSync(join(dir, 'real.json'), join(dir, 'enlace.json'));
    expect(() => openRegularFile(join(dir, 'enlace.json'))).toThrow(
      expect.objectContaining({ code: 'ELOOP' }),
    );
    const { fd, size } = openRegularFile(join(dir, 'enlace.json'), true);
    nodeFs.closeSync(fd);
    expect(size).toBe(1);
  });
});
