// svc diagnostico: what svc would do and whether it works (metadata only; the verb is diagnostico.ts).
import { defineCommand, type CommandDef } from '../../define.js';

export const commands: CommandDef[] = [
  defineCommand({
    name: 'diagnostico',
    aliases: ['doctor'],
    summary:
      'qué usaría svc (perfil, dirección, clave, proxy, certificados) y si llega al servicio: para pegar en un pedido de soporte',
    examples: ['svc diagnostico', 'svc diagnostico --json'],
    load: () => import('./diagnostico.js'),
  }),
];
