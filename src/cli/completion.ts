// Shell completion scripts (bash, zsh, fish), generated from the command tree, so
// they list exactly the commands, options and enum values svc has. The committed
// copies in completions/ are checked against this generator by a test.
import type { CommandDef, GroupDef } from './define.js';
import { GLOBAL_OPTIONS } from './program.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

interface Node {
  path: string;
  words: string[];
  summary: string;
  options: {
    long: string;
    takesValue: boolean;
    choices?: readonly string[];
    description: string;
  }[];
  args: { choices?: readonly string[] }[];
}

function longOf(flags: string): { long: string; takesValue: boolean } {
  const long = flags.split(/[ ,]+/).find((f) => f.startsWith('--')) ?? flags;
  return { long, takesValue: /[<[]/.test(flags) };
}

function tree(
  groups: GroupDef[],
  commands: CommandDef[],
): { nodes: Node[]; children: Map<string, { word: string; summary: string }[]> } {
  const nodes: Node[] = [];
  const children = new Map<string, { word: string; summary: string }[]>();
  const addChild = (parent: string, word: string, summary: string) => {
    const list = children.get(parent) ?? [];
    if (!list.some((c) => c.word === word)) list.push({ word, summary });
    children.set(parent, list);
  };
  for (const def of commands) {
    const words = def.name.split(' ');
    const leaf = words[words.length - 1]!;
    const parent = words.slice(0, -1).join(' ');
    if (words.length > 1) {
      const g = groups.find((x) => x.name === words[0]);
      addChild('', words[0]!, g?.summary ?? words[0]!);
    }
    addChild(parent, leaf, def.summary);
    for (const alias of def.aliases ?? []) addChild(parent, alias, def.summary);
    const node: Node = {
      path: def.name,
      words,
      summary: def.summary,
      options: (def.options ?? []).map((o) => ({
        ...longOf(o.flags),
        choices: o.choices,
        description: o.description,
      })),
      args: (def.args ?? []).map((a) => ({ choices: a.choices })),
    };
    nodes.push(node);
    for (const alias of def.aliases ?? [])
      nodes.push({
        ...node,
        path: [...words.slice(0, -1), alias].join(' '),
        words: [...words.slice(0, -1), alias],
      });
  }
  // Group nodes (e.g. `cobro`) exist for completion even when not commands themselves.
  for (const g of groups)
    if (!nodes.some((n) => n.path === g.name))
      nodes.push({ path: g.name, words: [g.name], summary: g.summary, options: [], args: [] });
  return { nodes, children };
}

const globals = GLOBAL_OPTIONS.map((g) => ({ ...longOf(g.flags), description: g.description }));

export function completionScript(shell: Shell, groups: GroupDef[], commands: CommandDef[]): string {
  const t = tree(groups, commands);
  if (shell === 'bash') return bash(t);
  if (shell === 'zsh') return zsh(t);
  return fish(t);
}

const q = (s: string) => s.replace(/'/g, `'\\''`);

function valueOptions(t: ReturnType<typeof tree>): string[] {
  const set = new Set<string>();
  for (const g of globals) if (g.takesValue) set.add(g.long);
  for (const n of t.nodes) for (const o of n.options) if (o.takesValue) set.add(o.long);
  return [...set].sort();
}

/** The body shared by bash and zsh: find the command path, then offer words. */
function wordTable(t: ReturnType<typeof tree>): { path: string; words: string }[] {
  const rows: { path: string; words: string }[] = [];
  const paths = new Set<string>(['', ...t.nodes.map((n) => n.path)]);
  for (const path of [...paths].sort()) {
    const kids = (t.children.get(path) ?? []).map((c) => c.word);
    const node = t.nodes.find((n) => n.path === path);
    const opts = [
      ...(node?.options.map((o) => o.long) ?? []),
      ...globals.map((g) => g.long),
      '--help',
    ];
    const argChoices = node?.args.flatMap((a) => a.choices ?? []) ?? [];
    rows.push({ path, words: [...kids, ...argChoices, ...opts].join(' ') });
  }
  return rows;
}

function valueTable(
  t: ReturnType<typeof tree>,
): { path: string; option: string; values: string }[] {
  const rows: { path: string; option: string; values: string }[] = [];
  for (const n of t.nodes)
    for (const o of n.options)
      if (o.choices) rows.push({ path: n.path, option: o.long, values: o.choices.join(' ') });
  return rows;
}

/**
 * The completion function shared by bash and zsh: walk the typed words to the
 * deepest known command path (skipping option values), then offer its words, or
 * the enum values when the previous word is an option that has them.
 */
function shellFunction(
  t: ReturnType<typeof tree>,
  sh: {
    name: string;
    cur: string;
    prev: string;
    word: string;
    first: number;
    last: string;
    offer: string;
    none: string;
  },
): string {
  const words = wordTable(t);
  const values = valueTable(t);
  return `${sh.name}() {
  local cur="${sh.cur}" prev="${sh.prev}"
  local value_opts=" ${valueOptions(t).join(' ')} "
  local paths="|${[...new Set(t.nodes.map((n) => n.path))].sort().join('|')}|"
  local path="" i w skip=0
  for ((i=${sh.first}; i<${sh.last}; i++)); do
    w="${sh.word}"
    if ((skip)); then skip=0; continue; fi
    case "$w" in
      --*) [[ "$value_opts" == *" $w "* ]] && skip=1 ;;
      -*) ;;
      *) if [[ "$paths" == *"|\${path:+$path }$w|"* ]]; then path="\${path:+$path }$w"; fi ;;
    esac
  done
  local candidates=""
  case "$path|$prev" in
${values.map((v) => `    '${q(v.path)}|${v.option}') candidates='${q(v.values)}' ;;`).join('\n')}
    *)
      if [[ "$value_opts" == *" $prev "* ]]; then ${sh.none}; return 0; fi
      case "$path" in
${words.map((w) => `        '${q(w.path)}') candidates='${q(w.words)}' ;;`).join('\n')}
      esac ;;
  esac
  ${sh.offer}
}`;
}

function bash(t: ReturnType<typeof tree>): string {
  const fn = shellFunction(t, {
    name: '_svc_complete',
    cur: '${COMP_WORDS[COMP_CWORD]}',
    prev: '${COMP_WORDS[COMP_CWORD-1]}',
    word: '${COMP_WORDS[i]}',
    first: 1,
    last: 'COMP_CWORD',
    offer: 'COMPREPLY=($(compgen -W "$candidates" -- "$cur"))',
    none: 'COMPREPLY=()',
  });
  return `# completado de bash para svc: lo genera \`svc completion bash\`; no lo edites.
# Instalación: svc completion bash > ~/.local/share/bash-completion/completions/svc
${fn}
complete -F _svc_complete svc
`;
}

function zsh(t: ReturnType<typeof tree>): string {
  const fn = shellFunction(t, {
    name: '_svc',
    cur: '${words[CURRENT]}',
    prev: '${words[CURRENT-1]}',
    word: '${words[i]}',
    first: 2,
    last: 'CURRENT',
    offer: 'compadd -- ${=candidates}',
    none: ':',
  });
  return `#compdef svc
# completado de zsh para svc: lo genera \`svc completion zsh\`; no lo edites.
# Instalación: svc completion zsh > "\${fpath[1]}/_svc"
${fn}
compdef _svc svc
`;
}

function fish(t: ReturnType<typeof tree>): string {
  const lines = [
    '# completado de fish para svc: lo genera `svc completion fish`; no lo edites.',
    '# Instalación: svc completion fish > ~/.config/fish/completions/svc.fish',
    'complete -c svc -f',
  ];
  const fq = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const top = (t.children.get('') ?? []).map((c) => c.word);
  for (const c of t.children.get('') ?? []) {
    lines.push(
      `complete -c svc -n "not __fish_seen_subcommand_from ${top.join(' ')}" -a ${fq(c.word)} -d ${fq(c.summary)}`,
    );
  }
  for (const [parent, kids] of t.children) {
    if (parent === '') continue;
    const siblings = kids.map((k) => k.word).join(' ');
    for (const k of kids) {
      lines.push(
        `complete -c svc -n "__fish_seen_subcommand_from ${parent}; and not __fish_seen_subcommand_from ${siblings}" -a ${fq(k.word)} -d ${fq(k.summary)}`,
      );
    }
  }
  for (const n of t.nodes) {
    const cond = n.words.map((w) => `__fish_seen_subcommand_from ${w}`).join('; and ');
    for (const o of n.options) {
      const name = o.long.replace(/^--(no-)?/, (m) => (m === '--no-' ? 'no-' : ''));
      const values = o.choices ? ` -xa ${fq(o.choices.join(' '))}` : o.takesValue ? ' -r' : '';
      lines.push(`complete -c svc -n "${cond}" -l ${name}${values} -d ${fq(o.description)}`);
    }
  }
  for (const g of globals) {
    lines.push(
      `complete -c svc -l ${g.long.replace(/^--/, '')}${g.takesValue ? ' -r' : ''} -d ${fq(g.description)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
