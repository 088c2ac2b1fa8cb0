// main(argv, deps) -> exit code. The only place that turns errors into exit codes
// and error lines (cli/report.ts, loaded on failure); commands throw, main speaks.
import { CommanderError } from 'commander';
import { commands, groups } from './cli/registry.js';
import { buildProgram, commandsFor, helpAsAsked } from './cli/program.js';
import type { Context, GlobalOptions } from './cli/context.js';
import { EXIT, Reported, UsageError } from './errors.js';
import { createIO, type IO, type Streams } from './output/io.js';
import { VERSION } from './version.js';
import type { SentWrite } from './cli/outcome.js';

export interface MainDeps extends Streams {
  env: NodeJS.ProcessEnv;
  /** Aborted when the process is asked to stop (SIGINT/SIGTERM). */
  signal?: AbortSignal;
  /** Long-running commands call this to stop gracefully on the first signal. */
  holdSignals?: () => void;
  /** Receives every write (non-GET request) the command sends; the process's last-resort handlers read it too. */
  writes?: SentWrite[];
  /** Receives the error a command failed with, before its line is printed (svc mcp reads its data: candidates, rows). */
  onError?: (err: unknown) => void;
}

export async function main(asked: string[], deps: MainDeps): Promise<number> {
  const argv = [...helpAsAsked(asked, groups, commands)];
  const raw = {
    json: argv.includes('--json'),
    noColor: argv.includes('--no-color'),
    debug: argv.includes('--debug'),
  };
  let io: IO = createIO(deps, deps.env, { color: raw.noColor ? false : undefined });
  let globals: GlobalOptions | undefined;
  let context: Context | undefined;
  const writes = deps.writes ?? [];

  const tree = commandsFor(argv, groups, commands);
  const program = buildProgram(
    VERSION,
    tree.groups,
    tree.commands,
    async ({ def, args, opts, globals: g }) => {
      globals = {
        json: g.json === true,
        csv: g.csv === true,
        profile: g.profile as string | undefined,
        live: g.live === true,
        baseUrl: g.baseUrl as string | undefined,
        proxy: g.proxy as string | undefined,
        cacert: g.cacert as string | undefined,
        yes: g.yes === true,
        input: g.input !== false,
        color: g.color !== false,
        debug: g.debug === true,
      };
      if (globals.csv && globals.json) throw new UsageError('--csv o --json, no los dos');
      if (globals.csv && !def.csv)
        throw new UsageError(
          `--csv es para las listas (cobro listar, transacciones listar, devoluciones listar, liquidaciones, webhook eventos…), no para svc ${def.name}`,
        );
      io = createIO(deps, deps.env, {
        color: globals.color ? undefined : false,
        input: globals.input,
        csv: globals.csv,
        pager: g.pager !== false,
      });
      const { createContext } = await import('./cli/context.js');
      const ctx = (context = createContext({
        io,
        env: deps.env,
        globals,
        signal: deps.signal ?? new AbortController().signal,
        holdSignals: deps.holdSignals ?? (() => {}),
        writes,
        runSvc: main,
      }));
      const mod = await def.load();
      // commander's values are, by construction, what the command's metadata declares.
      await mod.run(ctx, args, opts as Parameters<typeof mod.run>[2]);
    },
    {
      writeOut: (s) => void deps.stdout.write(s),
      writeErr: (s) => void deps.stderr.write(s),
      json: raw.json,
      columns: deps.stdout.isTTY ? deps.stdout.columns : undefined,
    },
  );

  if (argv.length === 0) {
    program.outputHelp();
    return EXIT.ok;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (
        err.code === 'commander.helpDisplayed' ||
        err.code === 'commander.version' ||
        err.code === 'commander.help'
      )
        return EXIT.ok;
      // commander already printed its (translated) message.
      return err.code === 'commander.executeSubCommandAsync' ? EXIT.refused : EXIT.usage;
    }
    // The command already said why: only the exit code is left to give.
    if (err instanceof Reported) return err.exitCode;
    // A refused key may be a sandbox restarted with new keys: said so, with the fix.
    let failure = err;
    if (context && (err as { exitCode?: unknown }).exitCode === EXIT.unauthorized) {
      failure = await (await import('./cli/restarted.js')).explainRefusedKey(err, context);
    }
    deps.onError?.(failure);
    const { report } = await import('./cli/report.js');
    return report(
      failure,
      io,
      globals?.json ?? raw.json,
      globals?.debug ?? raw.debug,
      writes,
      globals,
    );
  }
}
