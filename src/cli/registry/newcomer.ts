// The first five minutes: the guided demo and shell completions (metadata only).
import { defineCommand, type CommandDef } from '../define.js';

export const newcomerCommands: CommandDef[] = [
  defineCommand({
    name: 'demo',
    summary: 'recorrido completo contra un sandbox y un receptor de notificaciones propios, sin cuenta',
    examples: ['svc demo', 'svc demo --json | jq -c .paso'],
    load: () => import('../commands/demo.js'),
  }),
  defineCommand({
    name: 'completion',
    summary: 'imprime el script de autocompletado para bash, zsh o fish',
    args: [{ name: 'shell', description: 'bash, zsh o fish', required: true, choices: ['bash', 'zsh', 'fish'] }],
    examples: [
      'svc completion bash > ~/.local/share/bash-completion/completions/svc',
      'svc completion zsh > "${fpath[1]}/_svc"',
      'svc completion fish > ~/.config/fish/completions/svc.fish',
    ],
    load: () => import('../commands/completion.js'),
  }),
];
