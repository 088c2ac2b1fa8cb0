// svc devolver <id>: refunds (metadata only; the verb is devolver.ts). A one-verb noun
// has its folder too, so every command is found the same way: the first word names the folder.
import {
  cobroArg,
  defineCommand,
  defineOptions,
  referenciaOption,
  separadorOption,
  type CommandDef,
} from '../../define.js';

export const devolverOptions = defineOptions([
  { flags: '--monto <monto>', description: 'monto a devolver, ej. 500.00 (o --total)' },
  { flags: '--total', description: 'devuelve todo lo que queda por devolver' },
  {
    flags: '--transaccion <id>',
    description: 'devuelve sobre esa transacción (tiene que ser del cobro y estar ACREDITADO)',
  },
  referenciaOption,
  {
    flags: '--plan <archivo>',
    description: 'no devuelve: escribe un plan (JSON, 0600) que otra persona aplica con --aplicar',
  },
  {
    flags: '--motivo <texto>',
    description:
      'con --plan: por qué se devuelve; queda en el plan, con quién lo preparó, para quien lo aplique',
  },
  {
    flags: '--aplicar <archivo>',
    description: 'aplica un plan escrito con --plan, si nada cambió desde entonces (una sola vez)',
  },
  {
    flags: '--lote <archivo.csv>',
    description:
      'con --plan: un plan de muchas devoluciones, una por fila (columnas cobro, monto o "total", transaccion, motivo)',
  },
  separadorOption,
  {
    flags: '--resultado <archivo.csv>',
    description:
      'al aplicar un lote: escribe fila, cobro, monto, estado, devolucion_id y error de cada fila',
  },
  {
    flags: '--paralelo <n>',
    description: 'al aplicar un lote: cuántas devoluciones a la vez (1 por defecto, hasta 4)',
  },
  {
    flags: '--dry-run',
    description:
      'muestra la devolución y hace todos los controles, sin enviar nada (sale 0 si se aceptaría, 2 si no)',
  },
]);

export const commands: CommandDef[] = [
  defineCommand({
    name: 'devolver',
    summary:
      'devuelve todo o parte de un cobro acreditado: muestra lo que queda y confirma (en live, escribiendo el monto)',
    // One variadic argument keeps the usage line short: `planes [CARPETA]` is the only form with two.
    args: [
      {
        ...cobroArg,
        description:
          'id del cobro (entero) o su código de 10 caracteres; o "planes [carpeta]": lista los planes de una carpeta',
        variadic: true,
      },
    ],
    options: devolverOptions,
    examples: [
      'svc devolver 42 --monto 500.00',
      'svc devolver 42 --total',
      'svc devolver K7QM3XW9PA --monto 500 --dry-run',
      'svc devolver 42 --monto 250 --plan devolucion-42.json --motivo "producto fallado"',
      'svc devolver --aplicar devolucion-42.json',
      'svc devolver --lote devoluciones.csv --plan lote.json --motivo "evento cancelado"',
      'svc devolver --aplicar lote.json --resultado resultado.csv',
      'svc devolver planes ~/planes',
      'svc devolver 42 --monto 250 --transaccion 7',
      'svc devolver 42 --total --live --yes --json',
    ],
    load: () => import('./devolver.js'),
  }),
];
