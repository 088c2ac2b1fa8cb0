// svc cuenta: the merchant's account (metadata only; the verb is cuenta.ts).
import { defineCommand, type CommandDef } from '../../define.js';

export const commands: CommandDef[] = [
  defineCommand({
    name: 'cuenta',
    summary: 'datos de la cuenta y si puede cobrar',
    examples: ['svc cuenta', 'svc cuenta --json | jq .puede_cobrar'],
    load: () => import('./cuenta.js'),
  }),
];
