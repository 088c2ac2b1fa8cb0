// svc liquidaciones: estimated settlements, and `liquidaciones conciliar`, a bank statement
// checked against them (metadata only; the verbs are liquidaciones.ts and conciliar.ts).
import {
  cobroOption,
  desdeOption,
  hastaOption,
  limitOption,
  defineCommand,
  defineOptions,
  type CommandDef,
  type GroupDef,
} from '../../define.js';

export const group: GroupDef = {
  name: 'liquidaciones',
  summary: 'liquidaciones estimadas, y el extracto del banco conciliado con ellas',
  examples: ['svc liquidaciones', 'svc liquidaciones conciliar extracto.csv'],
};

export const conciliarOptions = defineOptions([
  {
    flags: '--columnas <mapa>',
    description:
      'qué columna es cada dato: fecha=Fecha,importe=Crédito,concepto=Descripción (por omisión se reconocen por nombre)',
  },
  {
    flags: '--tolerancia <días>',
    description:
      'días hábiles que un crédito puede llegar después de la fecha estimada (ej. 2d; default 0d)',
  },
  {
    flags: '--separador <sep>',
    description: 'separador del CSV: , ; o tab (por omisión se detecta)',
  },
  {
    flags: '--feriados <fechas>',
    description:
      'días en que tu banco no acredita, además de fines de semana y feriados nacionales: 2026-12-24,2026-12-31 (repetible)',
    repeatable: true,
  },
]);

export const liquidacionesOptions = defineOptions([
  {
    flags: '--por-fecha',
    description:
      'totales (bruto, te_cobramos, te_queda) por fecha estimada de acreditación, exactos',
  },
  {
    flags: '--por <fecha>',
    description:
      'de qué fecha son --desde y --hasta: estimada (cuándo llega la plata, default) u operacion',
    choices: ['estimada', 'operacion'],
  },
  cobroOption,
  desdeOption,
  hastaOption,
  limitOption,
]);

export const commands: CommandDef[] = [
  defineCommand({
    name: 'liquidaciones',
    csv: true,
    summary: 'liquidaciones estimadas, con totales exactos',
    options: liquidacionesOptions,
    examples: ['svc liquidaciones', 'svc liquidaciones --por-fecha', 'svc liquidaciones --json'],
    load: () => import('./liquidaciones.js'),
  }),
  defineCommand({
    name: 'liquidaciones conciliar',
    csv: true,
    summary:
      'compara el extracto del banco (CSV) con lo que el servicio estimó acreditar, día por día',
    args: [
      {
        name: 'extracto',
        description:
          'el extracto del banco en CSV (como lo exporta el home banking o una planilla)',
        required: true,
      },
    ],
    options: conciliarOptions,
    examples: [
      'svc liquidaciones conciliar extracto.csv',
      'svc liquidaciones conciliar movimientos.csv --columnas fecha=Fecha,importe=Crédito --tolerancia 2d',
      'svc liquidaciones conciliar extracto.csv --json',
      'svc liquidaciones conciliar extracto.csv --tolerancia 1d --feriados 2026-12-24,2026-12-31',
    ],
    load: () => import('./conciliar.js'),
  }),
];
