// docs/comandos.md, the command reference, rendered from `svc comandos --json` (the one
// description of every command, option and exit code). `npm run docs:comandos` writes it;
// test/docs/comandos.test.ts fails when the file is not what the command tree says now.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** A table cell: pipes escaped, line breaks as spaces. */
const cell = (s) =>
  String(s)
    .replace(/\|/g, '\\|')
    .replace(/\s*\n\s*/g, ' ');
/** An anchor GitHub makes of a heading `svc cobro crear`. */
const anchor = (name) => `svc-${name.replace(/ /g, '-')}`;

/** One option as a table row: flags, what it takes, default or repeatable. */
function option(o) {
  const notes = [];
  if (o.valores) notes.push(`valores: ${o.valores.map((v) => `\`${v}\``).join(', ')}`);
  if (o.repetible) notes.push('se puede repetir');
  if (o.default !== undefined && typeof o.default !== 'boolean')
    notes.push(`por omisión: \`${o.default}\``);
  const what = [o.descripcion, ...notes].join('; ');
  return `| \`${cell(o.flags)}\` | ${cell(what)} |`;
}

/**
 * The Markdown of the reference.
 * @param {{ comandos: any[]; opciones_globales: any[]; codigos_de_salida: any[] }} tree
 */
export function renderComandos(tree) {
  const out = [
    '# Referencia de comandos',
    '',
    '<!-- Generado de `svc comandos --json` por `npm run docs:comandos`: no editar a mano. -->',
    '',
    'Cada comando de svc, con sus argumentos, opciones y ejemplos, como los da',
    '`svc comandos --json` (y `svc <comando> --help`). Un recorrido con la salida de cada uno:',
    '[recorrido.md](recorrido.md).',
    '',
    '## Comandos',
    '',
    ...tree.comandos.map((c) => `- [\`svc ${c.nombre}\`](#${anchor(c.nombre)}): ${c.resumen}`),
    '',
    '## Opciones globales',
    '',
    '| opción | qué hace |',
    '|---|---|',
    ...tree.opciones_globales.map(option),
    '',
    '## Códigos de salida',
    '',
    '| código | nombre | significado |',
    '|---|---|---|',
    ...tree.codigos_de_salida.map(
      (e) => `| ${e.codigo} | \`${cell(e.nombre)}\` | ${cell(e.significado)} |`,
    ),
  ];
  for (const c of tree.comandos) {
    out.push('', `## svc ${c.nombre}`, '', `${c.resumen}.`, '', '```text', c.uso, '```');
    if (c.alias.length) out.push('', `Alias: ${c.alias.map((a) => `\`${a}\``).join(', ')}.`);
    if (c.argumentos.length) {
      out.push('', '| argumento | qué es |', '|---|---|');
      for (const a of c.argumentos) {
        const notes = [a.descripcion];
        if (!a.obligatorio) notes.push('opcional');
        if (a.variadico) notes.push('uno o más');
        if (a.valores) notes.push(`valores: ${a.valores.map((v) => `\`${v}\``).join(', ')}`);
        out.push(`| \`${cell(a.nombre)}\` | ${cell(notes.join('; '))} |`);
      }
    }
    if (c.opciones.length)
      out.push('', '| opción | qué hace |', '|---|---|', ...c.opciones.map(option));
    if (c.ejemplos.length) out.push('', '```bash', ...c.ejemplos, '```');
  }
  return `${out.join('\n')}\n`;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const COMANDOS_DOC = `${ROOT}docs/comandos.md`;

// `node src/build/comandos-doc.mjs < comandos.json` writes the file.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(COMANDOS_DOC, renderComandos(JSON.parse(readFileSync(0, 'utf8'))));
  process.stdout.write(`${COMANDOS_DOC} escrito\n`);
}
