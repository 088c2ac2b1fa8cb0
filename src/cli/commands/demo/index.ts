// svc demo: the first five minutes, against a sandbox of its own (metadata only; the verb is demo.ts).
import { defineCommand, type CommandDef } from '../../define.js';

export const commands: CommandDef[] = [
  defineCommand({
    name: 'demo',
    summary:
      'recorrido completo contra un sandbox y un receptor de notificaciones propios, sin cuenta',
    examples: ['svc demo', 'svc demo --json | jq -c .paso'],
    load: () => import('./demo.js'),
  }),
];
