// Completion scripts: the committed copies in completions/ equal what the command
// tree generates, and a real bash completes commands and enum values with them.
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, svcSpawned } from '../helpers/cli.js';
import { svc } from '../helpers/inproc.js';

const FILES = { bash: 'svc.bash', zsh: '_svc', fish: 'svc.fish' } as const;

/** What bash offers for the words typed so far (the last one is being completed). */
async function complete(words: string[]): Promise<string[]> {
  const script = `
source ${JSON.stringify(join(ROOT, 'completions', 'svc.bash'))}
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})
COMP_CWORD=${words.length - 1}
_svc_complete
printf '%s\\n' "\${COMPREPLY[@]}"
`;
  const r = await execa('bash', ['--norc', '--noprofile', '-c', script]);
  return r.stdout.split('\n').filter(Boolean);
}

describe('completions', () => {
  // A matrix, in-process through main(); the built binary runs `completion bash` in
  // startup.test.ts and the refusal below.
  it.each(Object.entries(FILES))(
    'completions/%s is what `svc completion` generates (run `npm run completions`)',
    async (shell, file) => {
      const r = await svc(['completion', shell]);
      expect(r.exitCode).toBe(0);
      expect(readFileSync(join(ROOT, 'completions', file), 'utf8')).toBe(r.stdout);
    },
  );

  it('bash: svc cob<TAB> → cobro', async () => {
    expect(await complete(['svc', 'cob'])).toEqual(['cobro']);
  });

  it('bash: svc cobro listar --estado P<TAB> → the P states', async () => {
    expect((await complete(['svc', 'cobro', 'listar', '--estado', 'P'])).sort()).toEqual([
      'PAGADA',
      'PAGADA_PARCIALMENTE',
      'PENDIENTE',
    ]);
  });

  it('bash: subcommands, options and other enums', async () => {
    expect(await complete(['svc', 'cobro', ''])).toEqual(
      expect.arrayContaining(['crear', 'listar', 'ver', 'sync']),
    );
    expect(await complete(['svc', 'transacciones', 'listar', '--medio', 'c'])).toEqual(['credito']);
    expect(await complete(['svc', '--json', 'cobro', 'listar', '--li'])).toEqual([
      '--limit',
      '--live',
    ]);
    expect(await complete(['svc', 'webhook', 'trigger', 'payment.ref'])).toEqual([
      'payment.refunded',
    ]);
  });

  it('each script speaks Spanish in its comments: what it is and how to install it', () => {
    for (const file of ['svc.bash', '_svc', 'svc.fish']) {
      const comments = readFileSync(join(ROOT, 'completions', file), 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('# '));
      expect(comments, file).toEqual([
        expect.stringMatching(
          /^# completado de (bash|zsh|fish) para svc: lo genera `svc completion \w+`; no lo edites\.$/,
        ),
        expect.stringMatching(/^# Instalación: svc completion \w+ > /),
      ]);
    }
  });

  it('an unknown shell is a usage error', async () => {
    const r = await svcSpawned(['completion', 'powershell']);
    expect(r.exitCode).toBe(2);
  });
});
