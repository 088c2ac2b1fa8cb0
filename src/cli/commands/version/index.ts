// svc version: the same as --version, as gh has both (metadata only; the verb is version.ts).
import { defineCommand, type CommandDef } from '../../define.js';

export const commands: CommandDef[] = [
  defineCommand({
    name: 'version',
    summary: 'la versión de svc (como --version); con --json, también la de Node y la plataforma',
    examples: ['svc version', 'svc version --json'],
    load: () => import('./version.js'),
  }),
];
