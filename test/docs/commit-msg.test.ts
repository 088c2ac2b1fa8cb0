// The commit-message hook of CONTRIBUTING.md (.githooks/commit-msg): a subject of at most
// 72 characters, counted as characters, and a blank line before the body.
import { execa } from 'execa';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/cli.js';

const dir = tempDir('svc-commit-msg-');
async function check(message: string) {
  const file = join(dir, 'COMMIT_EDITMSG');
  writeFileSync(file, message);
  const r = await execa(process.execPath, [join(ROOT, '.githooks/commit-msg'), file], {
    reject: false,
  });
  return { code: r.exitCode, stderr: String(r.stderr) };
}

describe('.githooks/commit-msg', () => {
  it('takes a short subject, a blank line and a body; a long one counted in characters', async () => {
    expect(await check('Refund plans name who applied them\n\nWhy and figures.\n')).toEqual({
      code: 0,
      stderr: '',
    });
    expect((await check(`${'ñ'.repeat(72)}\n\n# a comment git drops\n`)).code).toBe(0);
  });

  it('refuses a subject over 72 characters, a body without the blank line, an empty message', async () => {
    const long = await check(`${'a'.repeat(73)}\n\nbody\n`);
    expect(long.code).toBe(1);
    expect(long.stderr).toContain('73 characters; at most 72');
    const glued = await check('Subject\nbody right under it\n');
    expect(glued.code).toBe(1);
    expect(glued.stderr).toContain('blank line');
    expect((await check('# only comments\n\n')).code).toBe(1);
  });
});
