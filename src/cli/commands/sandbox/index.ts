// svc sandbox (the service on loopback, sandbox.ts) and its payer simulation and
// maintenance verbs (metadata only; each verb is its own file beside this one).
import { MEDIOS } from '../../../api/enums.js';
import { DEFAULTS } from '../../../defaults.js';
import { defineCommand, defineOptions, type CommandDef, type GroupDef } from '../../define.js';

export const group: GroupDef = {
  name: 'sandbox',
  summary: 'el servicio completo en tu máquina, sin cuenta',
  examples: ['svc sandbox', 'svc sandbox --port 0 --json'],
};

const idArg = [{ name: 'id', description: 'id de la solicitud de cobro (entero)', required: true }];

export const sandboxOptions = defineOptions([
  { flags: '--host <host>', description: `dirección donde escucha (default ${DEFAULTS.host})` },
  { flags: '--port <puerto>', description: `puerto; 0 elige uno libre (default ${DEFAULTS.sandboxPort})` },
  { flags: '--data <archivo>', description: 'guarda el estado en este archivo (journal) y lo retoma al reiniciar; sin esto vive en memoria' },
  { flags: '--webhook-url <url>', description: 'adonde enviar las notificaciones firmadas (https, o http en 127.0.0.1/localhost)' },
  { flags: '--tz <zona>', description: `zona horaria de las fechas (default ${DEFAULTS.timeZone})` },
  { flags: '--retry-schedule <ms,ms,…>', description: `esperas entre reintentos de notificación (default ${DEFAULTS.retryScheduleMs.join(',')})` },
  { flags: '--ready-delay <ms>', description: `demora hasta que cvu y qr están listos (default ${DEFAULTS.readyDelayMs})` },
]);

export const compactarOptions = defineOptions([
  { flags: '--data <archivo>', description: 'el archivo de datos (el de svc sandbox --data); no puede estar en uso' },
]);

/** The options of the payer simulations (only `pagar` declares them). */
export const pagarOptions = defineOptions([
  { flags: '--monto <monto>', description: 'monto pagado (default: lo que falta)' },
  { flags: '--medio <medio>', description: 'medio de pago (default: el primero que el cobro acepta)', choices: MEDIOS },
]);

export const commands: CommandDef[] = [
  defineCommand({
    name: 'sandbox',
    summary: 'el servicio completo en tu máquina (127.0.0.1), sin cuenta: claves de test, pagos simulados, notificaciones firmadas',
    options: sandboxOptions,
    examples: [
      'svc sandbox',
      'svc sandbox --port 0 --json',
      'svc sandbox --data ./sandbox.jsonl --webhook-url http://127.0.0.1:8080/webhooks',
    ],
    load: () => import('./sandbox.js'),
  }),
  defineCommand({
    name: 'sandbox compactar',
    summary: 'reescribe el archivo de datos de un sandbox detenido con solo su estado actual (lo que se reemplazó se va)',
    options: compactarOptions,
    examples: ['svc sandbox compactar --data ./sandbox.jsonl'],
    load: () => import('./compactar.js'),
  }),
  defineCommand({
    name: 'sandbox iniciar',
    summary: 'simula que el pagador empezó a pagar (EN_PROCESO, payment.pending)',
    args: idArg,
    examples: ['svc sandbox iniciar 42'],
    load: () => import('./iniciar.js'),
  }),
  defineCommand({
    name: 'sandbox pagar',
    summary: 'simula un pago acreditado, total o parcial (PAGADA o PAGADA_PARCIALMENTE)',
    args: idArg,
    options: pagarOptions,
    examples: ['svc sandbox pagar 42', 'svc sandbox pagar 42 --monto 500.00 --medio credito'],
    load: () => import('./pagar.js'),
  }),
  defineCommand({
    name: 'sandbox rechazar',
    summary: 'simula un pago rechazado (transacción RECHAZADO, cobro CANCELADO)',
    args: idArg,
    examples: ['svc sandbox rechazar 42'],
    load: () => import('./rechazar.js'),
  }),
  defineCommand({
    name: 'sandbox expirar',
    summary: 'vence la solicitud ahora (CANCELADO, payment.rejected)',
    args: idArg,
    examples: ['svc sandbox expirar 42'],
    load: () => import('./expirar.js'),
  }),
];
