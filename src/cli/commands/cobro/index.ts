// svc cobro listar|ver|crear|sync, and `svc sync` (the same verb as `cobro sync`):
// payment requests (metadata only; each verb is its own file beside this one).
import { ESTADOS_COBRO } from '../../../api/enums.js';
import { DEFAULTS } from '../../../defaults.js';
import {
  cobroArg,
  desdeOption,
  hastaOption,
  limitOption,
  referenciaOption,
  separadorOption,
  defineCommand,
  defineOptions,
  type CommandDef,
  type GroupDef,
} from '../../define.js';

export const group: GroupDef = {
  name: 'cobro',
  summary: 'solicitudes de cobro: crear, listar, ver, sync',
  examples: ['svc cobro listar --estado PENDIENTE'],
};

const mostrarQr = {
  flags: '--mostrar-qr',
  description:
    'imprime el código QR del cobro en la terminal cuando está listo (no confundir con --no-qr)',
} as const;

export const listarOptions = defineOptions([
  { flags: '--estado <estado>', description: 'filtra por estado', choices: ESTADOS_COBRO },
  { flags: '-q, --q <texto>', description: 'busca en código, concepto o referencia' },
  desdeOption,
  hastaOption,
  limitOption,
]);

export const crearOptions = defineOptions([
  {
    flags: '--concepto <texto>',
    description: 'texto que ve quien paga (obligatorio; hasta 200 caracteres)',
  },
  {
    flags: '--monto <monto>',
    description: 'monto decimal con punto y hasta dos decimales, ej. 1500 o 1500.50 (obligatorio)',
  },
  {
    flags: '--vencimiento <fecha>',
    description: `vencimiento: 24/12/2026 o 2026-12-24 (hasta las 23:59:59), "24/12/2026 18:00", 2026-12-24T18:00:00-03:00, +3d, +12h o +30m (hasta 365 días); hora del servicio (${DEFAULTS.timeZone}, o SVC_TZ / la zona del perfil); sin esta opción, 7 días`,
  },
  { flags: '--referencia <texto>', description: 'tu propio identificador (hasta 100 caracteres)' },
  { flags: '--success-url <url>', description: 'a dónde vuelve quien paga si sale bien (https)' },
  { flags: '--error-url <url>', description: 'a dónde vuelve quien paga si falla (https)' },
  { flags: '--no-tarjeta', description: 'no acepta pagos con tarjeta' },
  { flags: '--no-qr', description: 'no acepta pagos con QR' },
  { flags: '--no-transferencia', description: 'no acepta transferencias' },
  mostrarQr,
  {
    flags: '--lote <archivo.csv>',
    description:
      'crea un cobro por fila (columnas concepto, monto, referencia, y vencimiento, medios, success_url, error_url), cada uno una sola vez',
  },
  {
    flags: '--resultado <archivo.csv>',
    description:
      'con --lote: escribe fila, referencia, monto, estado, cobro_id, codigo, url y error de cada fila',
  },
  {
    flags: '--paralelo <n>',
    description: 'con --lote: cuántos cobros a la vez (1 por defecto, hasta 4)',
  },
  separadorOption,
]);

export const syncOptions = defineOptions([referenciaOption, mostrarQr]);
export const verOptions = defineOptions([referenciaOption, mostrarQr]);

const sync = (name: string) =>
  defineCommand({
    name,
    summary: 'actualiza el estado de un cobro (POST …/sync) y muestra si cambió',
    args: [cobroArg],
    options: syncOptions,
    examples: [
      'svc sync 42',
      'svc sync K7QM3XW9PA',
      'svc cobro sync 42 --json | jq -r .estado',
      'svc sync 42 --mostrar-qr',
    ],
    load: () => import('./sync.js'),
  });

export const commands: CommandDef[] = [
  defineCommand({
    name: 'cobro listar',
    csv: true,
    aliases: ['list', 'ls'],
    summary: 'lista solicitudes de cobro, las más nuevas primero',
    options: listarOptions,
    examples: ['svc cobro listar --estado PAGADA', 'svc cobro listar --q pedido-1042 --json'],
    load: () => import('./listar.js'),
  }),
  defineCommand({
    name: 'cobro ver',
    aliases: ['get', 'show'],
    summary: 'muestra una solicitud de cobro',
    args: [cobroArg],
    options: verOptions,
    examples: [
      'svc cobro ver 42',
      'svc cobro ver k7qm3xw9pa',
      'svc cobro ver --referencia pedido-1042',
      'svc cobro ver 42 --json | jq -r .url',
    ],
    load: () => import('./ver.js'),
  }),
  defineCommand({
    name: 'cobro crear',
    aliases: ['create'],
    summary: 'crea una solicitud de cobro e imprime el link de pago',
    options: crearOptions,
    examples: [
      'svc cobro crear --concepto "Pedido 1042" --monto 1500.00',
      'svc cobro crear --concepto "Seña" --monto 2000 --vencimiento +3d --referencia pedido-1042',
      'svc cobro crear --concepto "Clase" --monto 800 --vencimiento "2026-12-24 18:00" --no-tarjeta --mostrar-qr',
      'svc cobro crear --concepto "Pedido 7" --monto 99.90 --json | jq -r .url',
      'svc cobro crear --lote cuotas.csv --resultado links.csv',
    ],
    load: () => import('./crear.js'),
  }),
  sync('cobro sync'),
  sync('sync'),
];
