// svc comandos: every command from the same metadata that builds help and completions
// (src/cli/commands/*/index.ts), so the map cannot drift from what svc accepts.
import type { Context } from '../../context.js';
import type { ArgDef, OptionDef } from '../../define.js';
import { GLOBAL_OPTIONS } from '../../program.js';
import { commands, groups } from '../../registry.js';
import { EXIT } from '../../../errors.js';
import { printJson } from '../../../output/format.js';
import { wrapWords } from '../../../text.js';

/** What each exit code of svc means (docs/salida-y-codigos.md). */
const EXIT_MEANINGS: Record<keyof typeof EXIT, string> = {
  ok: 'hecho',
  refused:
    'el servicio o svc se negó, o lo pedido no se cumple (diferencias, una app que respondió mal)',
  usage: 'uso: un flag, valor o argumento inválido, antes de cualquier pedido',
  unauthorized: 'sin clave o con una clave que el servicio no acepta',
  notReady: 'el comercio todavía no puede cobrar',
  notFound: 'no existe (cobro, código, referencia, evento)',
  network: 'red o respuesta ilegible: un POST puede haberse hecho o no (se dice cómo verificar)',
  signature: 'firma de notificación inválida',
  declined: 'la persona respondió que no a una confirmación: no se hizo nada',
  cancelled: 'cancelado por la persona (Ctrl-C)',
  terminated: 'detenido con SIGTERM',
};

function option(o: OptionDef | { flags: string; description: string }) {
  const long = /--([a-z0-9-]+)/.exec(o.flags)![1]!;
  const def = o as OptionDef;
  return {
    flags: o.flags,
    nombre: long,
    valor: /<([^>]+)>|\[([^\]]+)\]/.exec(o.flags)?.slice(1).find(Boolean) ?? null,
    descripcion: o.description,
    ...(def.choices ? { valores: [...def.choices] } : {}),
    ...(def.default !== undefined
      ? { default: def.default }
      : long.startsWith('no-')
        ? { default: true }
        : {}),
    ...(def.repeatable ? { repetible: true } : {}),
  };
}

const argument = (a: ArgDef) => ({
  nombre: a.name,
  descripcion: a.description,
  obligatorio: a.required === true,
  ...(a.variadic ? { variadico: true } : {}),
  ...(a.choices ? { valores: [...a.choices] } : {}),
});

export async function run(ctx: Context): Promise<void> {
  if (!ctx.globals.json) {
    const width = Math.max(...commands.map((c) => c.name.length));
    // On a terminal a summary goes on under itself, broken at spaces (never mid-word by
    // the terminal); piped, one line per command for grep.
    const room = ctx.io.stdoutTTY ? (ctx.io.columns ?? 80) - width - 2 : Infinity;
    const pad = ' '.repeat(width + 2);
    for (const c of commands) {
      // Too narrow for a column of summaries: each under its name instead.
      if (room < 20) {
        ctx.io.out(c.name);
        for (const line of wrapWords(c.summary, (ctx.io.columns ?? 80) - 2))
          ctx.io.out(`  ${line}`);
        continue;
      }
      const [first = '', ...rest] = wrapWords(c.summary, room);
      ctx.io.out(`${c.name.padEnd(width)}  ${first}`);
      for (const line of rest) ctx.io.out(`${pad}${line}`);
    }
    return;
  }
  printJson(ctx.io, {
    grupos: groups.map((g) => ({
      nombre: g.name,
      alias: g.aliases ?? [],
      resumen: g.summary,
      ejemplos: g.examples ?? [],
    })),
    comandos: commands.map((c) => ({
      nombre: c.name,
      alias: c.aliases ?? [],
      resumen: c.summary,
      uso: `svc ${c.name}${c.usage ? ` ${c.usage}` : (c.args ?? []).map((a) => ` ${a.required ? `<${a.name}${a.variadic ? '...' : ''}>` : `[${a.name}${a.variadic ? '...' : ''}]`}`).join('')}`,
      argumentos: (c.args ?? []).map(argument),
      opciones: (c.options ?? []).map(option),
      ...(c.csv ? { csv: true } : {}),
      ejemplos: c.examples,
    })),
    opciones_globales: GLOBAL_OPTIONS.map(option),
    codigos_de_salida: Object.entries(EXIT).map(([name, code]) => ({
      codigo: code,
      nombre: name,
      significado: EXIT_MEANINGS[name as keyof typeof EXIT],
    })),
  });
}
