// Start-up stays cheap: --version and --help load one file; help that main renders
// loads no verb, prompt, spinner or table; a command loads only what it uses. The CLI is
// bundled (dist/cli/entry.cjs and its chunks in dist/chunks/): what a chunk holds is
// read from the source comments rolldown writes above each module it bundled.
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, tempDir } from '../helpers/cli.js';

/** The source modules (src/… and node_modules/<package>/…) held by the files a run loaded. */
async function sourcesOf(args: string[]): Promise<{ files: string[]; sources: string[] }> {
  const file = join(tempDir(), 'loads.txt');
  const r = await execa(
    'node',
    ['--import', join(ROOT, 'test/helpers/record-loads.mjs'), BIN, ...args],
    {
      env: { SVC_RECORD_LOADS: file, SVC_CONFIG_DIR: tempDir() },
      reject: false,
    },
  );
  expect(r.exitCode, r.stderr).toBe(0);
  const files = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter((u) => u.startsWith('file:'));
  const sources = new Set<string>();
  for (const url of files) {
    const path = fileURLToPath(url);
    if (!path.includes('/dist/')) {
      if (path.includes('node_modules/')) sources.add(path.slice(path.indexOf('node_modules/')));
      continue;
    }
    for (const m of readFileSync(path, 'utf8').matchAll(
      /^\/\/ (?:[./\w-]*\/)?((?:node_modules|src)\/\S+)$/gm,
    ))
      sources.add(m[1]!);
  }
  return {
    files: files.map((u) => u.slice(u.lastIndexOf('/dist/') + 1)),
    sources: [...sources].sort(),
  };
}

// A noun's index.ts under cli/commands is metadata (what help is built from); any other
// file there is a verb. The core chunk (src/build/bundle.mjs) holds what nearly every
// call runs, the API client and zod included; these stay out of it.
const heavy =
  /node_modules\/(undici|@inquirer|ora|cli-table3|qrcode-generator|@modelcontextprotocol|zod\/v3)\/|^src\/(cli\/commands\/[^/]+\/(?!index\.ts$)|sandbox|webhooks|mcp)/;
const verbs = (sources: string[]) =>
  sources
    .filter((s) => s.startsWith('src/cli/commands/') && !s.endsWith('/index.ts'))
    .map((s) => s.slice('src/cli/commands/'.length));

describe('start-up', () => {
  // quick.test.ts shows, in-process, that the pages answer every form of help (`--help`,
  // `help webhook`, …); bin/svc.js prints whatever they answer, so two forms prove it.
  it('svc --version and help load one module: the pages the build wrote (quick.test.ts)', async () => {
    for (const args of [['--version'], ['cobro', 'crear', '--help']]) {
      const { files, sources } = await sourcesOf(args);
      expect(
        files.filter((f) => f.startsWith('dist/')),
        args.join(' '),
      ).toEqual(['dist/cli/quick.cjs']);
      expect(sources).toEqual(['src/cli/quick.ts']);
    }
  });

  it('help that main renders (a narrow terminal, an alias of a group) loads no implementation, client, prompt or spinner', async () => {
    for (const args of [
      ['--help', '--no-color'],
      ['webhook', '--no-color', '--help'],
    ]) {
      const { sources } = await sourcesOf(args);
      expect(sources.filter((s) => heavy.test(s))).toEqual([]);
      expect(sources.some((s) => s.startsWith('node_modules/commander/'))).toBe(true);
    }
  });

  it('a command loads its own implementation and not the others, in a handful of files', async () => {
    const { files, sources } = await sourcesOf(['completion', 'bash']);
    expect(verbs(sources)).toEqual(['completion/completion.ts']);
    expect(
      sources.filter((s) => heavy.test(s) && !s.startsWith('src/cli/commands/completion/')),
    ).toEqual([]);
    // quick.cjs, entry.cjs, core, rolldown's helpers, the verb: each file costs a resolve, a read and a compile.
    expect(files.filter((f) => f.startsWith('dist/')).length).toBeLessThanOrEqual(6);
  });
});
