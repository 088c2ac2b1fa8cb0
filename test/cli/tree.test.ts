// main builds only the part of the command tree argv names (cli/program.ts
// commandsFor): the noun of the first word that is not a global option or its
// value; the whole tree when that word is unknown (so its suggestion can come) or
// `help`.
import { describe, expect, it } from 'vitest';
import { commandsFor } from '../../src/cli/program.js';
import { commands, groups } from '../../src/cli/registry.js';

const nouns = (argv: string[]) => [
  ...new Set(commandsFor(argv, groups, commands).commands.map((c) => c.name.split(' ')[0])),
];

describe('the tree main builds', () => {
  it('is the noun argv names, after global options and their values', () => {
    expect(nouns(['cobro', 'ver', '1'])).toEqual(['cobro']);
    expect(nouns(['--profile', 'cobro', '--base-url', 'http://x', 'caso', 'ABC'])).toEqual([
      'caso',
    ]);
    expect(nouns(['--json', '-y', 'devolver', '7'])).toEqual(['devolver']);
    expect(nouns(['sandbox', 'reloj'])).toEqual(['sandbox']);
  });

  it('is every command for an unknown word, help, or no word', () => {
    const all = [...new Set(commands.map((c) => c.name.split(' ')[0]))];
    expect(all.length).toBeGreaterThan(10);
    for (const argv of [['cobr', 'ver'], ['help', 'cobro'], ['--json'], []])
      expect(nouns(argv), argv.join(' ')).toEqual(all);
  });
});
