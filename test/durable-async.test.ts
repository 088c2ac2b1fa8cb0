// The asynchronous half of src/durable.ts (the listener's journal) keeps the same
// promise as the synchronous one: a log it creates has its folder fsynced, so the new
// name survives a crash with its lines; a folder that cannot be opened or fsynced
// leaves the file's own durability standing and no descriptor open. Seen through
// node:fs/promises' open, wrapped to record each open, sync and close of the folder
// (the journal's own writes: test/durable.test.ts and test/webhooks/).
import { readFileSync, realpathSync } from 'node:fs';
import type * as FsPromises from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from './helpers/cli.js';

/** What happened to the folder under test, in order: `open`, `sync`, `close`. */
const folder: string[] = [];
let watched = '';
/** What the folder refuses: being opened, or being fsynced. */
let refuse: 'open' | 'sync' | undefined;

/** src/durable.ts loaded afresh over a node:fs/promises whose open() of `watched` is recorded. */
async function durable(): Promise<typeof import('../src/durable.js')> {
  vi.resetModules();
  vi.doMock('node:fs/promises', async (importOriginal) => {
    const real = await importOriginal<typeof FsPromises>();
    const open: typeof real.open = async (path, flags, mode) => {
      if (path !== watched) return real.open(path, flags, mode);
      if (refuse === 'open')
        throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      const fh = await real.open(path, flags, mode);
      folder.push('open');
      return new Proxy(fh, {
        get(target, key) {
          if (key === 'sync')
            return async () => {
              if (refuse === 'sync')
                throw Object.assign(new Error('EINVAL: invalid argument'), { code: 'EINVAL' });
              await target.sync();
              folder.push('sync');
            };
          if (key === 'close')
            return async () => {
              await target.close();
              folder.push('close');
            };
          const value: unknown = Reflect.get(target, key);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    };
    return { ...real, open };
  });
  return import('../src/durable.js');
}

afterEach(() => {
  vi.doUnmock('node:fs/promises');
  vi.resetModules();
  folder.length = 0;
  refuse = undefined;
});

describe('openAppendAsync: a journal it creates has its folder fsynced', () => {
  it('created: the folder opened, fsynced and closed; opened again: the folder left alone', async () => {
    const { openAppendAsync, appendAsync } = await durable();
    watched = realpathSync(tempDir('svc-durable-async-'));
    const path = join(watched, 'webhooks.jsonl');
    const first = await openAppendAsync(path);
    await appendAsync(first.fh, Buffer.from('uno\n'), first.dsync);
    await first.fh.close();
    expect(folder).toEqual(['open', 'sync', 'close']);

    folder.length = 0;
    const again = await openAppendAsync(path);
    await appendAsync(again.fh, Buffer.from('dos\n'), again.dsync);
    await again.fh.close();
    expect(folder, 'an existing journal makes no new name').toEqual([]);
    expect(readFileSync(path, 'utf8')).toBe('uno\ndos\n');
  });

  it('a folder that cannot be opened, or refuses fsync: the journal is still made, no descriptor left open', async () => {
    const { openAppendAsync, syncFolderAsync } = await durable();
    watched = realpathSync(tempDir('svc-durable-async-'));
    refuse = 'open';
    const a = await openAppendAsync(join(watched, 'a.jsonl'));
    await a.fh.close();
    expect(folder).toEqual([]);

    refuse = 'sync';
    const b = await openAppendAsync(join(watched, 'b.jsonl'));
    await b.fh.close();
    expect(folder, 'opened and closed again, its fsync refused').toEqual(['open', 'close']);
    await expect(syncFolderAsync(watched)).resolves.toBeUndefined();
  });

  it('a journal that cannot be opened says why', async () => {
    const { openAppendAsync } = await durable();
    watched = realpathSync(tempDir('svc-durable-async-'));
    await expect(openAppendAsync(watched)).rejects.toMatchObject({ code: 'EISDIR' });
    await expect(openAppendAsync(join(watched, 'no-such', 'j.jsonl'))).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });
});
