// svc completion <shell> (metadata only; the verb is completion.ts).
import { defineCommand, type CommandDef } from '../../define.js';

export const commands: CommandDef[] = [
  defineCommand({
    name: 'completion',
    summary: 'imprime el script de autocompletado para bash, zsh o fish',
    args: [
      {
        name: 'shell',
        description: 'bash, zsh o fish',
        required: true,
        choices: ['bash', 'zsh', 'fish'],
      },
    ],
    examples: [
      'svc completion bash > ~/.local/share/bash-completion/completions/svc',
      'svc completion zsh > "${fpath[1]}/_svc"',
      'svc completion fish > ~/.config/fish/completions/svc.fish',
    ],
    load: () => import('./completion.js'),
  }),
];
