// Every command of svc, gathered from the nouns under commands/: each noun's index.ts
// holds its metadata (names, options, help) and imports no implementation, so --help,
// --version and completions stay cheap. The order is the order of `svc --help`.
import type { CommandDef, GroupDef, Noun } from './define.js';
import * as salud from './commands/salud/index.js';
import * as diagnostico from './commands/diagnostico/index.js';
import * as version from './commands/version/index.js';
import * as cuenta from './commands/cuenta/index.js';
import * as cargos from './commands/cargos/index.js';
import * as cobro from './commands/cobro/index.js';
import * as transacciones from './commands/transacciones/index.js';
import * as devoluciones from './commands/devoluciones/index.js';
import * as liquidaciones from './commands/liquidaciones/index.js';
import * as perfil from './commands/perfil/index.js';
import * as devolver from './commands/devolver/index.js';
import * as caso from './commands/caso/index.js';
import * as webhook from './commands/webhook/index.js';
import * as sandbox from './commands/sandbox/index.js';
import * as api from './commands/api/index.js';
import * as demo from './commands/demo/index.js';
import * as completion from './commands/completion/index.js';
import * as mcp from './commands/mcp/index.js';
import * as comandos from './commands/comandos/index.js';

const nouns: Noun[] = [
  salud,
  diagnostico,
  cuenta,
  cargos,
  cobro,
  transacciones,
  devoluciones,
  liquidaciones,
  perfil,
  devolver,
  caso,
  webhook,
  sandbox,
  api,
  mcp,
  demo,
  completion,
  comandos,
  version,
];

export const groups: GroupDef[] = nouns.flatMap((n) => (n.group ? [n.group] : []));
export const commands: CommandDef[] = nouns.flatMap((n) => n.commands);
