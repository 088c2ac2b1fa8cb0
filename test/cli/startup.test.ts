// Start-up stays cheap: --version and --help load no command implementation, no
// HTTP client, no prompts, no spinner; a command loads only what it uses.
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, tempDir } from '../helpers/cli.js';

async function loadsOf(args: string[]): Promise<string[]> {
  const file = join(tempDir(), 'loads.txt');
  const r = await execa('node', ['--import', join(ROOT, 'test/helpers/record-loads.mjs'), BIN, ...args], {
    env: { SVC_RECORD_LOADS: file, SVC_CONFIG_DIR: tempDir() },
    reject: false,
  });
  expect(r.exitCode).toBe(0);
  return readFileSync(file, 'utf8').trim().split('\n');
}

// A noun's index.js under cli/commands is metadata (what help is built from); any other file there is a verb.
const heavy = /node_modules\/(undici|@inquirer|ora|cli-table3|conf|zod)\/|\/dist\/(cli\/commands\/[^/]+\/(?!index\.js$)|cli\/shared|api\/client|sandbox|webhooks)/;
const verbs = (loads: string[]) =>
  loads.filter((u) => u.includes('/dist/cli/commands/') && !u.endsWith('/index.js')).map((u) => u.split('/dist/cli/commands/')[1]);

describe('start-up', () => {
  it('svc --version loads nothing but the entry and the version', async () => {
    const loads = await loadsOf(['--version']);
    expect(loads.filter((u) => u.includes('node_modules'))).toEqual([]);
    expect(loads.filter((u) => u.includes('/dist/')).map((u) => u.split('/dist/')[1]).sort()).toEqual(['cli/entry.js', 'version.js']);
  });

  it('svc --help and svc cobro crear --help load no implementation, client, prompt or spinner', async () => {
    for (const args of [['--help'], ['cobro', 'crear', '--help'], ['webhook', '--help']]) {
      const loads = await loadsOf(args);
      expect(loads.filter((u) => heavy.test(u))).toEqual([]);
      expect(loads.some((u) => u.includes('node_modules/commander/'))).toBe(true);
    }
  });

  it('a read command loads its own implementation and not the others', async () => {
    const loads = await loadsOf(['completion', 'bash']);
    expect(verbs(loads)).toEqual(['completion/completion.js']);
  });
});
