// svc transacciones listar|ver (metadata only; the verbs are listar.ts and ver.ts).
import { ESTADOS_TRANSACCION, MEDIOS } from '../../../api/enums.js';
import {
  cobroOption,
  referenciaOption,
  desdeOption,
  hastaOption,
  limitOption,
  defineCommand,
  defineOptions,
  type CommandDef,
  type GroupDef,
} from '../../define.js';

export const group: GroupDef = {
  name: 'transacciones',
  summary: 'transacciones de los cobros: listar, ver',
};

export const listarOptions = defineOptions([
  { flags: '--medio <medio>', description: 'filtra por medio de pago', choices: MEDIOS },
  { flags: '--estado <estado>', description: 'filtra por estado', choices: ESTADOS_TRANSACCION },
  cobroOption,
  referenciaOption,
  desdeOption,
  hastaOption,
  limitOption,
]);

export const commands: CommandDef[] = [
  defineCommand({
    name: 'transacciones listar',
    csv: true,
    aliases: ['list', 'ls'],
    summary: 'lista transacciones',
    options: listarOptions,
    examples: [
      'svc transacciones listar --medio qr',
      'svc transacciones listar --cobro K7QM3XW9PA',
      'svc transacciones listar --referencia pedido-1042',
      'svc transacciones listar --estado ACREDITADO --json',
    ],
    load: () => import('./listar.js'),
  }),
  defineCommand({
    name: 'transacciones ver',
    aliases: ['get', 'show'],
    summary: 'muestra una transacción',
    args: [{ name: 'id', description: 'id de la transacción (entero)', required: true }],
    examples: ['svc transacciones ver 7'],
    load: () => import('./ver.js'),
  }),
];
