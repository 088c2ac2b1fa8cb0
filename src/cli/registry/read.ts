// Read-only commands: health, account, fees, payment requests, transactions,
// refunds and settlements (metadata only; see registry/index.ts).
import { ESTADOS_COBRO, ESTADOS_TRANSACCION, MEDIOS } from '../../api/enums.js';
import { defineCommand, type CommandDef } from '../define.js';

const idArg = (what: string) => [{ name: 'id', description: `id de ${what} (entero)`, required: true }];

export const readCommands: CommandDef[] = [
  defineCommand({
    name: 'salud',
    summary: 'estado del servicio (no necesita clave)',
    examples: ['svc salud', 'svc salud --json'],
    load: () => import('../commands/salud.js'),
  }),
  defineCommand({
    name: 'cuenta',
    summary: 'datos de la cuenta y si puede cobrar',
    examples: ['svc cuenta', 'svc cuenta --json | jq .puede_cobrar'],
    load: () => import('../commands/cuenta.js'),
  }),
  defineCommand({
    name: 'cargos',
    summary: 'porcentaje de cargo por medio de pago',
    examples: ['svc cargos'],
    load: () => import('../commands/cargos.js'),
  }),
  defineCommand({
    name: 'cobro listar',
    aliases: ['list', 'ls'],
    summary: 'lista solicitudes de cobro, las más nuevas primero',
    options: [
      { flags: '--estado <estado>', description: 'filtra por estado', choices: ESTADOS_COBRO },
      { flags: '--q <texto>', description: 'busca en código, concepto o referencia' },
      { flags: '--limit <n>', description: 'muestra como máximo n (del lado del cliente)' },
    ],
    examples: ['svc cobro listar --estado PAGADA', 'svc cobro listar --q pedido-1042 --json'],
    load: () => import('../commands/cobro/listar.js'),
  }),
  defineCommand({
    name: 'cobro ver',
    aliases: ['get', 'show'],
    summary: 'muestra una solicitud de cobro',
    args: idArg('la solicitud de cobro'),
    examples: ['svc cobro ver 42', 'svc cobro ver 42 --json | jq -r .url'],
    load: () => import('../commands/cobro/ver.js'),
  }),
  defineCommand({
    name: 'transacciones listar',
    aliases: ['list', 'ls'],
    summary: 'lista transacciones',
    options: [
      { flags: '--medio <medio>', description: 'filtra por medio de pago', choices: MEDIOS },
      { flags: '--estado <estado>', description: 'filtra por estado', choices: ESTADOS_TRANSACCION },
    ],
    examples: ['svc transacciones listar --medio qr', 'svc transacciones listar --estado ACREDITADO --json'],
    load: () => import('../commands/transacciones/listar.js'),
  }),
  defineCommand({
    name: 'transacciones ver',
    aliases: ['get', 'show'],
    summary: 'muestra una transacción',
    args: idArg('la transacción'),
    examples: ['svc transacciones ver 7'],
    load: () => import('../commands/transacciones/ver.js'),
  }),
  defineCommand({
    name: 'devoluciones listar',
    aliases: ['list', 'ls'],
    summary: 'lista devoluciones',
    examples: ['svc devoluciones listar', 'svc devoluciones listar --json | jq "map(select(.cobro_id == 42))"'],
    load: () => import('../commands/devoluciones/listar.js'),
  }),
  defineCommand({
    name: 'devoluciones ver',
    aliases: ['get', 'show'],
    summary: 'muestra una devolución',
    args: idArg('la devolución'),
    examples: ['svc devoluciones ver 3'],
    load: () => import('../commands/devoluciones/ver.js'),
  }),
  defineCommand({
    name: 'liquidaciones',
    summary: 'liquidaciones estimadas, con totales exactos',
    examples: ['svc liquidaciones', 'svc liquidaciones --json'],
    load: () => import('../commands/liquidaciones.js'),
  }),
];
