// svc liquidaciones: estimated settlements (metadata only; the verb is liquidaciones.ts).
import { cobroOption, limitOption, defineCommand, defineOptions, type CommandDef } from '../../define.js';

export const liquidacionesOptions = defineOptions([
  { flags: '--por-fecha', description: 'totales (bruto, te_cobramos, te_queda) por fecha estimada de acreditación, exactos' },
  cobroOption,
  limitOption,
]);

export const commands: CommandDef[] = [
  defineCommand({
    name: 'liquidaciones',
    csv: true,
    summary: 'liquidaciones estimadas, con totales exactos',
    options: liquidacionesOptions,
    examples: ['svc liquidaciones', 'svc liquidaciones --por-fecha', 'svc liquidaciones --json'],
    load: () => import('./liquidaciones.js'),
  }),
];
