// svc mcp: svc's jobs as tools for an assistant (metadata only; the verb is mcp.ts,
// the server src/mcp/, and the SDK is loaded by this command alone).
import { defineCommand, defineOptions, type CommandDef } from '../../define.js';

export const mcpOptions = defineOptions([
  {
    flags: '--http <puerto>',
    description:
      'sirve por HTTP (Streamable HTTP) en 127.0.0.1:puerto en lugar de stdio; 0 elige uno libre',
  },
  {
    flags: '--token-archivo <archivo>',
    description:
      'con --http: el token que cada pedido lleva (Authorization: Bearer) se lee de este archivo 0600; si no existe, se escribe uno nuevo',
  },
  {
    flags: '--registro <archivo>',
    description:
      'agrega una línea JSON por llamada (herramienta, argumentos, resultado, hora) a este archivo',
  },
  {
    flags: '--planes <carpeta>',
    description:
      'dónde escribe preparar_devolucion los planes (default: planes/ en la carpeta de datos de svc)',
  },
]);

export const commands: CommandDef[] = [
  defineCommand({
    name: 'mcp',
    summary:
      'servidor MCP: las tareas de svc como herramientas para un asistente (modo test salvo --live; nunca devuelve dinero: prepara planes)',
    options: mcpOptions,
    examples: [
      'svc mcp',
      'svc mcp --http 8808',
      'svc mcp --registro mcp.jsonl',
      'svc --profile tienda mcp --live',
    ],
    load: () => import('./mcp.js'),
  }),
];
