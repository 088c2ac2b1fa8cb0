// svc comandos: the command tree, for assistants and tooling (metadata only; the verb is comandos.ts).
import { defineCommand, type CommandDef } from '../../define.js';

export const commands: CommandDef[] = [
  defineCommand({
    name: 'comandos',
    summary:
      'todos los comandos de svc; con --json, el árbol entero: argumentos, opciones (con valores posibles y defaults), ejemplos y códigos de salida',
    examples: [
      'svc comandos',
      "svc comandos --json | jq -r '.comandos[].nombre'",
      "svc comandos --json | jq '.comandos[0].opciones'",
    ],
    load: () => import('./comandos.js'),
  }),
];
