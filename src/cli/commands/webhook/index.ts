// svc webhook verify|sign|listen|trigger|replay|eventos|ver|conciliar|probar: signed notifications
// (metadata only; each verb is its own file beside this one).
import { ESTADOS_COBRO, EVENTOS } from '../../../api/enums.js';
import { DEFAULTS, LOCAL_LISTENER_URL } from '../../../defaults.js';
import {
  limitOption,
  defineCommand,
  defineOptions,
  type CommandDef,
  type GroupDef,
} from '../../define.js';

export const group: GroupDef = {
  name: 'webhook',
  summary:
    'notificaciones firmadas: verify, sign, listen, trigger, replay, eventos, ver, conciliar, probar',
};

const secretFromEnv = {
  flags: '--secret-from-env',
  description:
    'usa el secreto de SVC_WEBHOOK_SECRET (sin esto: SVC_WEBHOOK_SECRET o el del perfil); nunca va en un flag',
} as const;
const journal = {
  flags: '--journal <archivo>',
  description: 'archivo del journal (default: webhooks.jsonl en la carpeta de datos de svc)',
} as const;
const tolerance = {
  flags: '--tolerance <segundos>',
  description: `antigüedad aceptada del timestamp, en ambos sentidos (default ${DEFAULTS.toleranceSeconds}; 0 la desactiva)`,
} as const;
const header = {
  flags: '-H, --header <"Nombre: valor">',
  description: 'header extra para la app (repetible; no se guarda en el journal)',
  repeatable: true,
} as const;
const forwardTimeout = {
  flags: '--forward-timeout <segundos>',
  description: `espera máxima de la respuesta de la app (default ${DEFAULTS.forwardTimeoutSeconds})`,
} as const;
const body = {
  flags: '--body <archivo>',
  description: 'cuerpo crudo desde un archivo (- o nada: stdin)',
} as const;

export const verifyOptions = defineOptions([
  secretFromEnv,
  { flags: '--timestamp <t>', description: 'valor de X-Svc-Timestamp' },
  { flags: '--signature <sha256=hex>', description: 'valor de X-Svc-Signature' },
  body,
  {
    flags: '--request <archivo>',
    description: 'pedido HTTP crudo (headers, línea en blanco, cuerpo) copiado de un log',
  },
  tolerance,
]);

export const signOptions = defineOptions([
  secretFromEnv,
  { flags: '--timestamp <t>', description: 'X-Svc-Timestamp a usar (default: ahora)' },
  {
    flags: '--event <evento>',
    description: 'X-Svc-Event cuando el cuerpo no trae "event"',
    choices: EVENTOS,
  },
  body,
]);

export const listenOptions = defineOptions([
  {
    flags: '--forward-to <url>',
    description: 'URL de tu app (http o https); sin esto solo verifica, guarda y responde 200',
  },
  {
    flags: '--host <host>',
    description: `dirección donde escucha (default ${DEFAULTS.host}, solo esta máquina)`,
  },
  {
    flags: '--port <puerto>',
    description: `puerto; 0 elige uno libre (default ${DEFAULTS.listenPort})`,
  },
  { flags: '--path <ruta>', description: `ruta donde recibe (default ${DEFAULTS.listenPath})` },
  { flags: '--events <a,b>', description: `solo reenvía estos eventos (${EVENTOS.join(', ')})` },
  {
    flags: '--route <EVENTO=URL>',
    description: 'manda un evento a otra URL (repetible)',
    repeatable: true,
  },
  header,
  forwardTimeout,
  tolerance,
  journal,
  {
    flags: '--conservar <tamaño>',
    description:
      'cuánto guarda el journal (default 2.5GiB, un año de un comercio con 2.000 notificaciones por día); pasado eso borra lo más viejo',
  },
  secretFromEnv,
]);

export const triggerOptions = defineOptions([
  {
    flags: '--forward-to <url>',
    description: `URL de tu app (localhost:3000/webhooks sirve; default: el listener local, ${LOCAL_LISTENER_URL})`,
  },
  {
    flags: '--cobro <id>',
    description: 'toma codigo y monto de esta solicitud real (necesita clave)',
  },
  { flags: '--estado <estado>', description: 'estado a informar', choices: ESTADOS_COBRO },
  {
    flags: '--monto <monto>',
    description: `monto de la solicitud (default ${DEFAULTS.triggerMonto})`,
  },
  {
    flags: '--set <campo=valor>',
    description: 'cambia un campo del cuerpo (repetible; campo:=json para un valor JSON)',
    repeatable: true,
  },
  header,
  forwardTimeout,
  {
    flags: '--sandbox',
    description:
      'contra svc sandbox: hace el cambio de estado real y el sandbox envía la notificación',
  },
  secretFromEnv,
]);

export const replayOptions = defineOptions([
  { flags: '--last <n>', description: 'los últimos n eventos recibidos' },
  { flags: '--all', description: 'todos los eventos recibidos con firma válida' },
  { flags: '--forward-to <url>', description: 'adónde (default: adonde fue cada uno)' },
  {
    flags: '--resign',
    description: 'vuelve a firmar con un timestamp nuevo (necesita el secreto)',
  },
  header,
  forwardTimeout,
  journal,
  secretFromEnv,
]);

export const eventosOptions = defineOptions([limitOption, journal]);

export const verOptions = defineOptions([journal]);

export const conciliarOptions = defineOptions([
  {
    flags: '--desde <fecha>',
    description:
      'solo cobros creados desde esa fecha (AAAA-MM-DD o "AAAA-MM-DD HH:MM", hora del servicio)',
  },
  {
    flags: '--forward-to <url>',
    description:
      'la URL de tu app (default: adonde el listener reenvió por última vez, según el journal)',
  },
  {
    flags: '--anteriores',
    description:
      'también los cobros sin cambios desde antes del journal (por omisión se cuentan aparte): se dan por no avisados',
  },
  {
    flags: '--plan <archivo>',
    description:
      'no envía nada: escribe un plan (JSON, 0600) con cada notificación que falta, para --aplicar',
  },
  {
    flags: '--aplicar <archivo>',
    description:
      'envía lo que el plan dice y todavía falta, firmado ahora, y lo guarda en el journal',
  },
  journal,
  secretFromEnv,
]);

export const probarOptions = defineOptions([
  {
    flags: '--forward-to <url>',
    description: 'URL de tu receptor de notificaciones (obligatorio)',
  },
  secretFromEnv,
  {
    flags: '--tolerance <segundos>',
    description: `la tolerancia de timestamp de tu receptor: los casos vencidos y del futuro quedan 60 s fuera de ella (default ${DEFAULTS.toleranceSeconds})`,
  },
  forwardTimeout,
]);

export const commands: CommandDef[] = [
  defineCommand({
    name: 'webhook verify',
    summary:
      'verifica la firma de una notificación (sin conexión): exit 0 válida, 7 inválida con el motivo',
    options: verifyOptions,
    examples: [
      'svc webhook verify --timestamp 1718000000 --signature sha256=3f2a… --body evento.json',
      'cat evento.json | svc webhook verify --timestamp "$TS" --signature "$SIG" --secret-from-env',
      'svc webhook verify --request pedido.txt --tolerance 0',
      'svc webhook verify --request pedido.txt --json | jq .valid',
    ],
    load: () => import('./verify.js'),
  }),
  defineCommand({
    name: 'webhook sign',
    summary:
      'imprime los cuatro headers que el servicio enviaría con un cuerpo (para curl y scripts de prueba)',
    options: signOptions,
    examples: [
      'svc webhook sign --body evento.json',
      'svc webhook sign --body evento.json --json | jq -r \'."X-Svc-Signature"\'',
      'mapfile -t H < <(svc webhook sign --body evento.json); curl "${H[@]/#/-H}" --data-binary @evento.json http://127.0.0.1:4242/',
    ],
    load: () => import('./sign.js'),
  }),
  defineCommand({
    name: 'webhook listen',
    summary:
      'receptor local: verifica cada notificación, la reenvía a tu app y la guarda en el journal',
    options: listenOptions,
    examples: [
      'svc webhook listen --forward-to http://localhost:3000/webhooks',
      'svc webhook listen --forward-to http://localhost:3000/webhooks --events payment.approved,payment.rejected',
      'svc webhook listen --forward-to http://localhost:3000/hooks --route payment.refunded=http://localhost:4000/refunds -H "Authorization: Bearer dev"',
      'svc webhook listen --port 0 --forward-to http://localhost:3000/webhooks --json | jq .status',
    ],
    load: () => import('./listen.js'),
  }),
  defineCommand({
    name: 'webhook trigger',
    summary:
      'envía una notificación de ejemplo, firmada, a tu app (o, con --sandbox, provoca el cambio real en el sandbox)',
    args: [{ name: 'evento', description: 'nombre del evento', required: true, choices: EVENTOS }],
    options: triggerOptions,
    examples: [
      'svc webhook trigger payment.approved',
      'svc webhook trigger payment.approved --forward-to localhost:3000/webhooks',
      'svc webhook trigger payment.partially_paid --forward-to http://127.0.0.1:4242/ --monto 2000.00',
      'svc webhook trigger payment.approved --forward-to http://localhost:3000/webhooks --cobro 42',
      'svc webhook trigger payment.rejected --forward-to http://localhost:3000/webhooks --set transaccion_id=null',
      'svc webhook trigger payment.approved --sandbox',
    ],
    load: () => import('./trigger.js'),
  }),
  defineCommand({
    name: 'webhook replay',
    summary: 'reenvía eventos del journal con sus headers originales',
    args: [{ name: 'id', description: 'id del evento (evt_…; alcanza con un prefijo único)' }],
    options: replayOptions,
    examples: [
      'svc webhook replay evt_3f2a9c',
      'svc webhook replay --last 5 --forward-to http://localhost:3000/webhooks',
      'svc webhook replay --all --resign',
    ],
    load: () => import('./replay.js'),
  }),
  defineCommand({
    name: 'webhook eventos',
    csv: true,
    aliases: ['events'],
    summary:
      'lista los eventos del journal: qué llegó, si la firma era válida y qué respondió tu app',
    options: eventosOptions,
    examples: [
      'svc webhook eventos',
      'svc webhook eventos --limit 20',
      'svc webhook eventos --json | jq \'.[] | select(.outcome != "forwarded")\'',
    ],
    load: () => import('./eventos.js'),
  }),
  defineCommand({
    name: 'webhook probar',
    summary:
      'pone a prueba tu receptor: entregas válidas, firmas malas, cuerpos alterados, timestamps viejos y futuros, reintentos, red lenta; exit 0 si respondió bien a todo',
    options: probarOptions,
    examples: [
      'svc webhook probar --forward-to http://localhost:3000/webhooks',
      'SVC_WEBHOOK_SECRET=whsec_… svc webhook probar --forward-to http://127.0.0.1:3000/webhooks --secret-from-env --json',
    ],
    load: () => import('./probar.js'),
  }),
  defineCommand({
    name: 'webhook conciliar',
    summary:
      'compara lo que tu app supo (el journal de listen) con lo que dice el servicio, y da el comando que arregla cada diferencia; exit 1 si hay alguna',
    options: conciliarOptions,
    examples: [
      'svc webhook conciliar',
      'svc webhook conciliar --desde 2026-11-01 --forward-to http://localhost:3000/webhooks',
      'svc webhook conciliar --json | jq -r .arreglo',
      'svc webhook conciliar --plan conciliar.json',
      'svc webhook conciliar --aplicar conciliar.json',
    ],
    load: () => import('./conciliar.js'),
  }),
  defineCommand({
    name: 'webhook ver',
    summary:
      'una notificación recibida completa: headers, cuerpo, firma y cada entrega a tu app con lo que respondió',
    args: [
      {
        name: 'id',
        description: 'id del evento (evt_…; alcanza con un prefijo único)',
        required: true,
      },
    ],
    options: verOptions,
    examples: ['svc webhook ver evt_3f2a9c', 'svc webhook ver evt_3f2a9c --json | jq .intentos'],
    load: () => import('./ver.js'),
  }),
];
