// Commands that change payment requests: create, refresh (sync) and refund
// (metadata only; see registry/index.ts).
import { defineCommand, type CommandDef } from '../define.js';

const idArg = [{ name: 'id', description: 'id del cobro (entero)', required: true }];
const mostrarQr = {
  flags: '--mostrar-qr',
  description: 'imprime el código QR del cobro en la terminal cuando está listo (no confundir con --no-qr)',
};

const sync = (name: string, load: CommandDef['load']) =>
  defineCommand({
    name,
    summary: 'actualiza el estado de un cobro (POST …/sync) y muestra si cambió',
    args: idArg,
    options: [mostrarQr],
    examples: ['svc sync 42', 'svc cobro sync 42 --json | jq -r .estado', 'svc sync 42 --mostrar-qr'],
    load,
  });

export const cobroCommands: CommandDef[] = [
  defineCommand({
    name: 'cobro crear',
    aliases: ['create'],
    summary: 'crea una solicitud de cobro e imprime el link de pago',
    options: [
      { flags: '--concepto <texto>', description: 'texto que ve quien paga (obligatorio; hasta 200 caracteres)' },
      { flags: '--monto <monto>', description: 'monto decimal con punto y hasta dos decimales, ej. 1500 o 1500.50 (obligatorio)' },
      {
        flags: '--vencimiento <fecha>',
        description:
          'vencimiento: 2026-12-24T18:00:00-03:00, 2026-12-24 (hasta las 23:59:59), "2026-12-24 18:00", +3d, +12h o +30m; hora local; sin esta opción, 7 días',
      },
      { flags: '--referencia <texto>', description: 'tu propio identificador (hasta 100 caracteres)' },
      { flags: '--success-url <url>', description: 'a dónde vuelve quien paga si sale bien (https)' },
      { flags: '--error-url <url>', description: 'a dónde vuelve quien paga si falla (https)' },
      { flags: '--no-tarjeta', description: 'no acepta pagos con tarjeta' },
      { flags: '--no-qr', description: 'no acepta pagos con QR' },
      { flags: '--no-transferencia', description: 'no acepta transferencias' },
      mostrarQr,
    ],
    examples: [
      'svc cobro crear --concepto "Pedido 1042" --monto 1500.00',
      'svc cobro crear --concepto "Seña" --monto 2000 --vencimiento +3d --referencia pedido-1042',
      'svc cobro crear --concepto "Clase" --monto 800 --vencimiento "2026-12-24 18:00" --no-tarjeta --mostrar-qr',
      'svc cobro crear --concepto "Pedido 7" --monto 99.90 --json | jq -r .url',
    ],
    load: () => import('../commands/cobro/crear.js'),
  }),
  sync('cobro sync', () => import('../commands/cobro/sync.js')),
  sync('sync', () => import('../commands/sync.js')),
  defineCommand({
    name: 'devolver',
    summary: 'devuelve todo o parte de un cobro acreditado: muestra lo que queda y confirma (en live, escribiendo el monto)',
    args: idArg,
    options: [
      { flags: '--monto <monto>', description: 'monto a devolver, ej. 500.00 (o --total)' },
      { flags: '--total', description: 'devuelve todo lo que queda por devolver' },
      { flags: '--transaccion <id>', description: 'devuelve sobre esa transacción (tiene que ser del cobro y estar ACREDITADO)' },
    ],
    examples: [
      'svc devolver 42 --monto 500.00',
      'svc devolver 42 --total',
      'svc devolver 42 --monto 250 --transaccion 7',
      'svc devolver 42 --total --live --yes --json',
    ],
    load: () => import('../commands/devolver.js'),
  }),
];
