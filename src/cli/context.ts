// The context a command receives: IO, environment, global flags and, built lazily
// on first use, the profile store, the resolved configuration and the API client
// (which address and key it uses is src/config's to decide: resolve.ts, credentials.ts).
// Commands never read process.env, never call process.exit and never write to
// console; everything they touch comes from here.
import { redactAddresses } from '../api/address.js';
import type { Client, WriteRecord } from '../api/client.js';
import type { Network } from '../api/network.js';
import type { Resolved } from '../config/resolve.js';
import type { ProfileStore } from '../config/profiles.js';
import type { IO, Streams } from '../output/io.js';
import { CancelledError, DeclinedError, UsageError } from '../errors.js';
import { printable } from './parse.js';
import { parseAmount, parseTypedAmount, twoReadings } from '../domain/money.js';

export interface GlobalOptions {
  json: boolean;
  /** --csv: lists as CSV. */
  csv?: boolean;
  profile?: string;
  live: boolean;
  baseUrl?: string;
  /** --proxy ("" = none) and --cacert. */
  proxy?: string;
  cacert?: string;
  yes: boolean;
  input: boolean;
  color: boolean;
  debug: boolean;
}

export interface Context {
  io: IO;
  env: NodeJS.ProcessEnv;
  globals: GlobalOptions;
  /** The profile store (config file), opened on first use. */
  store(): Promise<ProfileStore>;
  /** Profile, address, key and secret with their sources. */
  resolved(): Promise<Resolved>;
  /** The service's zone, the one clock of typed and shown times (SVC_TZ > profile > default). */
  zone(): Promise<string>;
  /** The proxy and CA settings every outgoing connection uses (flag > environment > profile). */
  network(): Promise<Network>;
  /** The API client for the resolved address and key. Prints the live banner once. */
  /**
   * `banner: false` for the sandbox's own controls (`svc sandbox pagar`…): they act on a
   * sandbox only, where no money is real, so MODO LIVE would say something false.
   */
  client(options?: { requireKey?: boolean; banner?: boolean }): Promise<Client>;
  /** A client for an explicit address and key (login checks a key before storing it). */
  clientFor(baseUrl: string, apiKey?: string): Promise<Client>;
  /** Runs work with a spinner on stderr when it is a terminal and --json is off. */
  spin<T>(text: string, work: () => Promise<T>): Promise<T>;
  /**
   * Yes/no on a terminal; DeclinedError (exit 8) when answered no, CancelledError (130)
   * when interrupted. `nothing` is what either says was not done ("no se devolvió nada").
   */
  confirm(message: string, nothing?: string): Promise<void>;
  /** The person must type `expected` exactly (live refunds); `nothing` as for confirm. */
  confirmTyped(message: string, expected: string, nothing?: string): Promise<void>;
  /**
   * A call that moves money or changes state. In live mode: confirm on a terminal,
   * require --yes without one. In test mode: nothing.
   */
  guardChange(action: string): Promise<void>;
  /** A line on stderr when --debug is on. */
  debug(line: string): void;
  /**
   * For long-running commands (servers): from now on the first SIGINT/SIGTERM
   * aborts the returned signal instead of ending the process.
   */
  holdSignals(): AbortSignal;
  /**
   * Runs another svc command in this process, as main(argv, deps) does (the demo runs
   * each step as the command a person would type). Handed down by main, so no
   * command imports main.
   */
  runSvc: RunSvc;
  /** The address and configured key of the last client built by client(): what a refused key is explained by (restarted.ts). */
  keyInUse?: KeyInUse;
}

/** A configured key a client sends, where it came from, and to which address. */
export interface KeyInUse {
  baseUrl: string;
  key: string;
  source: 'flag' | 'env' | 'profile' | 'keyring' | 'default';
  profile: string;
  mode: 'test' | 'live';
}

/** main(argv, deps) as a command sees it. */
export type RunSvc = (
  argv: string[],
  deps: Streams & { env: NodeJS.ProcessEnv; signal?: AbortSignal },
) => Promise<number>;

export interface ContextDeps {
  io: IO;
  env: NodeJS.ProcessEnv;
  globals: GlobalOptions;
  signal: AbortSignal;
  holdSignals: () => void;
  /** Every request that is not a GET the command's clients send, kept current (main reads it when something unexpected happens). */
  writes?: WriteRecord[];
  runSvc: RunSvc;
}

export function createContext(deps: ContextDeps): Context {
  const { io, env, globals } = deps;
  let storeP: Promise<ProfileStore> | undefined;
  let resolvedP: Promise<Resolved> | undefined;
  let networkP: Promise<Network> | undefined;
  let bannerShown = false;
  // The spinner running now (ctx.spin), whose text a long list walk extends.
  let spinning: { spinner: { text: string }; text: string } | undefined;
  // A list read page after page says how far it got, on a terminal only: in the
  // spinner's text while one runs, else one line every ten pages.
  const listProgress = (p: { path: string; page: number; items: number }) => {
    if (!io.stderrTTY || globals.json) return;
    const where = `página ${p.page} de ${p.path}, ${p.items} leídos`;
    if (spinning) spinning.spinner.text = `${spinning.text} (${where})`;
    else if (p.page % 10 === 0) io.err(io.c.dim(`leyendo… ${where}`));
  };

  const ctx: Context = {
    io,
    env,
    globals,
    runSvc: deps.runSvc,
    holdSignals() {
      deps.holdSignals();
      return deps.signal;
    },
    store() {
      storeP ??= import('../config/profiles.js').then((m) => m.openStore(env));
      return storeP;
    },
    resolved() {
      resolvedP ??= (async () => {
        // An empty or malformed --profile / --base-url is a typo, not "use the default".
        if (globals.profile !== undefined) {
          const { PROFILE_NAME } = await import('../config/profiles.js');
          if (!PROFILE_NAME.test(globals.profile)) {
            throw new UsageError(
              `--profile "${printable(globals.profile)}" no es un nombre de perfil válido (letras, números, . _ -; hasta 64)`,
            );
          }
        }
        if (globals.baseUrl !== undefined && globals.baseUrl.trim() === '') {
          throw new UsageError('--base-url está vacío (se espera https://…)');
        }
        const { resolve } = await import('../config/resolve.js');
        const store = await ctx.store();
        return resolve(
          { profile: globals.profile, live: globals.live, baseUrl: globals.baseUrl },
          env,
          store.read(),
        );
      })();
      return resolvedP;
    },
    network() {
      networkP ??= (async () => {
        const { Network } = await import('../api/network.js');
        // The profile's settings only when there is a config file to read them from.
        let profile: { proxy?: string; ca_file?: string } | undefined;
        try {
          profile = (await ctx.resolved()).profile;
        } catch {
          profile = undefined;
        }
        return new Network(
          {
            proxyFlag: globals.proxy,
            caFlag: globals.cacert,
            profileProxy: profile?.proxy,
            profileCa: profile?.ca_file,
          },
          env,
        );
      })();
      return networkP;
    },
    async zone() {
      const { serviceZone, DateError } = await import('../domain/dates.js');
      const profileZone = env.SVC_TZ?.trim() ? undefined : (await ctx.resolved()).profile?.zona;
      try {
        return serviceZone(env, profileZone);
      } catch (err) {
        if (err instanceof DateError) throw new UsageError(err.message);
        throw err;
      }
    },
    async client(options = {}) {
      const requireKey = options.requireKey ?? true;
      const r = await ctx.resolved();
      const { requireAddress, requireKey: keyOf } = await import('../config/credentials.js');
      const baseUrl = requireAddress(r);
      if (!requireKey) return ctx.clientFor(baseUrl, r.apiKey?.value);
      const { key, mode } = await keyOf(r, env, async () => (await ctx.store()).path, globals.live);
      ctx.keyInUse = { baseUrl, key, source: r.apiKey!.source, profile: r.profileName.value, mode };
      if (mode === 'live' && !bannerShown && options.banner !== false) {
        bannerShown = true;
        io.err(
          io.c.bgRed(io.c.white(io.c.bold(' MODO LIVE '))) +
            ' ' +
            io.c.red('operás con dinero real'),
        );
      }
      return ctx.clientFor(baseUrl, key);
    },
    async clientFor(baseUrl, apiKey) {
      const { Client } = await import('../api/client.js');
      const timeoutMs =
        env.SVC_TIMEOUT_MS && /^\d+$/.test(env.SVC_TIMEOUT_MS)
          ? Number(env.SVC_TIMEOUT_MS)
          : undefined;
      const backoffMs =
        env.SVC_RETRY_BACKOFF_MS && /^\d+$/.test(env.SVC_RETRY_BACKOFF_MS)
          ? Number(env.SVC_RETRY_BACKOFF_MS)
          : undefined;
      // The reply cap can be lowered so a test proves it without moving 256 MiB.
      const maxReplyBytes =
        env.SVC_MAX_REPLY_BYTES && /^[1-9]\d{0,15}$/.test(env.SVC_MAX_REPLY_BYTES)
          ? Number(env.SVC_MAX_REPLY_BYTES)
          : undefined;
      const waitNoticeMs =
        env.SVC_WAIT_NOTICE_MS && /^\d{1,9}$/.test(env.SVC_WAIT_NOTICE_MS)
          ? Number(env.SVC_WAIT_NOTICE_MS)
          : undefined;
      const network = await ctx.network();
      try {
        const client = new Client({
          baseUrl,
          apiKey,
          network,
          timeoutMs,
          backoffMs,
          maxReplyBytes,
          waitNoticeMs,
          // A terminal already shows a spinner; elsewhere one line says what svc waits for.
          onWait:
            io.stderrTTY && !globals.json
              ? undefined
              : (w) =>
                  io.err(
                    io.c.dim(
                      redactAddresses(
                        `esperando la respuesta de ${w.host} a ${w.method} ${w.path} (${w.waitedMs / 1000} s; hasta ${(timeoutMs ?? 15_000) / 1000} s por intento)…`,
                      ),
                    ),
                  ),
          onWrite: deps.writes ? (w) => void deps.writes!.push(w) : undefined,
          onPage: (p) => listProgress(p),
          debug: globals.debug ? (line) => io.err(io.c.dim(line)) : undefined,
          onRetry: globals.debug
            ? (i) =>
                io.err(
                  io.c.dim(
                    redactAddresses(`reintento ${i.attempt} en ${i.delayMs} ms (${i.reason})`),
                  ),
                )
            : undefined,
        });
        if (globals.debug) ctx.debug(network.describe(new URL(client.baseUrl)));
        return client;
      } catch (err) {
        if (err instanceof Error && err.name === 'InsecureBaseUrlError')
          throw new UsageError(err.message);
        throw err;
      }
    },
    async spin(text, work) {
      // A terminal that reports no width (some pseudo-terminals) would get one redraw per frame as new lines.
      const columns = (io.stderr as { columns?: number }).columns ?? 0;
      if (!io.stderrTTY || globals.json || columns <= 0) return work();
      const { default: ora } = await import('ora');
      // Whether it animates, as ora decides it (is-interactive), but from the environment
      // main() was given, not this process's: in-process runs each have their own.
      const animate = Boolean(io.stderr.isTTY) && io.env.TERM !== 'dumb' && !('CI' in io.env);
      const spinner = ora({
        text,
        stream: io.stderr as NodeJS.WritableStream & { isTTY: true },
        color: 'cyan',
        isEnabled: animate,
      }).start();
      spinning = { spinner, text };
      try {
        return await work();
      } finally {
        spinning = undefined;
        spinner.stop();
      }
    },
    async confirm(message, nothing = NOTHING) {
      if (!io.canPrompt)
        throw new UsageError(`se necesita confirmación (${io.noPromptWhy}): agregá --yes`);
      // An input, not inquirer's confirm: that one takes only y/yes and echoes "Yes"/"No".
      const { input } = await import('@inquirer/prompts');
      const answer = await prompt(
        () => input({ message: `${message} (s/N)` }, promptStreams(io)),
        nothing,
      );
      if (!isYes(answer)) throw new DeclinedError(`${nothing}: respondiste que no`);
    },
    async confirmTyped(message, expected, nothing = NOTHING) {
      if (!io.canPrompt)
        throw new UsageError(`se necesita confirmación (${io.noPromptWhy}): agregá --yes`);
      const { input } = await import('@inquirer/prompts');
      const typed = await prompt(() => input({ message }, promptStreams(io)), nothing);
      const why = notTheAmount(typed, expected);
      if (why !== undefined) throw new DeclinedError(`${nothing}: ${why}`);
    },
    async guardChange(action) {
      const r = await ctx.resolved();
      if (r.mode !== 'live' || globals.yes) return;
      if (!io.canPrompt)
        throw new UsageError(
          `modo live ${io.noPromptWhy}: ${action} necesita --yes para confirmar`,
        );
      await ctx.confirm(`MODO LIVE: ¿${action}?`);
    },
    debug(line) {
      if (globals.debug) io.err(io.c.dim(redactAddresses(line)));
    },
  };
  return ctx;
}

export function promptStreams(io: IO) {
  return { input: io.stdin, output: io.stderr, clearPromptOnDone: false } as {
    input: NodeJS.ReadableStream;
    output: NodeJS.WritableStream;
    clearPromptOnDone: boolean;
  };
}

/** What a declined or interrupted confirmation says was not done, unless the command says it better. */
const NOTHING = 'no se hizo nada';

/** Runs an @inquirer prompt; Ctrl-C becomes CancelledError (exit 130), saying `nothing` when given. */
export async function prompt<T>(ask: () => Promise<T>, nothing?: string): Promise<T> {
  try {
    return await ask();
  } catch (err) {
    if (
      err instanceof Error &&
      (err.name === 'ExitPromptError' || err.name === 'AbortPromptError')
    ) {
      throw new CancelledError(nothing ? `cancelado: ${nothing}` : undefined);
    }
    throw err;
  }
}

/** A yes, as a Spanish or English speaker types it: s, si, sí, y, yes (any case). */
export function isYes(answer: string): boolean {
  return /^(s|si|sí|y|yes)$/i.test(answer.trim());
}

/**
 * Why what was typed at a typed confirmation is not `expected`, in words that say what
 * to type; undefined when it is. An amount that reads two ways (30.000) says both.
 */
export function notTheAmount(typed: string, expected: string): string | undefined {
  if (sameAmount(typed, expected)) return undefined;
  const t = printable(typed.trim(), 40);
  const say = `para confirmar, escribí ${expected}`;
  const two = twoReadings(typed);
  if (two) return `"${t}" se lee de dos formas (${two[0]} o ${two[1]}); ${say}`;
  return `escribiste "${t}", no ${expected}; ${say}`;
}

/**
 * Whether what was typed is the amount asked for, in any spelling svc's prompts read
 * (money.ts parseTypedAmount: 4, 4.00, 4,00, $4, 1.500,50): the person who typed 750,25
 * for the amount confirms it the same way. An ambiguous 1.500 is no amount, so no match.
 */
export function sameAmount(typed: string, expected: string): boolean {
  try {
    return parseTypedAmount(typed) === parseAmount(expected);
  } catch {
    return false;
  }
}
