// svc salud: the service's health (metadata only; the verb is salud.ts).
import { defineCommand, type CommandDef } from '../../define.js';

export const commands: CommandDef[] = [
  defineCommand({
    name: 'salud',
    summary: 'estado del servicio (no necesita clave)',
    examples: ['svc salud', 'svc salud --json'],
    load: () => import('./salud.js'),
  }),
];
