// What quick.ts answers without loading svc (start-up, #16): the version and every
// help page, rendered at build time by running main itself, so a page is byte for
// byte what main prints at 80 columns. bundle.mjs, beside it, writes the index to
// dist/cli/quick.json and the pages, one after the other, to dist/cli/help.txt.
import { Command } from 'commander';
import { Writable } from 'node:stream';
import { buildProgram, MEANT } from '../cli/program.js';
import { commands, groups } from '../cli/registry.js';
import { main } from '../main.js';
import { VERSION } from '../version.js';
import type { QuickIndex } from '../cli/quick.js';

/** Every path of words svc's tree answers --help for, aliases included. */
export function helpPaths(): string[][] {
  const program = buildProgram(VERSION, groups, commands, async () => {}, {
    writeOut: () => {},
    writeErr: () => {},
  });
  const paths: string[][] = [];
  const walk = (cmd: Command, path: string[]) => {
    paths.push(path);
    for (const sub of cmd.commands) {
      // The words that only say which command was meant have no page.
      if (
        path.length === 1 &&
        MEANT.some(([group, word]) => group === path[0] && word === sub.name())
      )
        continue;
      for (const name of [sub.name(), ...sub.aliases()]) walk(sub, [...path, name]);
    }
  };
  walk(program, []);
  return paths;
}

/** What main prints on stdout for argv, and its exit code. */
export async function printed(argv: string[]): Promise<{ out: string; code: number }> {
  let out = '';
  const sink = (write: (s: string) => void) =>
    new Writable({ write: (chunk, _enc, done) => (write(String(chunk)), done()) });
  const code = await main(argv, {
    stdout: sink((s) => (out += s)),
    stderr: sink(() => {}),
    stdin: process.stdin,
    env: {},
  });
  return { out, code };
}

/** The index (each path's page as a byte range of `text`) and the pages. */
export async function quickPages(): Promise<{ index: QuickIndex; text: string }> {
  const index: QuickIndex = { version: VERSION, help: {} };
  const seen = new Map<string, [number, number]>();
  let text = '';
  for (const path of helpPaths()) {
    const { out, code } = await printed([...path, '--help']);
    if (code !== 0) throw new Error(`svc ${path.join(' ')} --help salió con ${code}`);
    let range = seen.get(out);
    if (!range) {
      const start = Buffer.byteLength(text);
      text += out;
      range = [start, start + Buffer.byteLength(out)];
      seen.set(out, range);
    }
    index.help[path.join(' ')] = range;
  }
  return { index, text };
}
