// Commands of this area (metadata only; see registry/index.ts).
import type { CommandDef } from '../define.js';

export const webhookCommands: CommandDef[] = [];
