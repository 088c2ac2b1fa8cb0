// svc api [MÉTODO] <ruta>: a raw request, for support and developers (metadata only; the verb is api.ts).
import { defineCommand, defineOptions, type CommandDef } from '../../define.js';

export const apiOptions = defineOptions([
  {
    flags: '-f, --field <clave=valor>',
    description:
      'campo del cuerpo JSON (valor como texto); clave:=json para un valor JSON crudo (número, true, null, objeto); en GET y DELETE van como parámetros de consulta',
    repeatable: true,
  },
  {
    flags: '--input <archivo>',
    description: 'cuerpo JSON desde un archivo, o - para leerlo de stdin',
  },
  {
    flags: '-X, --method <método>',
    description: 'el método, si preferís decirlo así (como gh api -X)',
  },
]);

export const commands: CommandDef[] = [
  defineCommand({
    name: 'api',
    summary:
      'pedido directo al servicio (como gh api): imprime el cuerpo entero; el código de salida sale del estado HTTP',
    usage: '[opciones] [MÉTODO] <ruta>',
    args: [
      {
        name: 'MÉTODO',
        description: 'GET (si no lo decís), POST, PUT, PATCH o DELETE',
        required: false,
      },
      {
        name: 'ruta',
        description: 'ruta que empieza con /, ej. /v1/cobros/42 (puede llevar ?consulta)',
        required: false,
      },
    ],
    options: apiOptions,
    examples: [
      'svc api /v1/cuenta',
      'svc api GET /v1/cobros -f estado=PAGADA -f q=pedido',
      'svc api POST /v1/cobros -f concepto="Pedido 1" -f monto=1500.00 -f tarjeta:=false',
      'echo \'{"monto":"100.00"}\' | svc api POST /v1/cobros/42/devoluciones --input -',
      'svc api /v1/cobros/42 | jq .data.estado',
      'svc api -X POST /v1/cobros/42/sync',
    ],
    load: () => import('./api.js'),
  }),
];
