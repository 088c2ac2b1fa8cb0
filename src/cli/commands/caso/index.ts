// svc caso <id|código> | --referencia <texto>: the whole story of one payment request
// for support staff (metadata only; the verb is caso.ts).
import {
  cobroArg,
  defineCommand,
  defineOptions,
  referenciaOption,
  type CommandDef,
} from '../../define.js';

export const casoOptions = defineOptions([
  referenciaOption,
  {
    flags: '--markdown',
    description:
      'un informe para pegar en un ticket: título con el código, tablas y totales (sin claves ni firmas)',
  },
  {
    flags: '--journal <archivo>',
    description: 'journal de notificaciones a leer (por defecto el de svc webhook listen)',
  },
]);

export const commands: CommandDef[] = [
  defineCommand({
    name: 'caso',
    summary:
      'todo sobre un cobro: estado, pagos, devoluciones (y lo que queda), liquidaciones y notificaciones recibidas, en orden',
    args: [cobroArg],
    options: casoOptions,
    examples: [
      'svc caso K7QM3XW9PA',
      'svc caso --referencia pedido-1042',
      'svc caso 42 --markdown > caso-42.md',
      'svc caso 42 --json | jq .devoluciones',
    ],
    load: () => import('./caso.js'),
  }),
];
