// The flat list of every command of svc. Metadata only: implementations are
// imported by `load` when a command runs, so --help and --version stay cheap.
import type { CommandDef, GroupDef } from '../define.js';
import { accountCommands } from './account.js';
import { cobroCommands } from './cobro.js';
import { readCommands } from './read.js';
import { webhookCommands } from './webhook.js';
import { sandboxCommands } from './sandbox.js';
import { toolCommands } from './tools.js';
import { newcomerCommands } from './newcomer.js';

export const groups: GroupDef[] = [
  { name: 'perfil', summary: 'perfiles guardados: listar, usar, borrar' },
  { name: 'cobro', summary: 'solicitudes de cobro: crear, listar, ver, sync', examples: ['svc cobro listar --estado PENDIENTE'] },
  { name: 'transacciones', summary: 'transacciones de los cobros: listar, ver' },
  { name: 'devoluciones', summary: 'devoluciones hechas: listar, ver' },
  { name: 'webhook', summary: 'notificaciones firmadas: verify, sign, listen, trigger, replay, eventos' },
  { name: 'sandbox', summary: 'el servicio completo en tu máquina, sin cuenta', examples: ['svc sandbox', 'svc sandbox --port 0 --json'] },
];

export const commands: CommandDef[] = [
  ...readCommands,
  ...accountCommands,
  ...cobroCommands,
  ...webhookCommands,
  ...sandboxCommands,
  ...toolCommands,
  ...newcomerCommands,
];
