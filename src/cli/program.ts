// Builds the commander tree from the flat command list. Help, examples and
// suggestions come from the metadata; the action imports the implementation.
import { Command, Help, Option } from 'commander';
import type { CommandDef, GroupDef } from './define.js';
import { HELP_WIDTH } from './quick.js';
import { shellLines, wrapParts, wrapWords } from '../text.js';
import { UsageError } from '../errors.js';

export const GLOBAL_OPTIONS: { flags: string; description: string }[] = [
  { flags: '--json', description: 'salida JSON: el campo data tal como lo envió el servicio' },
  {
    flags: '--csv',
    description:
      'en las listas: CSV (RFC 4180) con encabezado; montos como los envía el servicio, fechas en su zona',
  },
  { flags: '--profile <nombre>', description: 'perfil a usar (o SVC_PROFILE)' },
  { flags: '--live', description: 'usa la clave live del perfil (dinero real)' },
  { flags: '--base-url <url>', description: 'dirección del servicio (o SVC_BASE_URL)' },
  {
    flags: '--proxy <url>',
    description:
      'proxy http:// para salir a la red (o HTTPS_PROXY, HTTP_PROXY, ALL_PROXY; "" = ninguno)',
  },
  {
    flags: '--cacert <archivo>',
    description: 'certificados (PEM) de la CA de tu empresa (o SSL_CERT_FILE, NODE_EXTRA_CA_CERTS)',
  },
  {
    flags: '-y, --yes',
    description: 'confirma sin preguntar (necesario en modo live sin terminal)',
  },
  { flags: '--no-input', description: 'nunca pregunta nada; falta un dato = error' },
  { flags: '--no-color', description: 'sin colores (también NO_COLOR)' },
  {
    flags: '--no-pager',
    description:
      'las listas largas no pasan por el paginador ($PAGER, default less -FRX; también SVC_PAGER=)',
  },
  { flags: '--debug', description: 'muestra pedidos y respuestas en stderr (la clave, redactada)' },
];

const TITLES: Record<string, string> = {
  'Usage:': 'Uso:',
  'Options:': 'Opciones:',
  'Commands:': 'Comandos:',
  'Arguments:': 'Argumentos:',
  'Global Options:': 'Opciones globales:',
};

export interface Invocation {
  def: CommandDef;
  args: string[];
  /** The command's own options, as its metadata declares them. */
  opts: Record<string, unknown>;
  /** The global options (--json, --profile…). */
  globals: Record<string, unknown>;
}

const spanish = (usage: string) =>
  usage.replace('[options]', '[opciones]').replace('[command]', '[comando]');

/** Help in Spanish: the titles, and the usage lines' [options] / [command]. */
const HELP: Partial<Help> = {
  styleTitle: (t: string) => TITLES[t] ?? t,
  showGlobalOptions: true,
  // commander leaves descriptions unwrapped when less than 40 columns are left for
  // them: on a terminal of 60 every option ran past the edge.
  minWidthToWrap: 20,
  commandUsage(cmd: Command): string {
    return spanish(Help.prototype.commandUsage.call(this, cmd));
  },
  // Global means svc's own options (the program's): `svc sandbox`'s start options are
  // that command's, not its verbs' (`svc sandbox pagar --help` listed --port as global).
  visibleGlobalOptions(cmd: Command): Option[] {
    let root = cmd;
    while (root.parent) root = root.parent;
    if (root === cmd || cmd.parent === root)
      return Help.prototype.visibleGlobalOptions.call(this, cmd);
    return root.options.filter((o) => !o.hidden);
  },
  subcommandTerm(cmd: Command): string {
    // A usage line of its own (`svc api [MÉTODO] <ruta>`) is also its term in the list.
    const own = (cmd as Command & { _usage?: string })._usage;
    return spanish(own ? `${cmd.name()} ${own}` : Help.prototype.subcommandTerm.call(this, cmd));
  },
};

export function buildProgram(
  version: string,
  groups: GroupDef[],
  commands: CommandDef[],
  onAction: (inv: Invocation) => Promise<void>,
  output: {
    writeOut: (s: string) => void;
    writeErr: (s: string) => void;
    json?: boolean;
    columns?: number;
  },
): Command {
  // Help is wrapped at the terminal's width up to 80 columns, never wider: lines stay
  // readable on a wide terminal, and the pages at 80 are what quick.ts answers
  // without building this tree (start-up, #16).
  const helpWidth = () => Math.min(HELP_WIDTH, output.columns || HELP_WIDTH);
  const program = new Command('svc');
  program
    .description(
      'svc: cobros, devoluciones, liquidaciones y notificaciones del servicio de cobros, desde la terminal',
    )
    .version(version, '-V, --version', 'muestra la versión')
    .helpOption('-h, --help', 'muestra la ayuda')
    .helpCommand('help [comando]', 'muestra la ayuda de un comando (como --help)')
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: output.writeOut,
      writeErr: output.writeErr,
      getOutHelpWidth: helpWidth,
      getErrHelpWidth: helpWidth,
      // With --json a usage error is one JSON object too: scripts parse stderr the same way for every error.
      outputError: (str, write) =>
        write(
          output.json
            ? `${JSON.stringify({
                error: 'usage',
                message: translate(str)
                  .trim()
                  .replace(/^error: /, ''),
              })}\n`
            : translate(str),
        ),
    })
    .configureHelp(HELP)
    .exitOverride();
  for (const g of GLOBAL_OPTIONS) program.option(g.flags, g.description);
  program.addHelpText(
    'after',
    () =>
      '\nEjemplos:\n' +
      ROOT_EXAMPLES.flatMap(([command, what]) => {
        if (!what) return [`  ${command}`];
        const [first, ...rest] = wrapWords(what, helpWidth() - 32);
        return [`  ${command.padEnd(30)}${first}`, ...rest.map((l) => `${' '.repeat(32)}${l}`)];
      }).join('\n') +
      '\n\nCódigos de salida:\n' +
      wrapParts(EXIT_CODES, helpWidth() - 2, ' · ')
        .map((l) => `  ${l}`)
        .join('\n'),
  );

  const nodes = new Map<string, Command>();
  const groupOf = (name: string): Command => {
    let node = nodes.get(name);
    if (node) return node;
    const meta = groups.find((g) => g.name === name);
    node = program
      .command(name)
      .description(meta?.summary ?? name)
      .helpOption('-h, --help', 'muestra la ayuda')
      .helpCommand(false)
      .exitOverride();
    if (meta?.aliases) node.aliases(meta.aliases);
    if (meta?.examples?.length)
      node.addHelpText('after', () => examplesText(meta.examples!, helpWidth()));
    node.configureHelp(HELP);
    nodes.set(name, node);
    return node;
  };

  for (const def of commands) {
    const words = def.name.split(' ');
    const parent = words.length > 1 ? groupOf(words[0]!) : program;
    const leaf = words[words.length - 1]!;
    // A group that is also a command (`svc sandbox` and `svc sandbox pagar`) keeps its node.
    let cmd = words.length === 1 ? nodes.get(leaf) : undefined;
    if (!cmd) {
      cmd = parent
        .command(leaf)
        .helpOption('-h, --help', 'muestra la ayuda')
        .helpCommand(false)
        .exitOverride();
      cmd.configureHelp(HELP);
      if (words.length === 1) nodes.set(leaf, cmd);
    }
    cmd.description(def.summary);
    if (def.usage) cmd.usage(def.usage);
    if (def.aliases) cmd.aliases(def.aliases);
    for (const a of def.args ?? []) {
      const name = a.variadic ? `${a.name}...` : a.name;
      cmd.argument(a.required ? `<${name}>` : `[${name}]`, a.description);
    }
    for (const o of def.options ?? []) {
      // Choices apart by ", ": a narrow terminal can break the list between them.
      const opt = new Option(
        o.flags,
        o.description + (o.choices ? ` (${o.choices.join(', ')})` : ''),
      );
      if (o.repeatable)
        opt.argParser((v: string, prev: string[] | undefined) => [...(prev ?? []), v]);
      if (o.default !== undefined) opt.default(o.default);
      cmd.addOption(opt);
    }
    cmd.addHelpText('after', () => examplesText(def.examples, helpWidth()));
    cmd.action(async (...params: unknown[]) => {
      const self = params[params.length - 1] as Command;
      const args = (params.slice(0, -2) as (string | string[] | undefined)[]).flatMap((a) =>
        a === undefined ? [] : Array.isArray(a) ? a : [a],
      );
      // Apart, because a command's own option may share a global's name (`svc api
      // --input FILE` and the global `--no-input`): each keeps its own value.
      // A group that is also a command (`svc sandbox --data F` and `svc sandbox
      // compactar --data F`) takes an option they share before the verb sees it:
      // the verb gets the group's values under its own.
      const group = self.parent && self.parent !== program ? self.parent.opts() : {};
      // The group's own options (`svc sandbox`'s start flags) mean nothing to a verb that
      // does not declare them: `svc sandbox pagar 1 --port 5` is refused, not run as if
      // --port had been heard.
      if (self.parent && self.parent !== program) {
        const own = new Set(self.options.map((o) => o.attributeName()));
        const stray = self.parent.options.find(
          (o) =>
            !own.has(o.attributeName()) &&
            self.parent!.getOptionValueSource(o.attributeName()) === 'cli',
        );
        if (stray)
          throw new UsageError(
            `${stray.long} es una opción de svc ${self.parent.name()} (al arrancarlo), no de svc ${def.name}`,
            `svc ${def.name} --help muestra sus opciones`,
          );
      }
      await onAction({ def, args, opts: { ...group, ...self.opts() }, globals: program.opts() });
    });
  }
  // Words people type for a command that has another name: a hidden command that says which.
  for (const [group, word, meant] of MEANT) {
    const parent = nodes.get(group);
    if (!parent) continue;
    const said = new Command(word)
      .allowUnknownOption()
      .allowExcessArguments()
      .helpOption(false)
      .exitOverride();
    said.action(() => {
      throw new UsageError(`svc ${group} ${word} no existe (¿quisiste decir ${meant}?)`);
    });
    parent.addCommand(said, { hidden: true });
  }
  return program;
}

/** [group, what people type, what svc calls it]: hidden, no help page of their own. */
export const MEANT: [string, string, string][] = [
  ['webhook', 'listar', 'svc webhook eventos'],
  ['sandbox', 'pago', 'svc sandbox pagar'],
];

/**
 * The part of the tree argv names: the commands under its first word, when that
 * word is a command or a group (or an alias of one); every command otherwise, so
 * a mistyped word still gets its suggestion. A tree of one noun is quicker to
 * build than all of them (start-up, #16), and parses and helps alike.
 */
export function commandsFor(
  argv: readonly string[],
  groups: GroupDef[],
  commands: CommandDef[],
): { groups: GroupDef[]; commands: CommandDef[] } {
  const word = firstWord(argv);
  if (word === undefined || word === 'help') return { groups, commands };
  const top = topName(word, groups, commands);
  if (top === undefined) return { groups, commands };
  return {
    groups: groups.filter((g) => g.name === top),
    commands: commands.filter((c) => c.name.split(' ')[0] === top),
  };
}

/**
 * Help asked the other way round: `svc help cobro crear` is `svc cobro crear --help`;
 * and help for a word that is no command is that word's error ("comando desconocido",
 * exit 2), as without --help, not the general page with exit 0.
 */
export function helpAsAsked(
  argv: readonly string[],
  groups: GroupDef[],
  commands: CommandDef[],
): readonly string[] {
  const asked = argv[0] === 'help' && argv.length > 1 ? [...argv.slice(1), '--help'] : argv;
  const word = firstWord(asked);
  const helps = (a: string) => a === '--help' || a === '-h';
  if (
    word === undefined ||
    word === 'help' ||
    topName(word, groups, commands) !== undefined ||
    !asked.some(helps)
  )
    return asked;
  return asked.filter((a) => !helps(a));
}

/** The first word of argv that is not a global option or its value: the command named. */
function firstWord(argv: readonly string[]): string | undefined {
  const takesValue = new Set(
    GLOBAL_OPTIONS.filter((g) => g.flags.includes('<')).map((g) =>
      g.flags.split(/[ ,]+/).find((f) => f.startsWith('--'))!,
    ),
  );
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return undefined;
    if (!a.startsWith('-')) return a;
    if (takesValue.has(a)) i++;
  }
  return undefined;
}

/** The group or top-level command `word` names (an alias included), if any. */
function topName(word: string, groups: GroupDef[], commands: CommandDef[]): string | undefined {
  const named = (d: { name: string; aliases?: string[] }) =>
    d.name === word || (d.aliases?.includes(word) ?? false);
  return groups.find(named)?.name ?? commands.find((c) => !c.name.includes(' ') && named(c))?.name;
}

/** Each example as typed, broken for the help's width as a shell reads it. */
function examplesText(examples: string[], width: number): string {
  return `\nEjemplos:\n${examples.flatMap((e) => shellLines(`$ ${e}`, width - 2, '  ').map((l) => `  ${l}`)).join('\n')}`;
}

const ROOT_EXAMPLES: [string, string?][] = [
  ['svc demo', 'recorrido completo contra un sandbox local'],
  ['svc sandbox', 'el servicio en tu máquina'],
  ['svc cobro crear --concepto "Pedido 1042" --monto 1500.00'],
];

const EXIT_CODES = [
  '0 ok',
  '1 rechazado por el servicio',
  '2 uso',
  '3 unauthorized',
  '4 comercio_no_listo',
  '5 not_found',
  '6 red',
  '7 firma inválida',
  '8 no confirmado',
  '130 cancelado',
  '143 detenido (SIGTERM)',
];

/** A flag for a secret gets where secrets come from instead: a flag ends up in the shell's history and in `ps`. */
const SECRET_FLAG = (flag: string) =>
  /secret/.test(flag)
    ? `${flag} no existe: el secreto de firma nunca va en la línea de comandos; usá SVC_WEBHOOK_SECRET o \`svc login --webhook-secret-stdin\``
    : `${flag} no existe: la clave nunca va en la línea de comandos; usá SVC_API_KEY o \`svc login\` (la pide oculta, o --with-key-stdin)`;

/** commander's parse errors, in the language of the rest of svc. */
export function translate(text: string): string {
  const secret =
    /^error: unknown option '(--(?:api-?key|key|secret|webhook-secret|token|password)(?:=[^']*)?)'/m.exec(
      text,
    );
  // The value is never echoed: it may be the secret itself.
  if (secret) return `error: ${SECRET_FLAG(secret[1]!.split('=')[0]!)}\n`;
  return (
    text
      .replace(/\n\(Did you mean/, ' (Did you mean')
      .replace(/^error: unknown option '([^']+)'/m, "error: opción desconocida '$1'")
      .replace(/^error: unknown command '([^']+)'/m, "error: comando desconocido '$1'")
      .replace(/\(Did you mean (?:one of )?(.+)\?\)/, '(¿quisiste decir $1?)')
      // The start of --referencia (caso --ref), too far from it for commander's suggestion.
      .replace(
        /^(error: opción desconocida '(--ref[a-z]*)')$/m,
        (line, _all: string, flag: string) =>
          '--referencia'.startsWith(flag) ? `${line} (¿quisiste decir --referencia?)` : line,
      )
      .replace(/^error: missing required argument '([^']+)'/m, "error: falta el argumento '$1'")
      .replace(
        /^error: option '([^']+)' argument missing/m,
        "error: a la opción '$1' le falta el valor",
      )
      .replace(
        /^error: too many arguments for '([^']+)'. Expected (\d+) arguments? but got (\d+)\./m,
        "error: demasiados argumentos para '$1': se esperan $2 y llegaron $3.",
      )
      .replace(/^error: too many arguments/m, 'error: demasiados argumentos')
  );
}
