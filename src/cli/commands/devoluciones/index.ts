// svc devoluciones listar|ver: refunds made (metadata only; the verbs are listar.ts and ver.ts).
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
  name: 'devoluciones',
  summary: 'devoluciones hechas: listar, ver',
};

export const listarOptions = defineOptions([
  cobroOption,
  referenciaOption,
  desdeOption,
  hastaOption,
  limitOption,
]);

export const commands: CommandDef[] = [
  defineCommand({
    name: 'devoluciones listar',
    csv: true,
    aliases: ['list', 'ls'],
    summary: 'lista devoluciones',
    options: listarOptions,
    examples: [
      'svc devoluciones listar',
      'svc devoluciones listar --cobro 42',
      'svc devoluciones listar --limit 20 --json',
    ],
    load: () => import('./listar.js'),
  }),
  defineCommand({
    name: 'devoluciones ver',
    aliases: ['get', 'show'],
    summary: 'muestra una devolución',
    args: [{ name: 'id', description: 'id de la devolución (entero)', required: true }],
    examples: ['svc devoluciones ver 3'],
    load: () => import('./ver.js'),
  }),
];
