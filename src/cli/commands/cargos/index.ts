// svc cargos: fees by payment method (metadata only; the verb is cargos.ts).
import { defineCommand, type CommandDef } from '../../define.js';

export const commands: CommandDef[] = [
  defineCommand({
    name: 'cargos',
    summary: 'porcentaje de cargo por medio de pago',
    examples: ['svc cargos'],
    load: () => import('./cargos.js'),
  }),
];
