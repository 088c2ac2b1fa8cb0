// The README never drifts: every line of its ```sh blocks is run, in order, in one
// temp folder, against a fresh sandbox, with `svc` being the built CLI. A line may
// end with `# exit N` when it shows a refusal on purpose.
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, expectNoStack, tempDir } from './helpers/cli.js';
import { startSandbox, type Sandbox } from './helpers/sandbox.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const lines = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)]
  .flatMap((m) => m[1]!.split('\n'))
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'));

let sb: Sandbox;
const cwd = tempDir('svc-readme-');
const config = tempDir('svc-readme-config-');
beforeAll(async () => {
  sb = await startSandbox(['--ready-delay', '0']);
});
afterAll(async () => {
  await sb?.stop();
});

describe('README', () => {
  it('has a tour to run', () => {
    expect(lines.length).toBeGreaterThan(20);
  });

  // Dozens of commands one after another: on a loaded 2-core machine this takes minutes, not seconds.
  it('every command it shows runs as shown', async () => {
    for (const line of lines) {
      const expected = Number(/# exit (\d+)$/.exec(line)?.[1] ?? 0);
      const command = line.replace(/\s+# exit \d+$/, '');
      const r = await execa('bash', ['--norc', '--noprofile', '-c', `svc() { node ${JSON.stringify(BIN)} "$@"; }\nset -o pipefail\n${command}`], {
        cwd,
        reject: false,
        env: { ...sb.env, SVC_CONFIG_DIR: config, SVC_DATA_DIR: cwd, NO_COLOR: '1' },
      });
      expect({ line, exitCode: r.exitCode, stderr: r.exitCode !== expected ? r.stderr : '' }).toEqual({ line, exitCode: expected, stderr: '' });
      expectNoStack(r.stderr);
    }
  }, 300_000);
});
