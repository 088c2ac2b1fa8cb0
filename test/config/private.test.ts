// The primitives of src/config/private.ts in-process: lock files are never created
// through a link, and a planted FIFO cannot hang a read (writes: test/durable.test.ts).
import { execFileSync } from 'node:child_process';
import { existsSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createLockFile,
  folderProblem,
  PrivatePathError,
  readPrivateFile,
  shellPath,
} from '../../src/config/private.js';
import { tempDir } from '../helpers/cli.js';

const LABELS = { what: 'la carpeta', elsewhere: 'usá otra' };

describe('createLockFile', () => {
  it('does not create a file through a dangling symlink planted as the lock', () => {
    const dir = tempDir('svc-priv-');
    const target = join(tempDir('svc-priv-target-'), 'created-through-link');
    symlinkSync(target, join(dir, 'config.json.lock'));
    expect(createLockFile(join(dir, 'config.json.lock'))).toBe(false);
    expect(existsSync(target)).toBe(false);
  });
});

describe('readPrivateFile', () => {
  it('refuses a FIFO planted as the file at once instead of blocking', () => {
    const dir = tempDir('svc-priv-');
    const path = join(dir, 'config.json');
    execFileSync('mkfifo', ['-m', '600', path]);
    expect(() => readPrivateFile(path, 'el archivo')).toThrow(PrivatePathError);
    expect(() => readPrivateFile(path, 'el archivo')).toThrow(/no es un archivo común/);
  });

  it('returns undefined for a missing file and the text of a 0600 file', () => {
    const dir = tempDir('svc-priv-');
    expect(readPrivateFile(join(dir, 'nope'), 'el archivo')).toBeUndefined();
    writeFileSync(join(dir, 'ok'), 'hola', { mode: 0o600 });
    expect(readPrivateFile(join(dir, 'ok'), 'el archivo')).toBe('hola');
  });
});

describe('folderProblem', () => {
  it('accepts a missing folder (svc creates it 0700) and a 0755 one (names are not secrets)', () => {
    const dir = tempDir('svc-priv-');
    expect(folderProblem(join(dir, 'missing'), LABELS)).toBeUndefined();
    execFileSync('chmod', ['755', dir]);
    expect(folderProblem(dir, LABELS)).toBeUndefined();
  });

  it('never tells the person to chmod a shared sticky folder such as /tmp', () => {
    const dir = tempDir('svc-priv-');
    execFileSync('chmod', ['1777', dir]);
    const problem = folderProblem(dir, LABELS)?.message;
    expect(problem).toMatch(/permisos 1777/);
    expect(problem).not.toMatch(/chmod/);
    expect(problem).toContain('usá otra');
  });

  it('refuses a dangling symlink and a file where the folder should be', () => {
    const dir = tempDir('svc-priv-');
    symlinkSync(join(dir, 'gone'), join(dir, 'link'));
    expect(folderProblem(join(dir, 'link'), LABELS)?.message).toMatch(/enlace roto.*`rm /);
    writeFileSync(join(dir, 'file'), '');
    expect(folderProblem(join(dir, 'file'), LABELS)?.message).toMatch(/no es una carpeta/);
  });
});

describe('shellPath', () => {
  it('quotes a path with spaces or quotes so the fix can be pasted', () => {
    expect(shellPath('/home/a/.config/svc')).toBe('/home/a/.config/svc');
    expect(shellPath("/tmp/mi carpeta/it's")).toBe(`'/tmp/mi carpeta/it'\\''s'`);
  });
});
