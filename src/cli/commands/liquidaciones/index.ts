// svc liquidaciones: estimated settlements (metadata only; the verb is liquidaciones.ts).
import { defineCommand, type CommandDef } from '../../define.js';

export const commands: CommandDef[] = [
  defineCommand({
    name: 'liquidaciones',
    summary: 'liquidaciones estimadas, con totales exactos',
    examples: ['svc liquidaciones', 'svc liquidaciones --json'],
    load: () => import('./liquidaciones.js'),
  }),
];
