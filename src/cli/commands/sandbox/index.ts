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
  {
    flags: '--port <puerto>',
    description: `puerto; 0 elige uno libre (default ${DEFAULTS.sandboxPort})`,
  },
  {
    flags: '--data <archivo>',
    description:
      'guarda el estado en este archivo (journal) y lo retoma al reiniciar; sin esto vive en memoria',
  },
  {
    flags: '--webhook-url <url>',
    description: 'adonde enviar las notificaciones firmadas (https, o http en 127.0.0.1/localhost)',
  },
  {
    flags: '--tz <zona>',
    description: `zona horaria de las fechas (default ${DEFAULTS.timeZone})`,
  },
  {
    flags: '--retry-schedule <ms,ms,…>',
    description: `esperas entre reintentos de notificación (default ${DEFAULTS.retryScheduleMs.join(',')})`,
  },
  {
    flags: '--ready-delay <ms>',
    description: `demora hasta que cvu y qr están listos (default ${DEFAULTS.readyDelayMs})`,
  },
  {
    flags: '--por-pagina <n>',
    description: `pagina las listas de a n elementos (?pagina=, has_more, next y Link rel="next"), como puede hacerlo un servicio real (default ${DEFAULTS.sandboxPageSize}); 0 da cada lista entera`,
  },
  {
    flags: '--comprimir <codificación>',
    description:
      'responde /v1 comprimido (Content-Encoding gzip, deflate o br) aunque el cliente no lo pida, como puede hacer un servicio real',
    choices: ['gzip', 'deflate', 'br'],
  },
  {
    flags: '--campos-extra',
    description:
      'cada registro de /v1 lleva campos que el contrato no muestra (canal, metadatos), como puede agregar un servicio real',
  },
  {
    flags: '--fechas-con-zona',
    description:
      'las fechas de los registros de id impar van en ISO 8601 con zona, en UTC (2026-11-27T08:10:03Z); las demás, locales como siempre',
  },
  {
    flags: '--estados-nuevos',
    description:
      'los registros de id múltiplo de 3 llevan un estado que el contrato no lista (EN_REVISION, EN_DISPUTA, retenido), y las transacciones el medio billetera',
  },
  {
    flags: '--escenario <archivo>',
    description:
      'arranca con un estado conocido (JSON: cobros con sus pagos, rechazos, vencimientos y devoluciones; ver svc sandbox escenario exportar)',
  },
  {
    flags: '--generar <n>',
    description:
      'arranca con un año de historia: n cobros repartidos en los últimos 365 días, pagados, en parte, vencidos, rechazados o devueltos, con sus liquidaciones y notificaciones (un archivo de datos sin cobros)',
  },
]);

export const compactarOptions = defineOptions([
  {
    flags: '--data <archivo>',
    description: 'el archivo de datos (el de svc sandbox --data); no puede estar en uso',
  },
]);

/** The options of the payer simulations (only `pagar` declares them). */
export const pagarOptions = defineOptions([
  { flags: '--monto <monto>', description: 'monto pagado (default: lo que falta)' },
  {
    flags: '--medio <medio>',
    description: 'medio de pago (default: el primero que el cobro acepta)',
    choices: MEDIOS,
  },
]);

/** The failures `svc sandbox fallas agregar --tipo` knows, by the name a developer uses. */
export const TIPOS_FALLA = [
  '500',
  '500-despues',
  '502-html',
  '503',
  '429',
  'lento',
  'cortar',
  'cortar-despues',
] as const;

export const fallasAgregarOptions = defineOptions([
  {
    flags: '--ruta <ruta>',
    description: 'ruta que falla, ej. /v1/cobros/1 o /v1/cobros* (obligatoria con agregar)',
  },
  { flags: '--metodo <método>', description: 'GET, POST… (default: cualquiera)' },
  {
    flags: '--tipo <tipo>',
    description:
      'qué pasa: 500, 500-despues (procesado y respondido 500), 502-html (una página de proxy), 503, 429, lento, cortar (sin respuesta), cortar-despues (procesado y sin respuesta)',
    choices: TIPOS_FALLA,
  },
  { flags: '--veces <n>', description: 'cuántos pedidos que coincidan fallan (default 1)' },
  {
    flags: '--cada <n>',
    description:
      'falla uno de cada n pedidos que coincidan, los demás pasan (una falla intermitente; default 1: todos)',
  },
  {
    flags: '--demora <ms>',
    description: 'con --tipo lento: cuánto tarda la respuesta (default 5000)',
  },
]);

const follow = {
  flags: '-f, --follow',
  description: 'sigue mostrando lo nuevo hasta Ctrl-C',
} as const;
/** A log is a tail, oldest first: --limit keeps the last n (as `tail -n`). */
const tailLimit = {
  flags: '--limit <n>',
  description: 'solo las últimas n líneas (como tail -n)',
} as const;

export const logOptions = defineOptions([
  follow,
  { flags: '--metodo <método>', description: 'solo este método' },
  { flags: '--ruta <prefijo>', description: 'solo rutas que empiezan así' },
  { flags: '--estado <status>', description: 'solo este status HTTP (ej. 404), o 4xx / 5xx' },
  tailLimit,
]);
export const entregasOptions = defineOptions([follow, tailLimit]);

export const webhookOptions = defineOptions([
  { flags: '--borrar', description: 'deja de enviar notificaciones' },
]);

export const commands: CommandDef[] = [
  defineCommand({
    name: 'sandbox',
    summary:
      'el servicio completo en tu máquina (127.0.0.1), sin cuenta: claves de test, pagos simulados, notificaciones firmadas',
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
    summary:
      'reescribe el archivo de datos de un sandbox detenido con solo su estado actual (lo que se reemplazó se va)',
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
  defineCommand({
    name: 'sandbox reenviar',
    summary:
      'envía de nuevo una notificación a tu app (el número de evento de `svc sandbox entregas`); el cobro no cambia',
    args: [{ name: 'evento', description: 'número del evento (entero)', required: true }],
    examples: ['svc sandbox entregas', 'svc sandbox reenviar 7'],
    load: () => import('./reenviar.js'),
  }),
  defineCommand({
    name: 'sandbox fallas',
    summary:
      'hace fallar los próximos pedidos a una ruta (error 5xx, 429, una página HTML, lentitud, conexión cortada); lista o borra las pendientes',
    args: [
      {
        name: 'acción',
        description: 'agregar, listar o borrar',
        required: true,
        choices: ['agregar', 'listar', 'borrar'],
      },
    ],
    options: fallasAgregarOptions,
    examples: [
      'svc sandbox fallas agregar --ruta /v1/cobros --metodo POST --tipo 503',
      'svc sandbox fallas agregar --ruta "/v1/cobros*" --tipo lento --demora 8000 --veces 3',
      'svc sandbox fallas listar',
      'svc sandbox fallas borrar',
    ],
    load: () => import('./fallas.js'),
  }),
  defineCommand({
    name: 'sandbox log',
    summary:
      'los pedidos que recibió el sandbox: hora, método, ruta, status, demora (con --follow, en vivo)',
    options: logOptions,
    examples: [
      'svc sandbox log',
      'svc sandbox log --follow --estado 5xx',
      'svc sandbox log --metodo POST --ruta /v1/cobros --json',
    ],
    load: () => import('./log.js').then((m) => ({ run: m.log })),
  }),
  defineCommand({
    name: 'sandbox entregas',
    summary:
      'los intentos de entrega de notificaciones del sandbox: evento, cobro, destino, status, demora (con --follow, en vivo)',
    options: entregasOptions,
    examples: [
      'svc sandbox entregas',
      'svc sandbox entregas --follow',
      'svc sandbox entregas --json',
    ],
    load: () => import('./log.js').then((m) => ({ run: m.entregas })),
  }),
  defineCommand({
    name: 'sandbox webhook',
    summary:
      'a dónde envía las notificaciones el sandbox que corre (sin reiniciarlo); sin URL, lo muestra',
    args: [
      {
        name: 'url',
        description: 'la URL de tu app (ej. localhost:3000/webhooks)',
        required: false,
      },
    ],
    options: webhookOptions,
    examples: [
      'svc sandbox webhook',
      'svc sandbox webhook localhost:3000/webhooks',
      'svc sandbox webhook --borrar',
    ],
    load: () => import('./webhook.js'),
  }),
  defineCommand({
    name: 'sandbox reloj',
    summary:
      'el reloj del sandbox; `avanzar 8d` lo adelanta y hace lo que vence en ese tiempo (cobros vencidos, reintentos de notificación); `reiniciar` lo vuelve a la hora real',
    args: [
      {
        name: 'acción',
        description: 'avanzar o reiniciar (sin nada: muestra la hora del sandbox)',
        required: false,
        choices: ['avanzar', 'reiniciar'],
      },
      {
        name: 'duración',
        description: 'cuánto (con avanzar): 30m, 12h, 8d, 1d12h',
        required: false,
      },
    ],
    examples: [
      'svc sandbox reloj',
      'svc sandbox reloj avanzar 8d',
      'svc sandbox reloj avanzar 90m --json',
      'svc sandbox reloj reiniciar',
    ],
    load: () => import('./reloj.js'),
  }),
  defineCommand({
    name: 'sandbox escenario',
    summary:
      'imprime el estado del sandbox como escenario (JSON), para volver a arrancar con él: svc sandbox --escenario ARCHIVO',
    args: [{ name: 'acción', description: 'exportar', required: true, choices: ['exportar'] }],
    examples: [
      'svc sandbox escenario exportar > estado.json',
      'svc sandbox --escenario estado.json',
    ],
    load: () => import('./escenario.js'),
  }),
];
