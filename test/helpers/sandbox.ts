// The tests' one sandbox starter: startSandbox() runs the sandbox in this process on
// port 0 (what most tests need: HTTP and a data file), startSandbox({ spawned: [...] })
// runs `svc sandbox --port 0 --json ...` as a process and reads its ready line (for what
// only a process has: its flags, signals, output, exit). Both give one Sandbox: its keys,
// the env for svc, and one way to call it, whose every reply is parsed with the strict
// reply of its endpoint in the endpoint table (src/api/contract.ts), so the emulator
// cannot drift from the wire the client accepts without a test failing.
// startSandbox({ argv: [...] }) runs `svc sandbox --port 0 --json ...argv` through main()
// in this process, stopped as Ctrl-C would (for flags such as --escenario without a process).
import { execa, type Options, type ResultPromise } from 'execa';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { main } from '../../src/main.js';
import { textSink } from './inproc.js';
import * as z from 'zod/mini';
import { API, pathMatches, strictReply } from '../../src/api/contract.js';
import { Cobro, EventoBody, SandboxErrorBody } from '../../src/api/schemas.js';
import {
  startSandbox as startInProcess,
  type RunningSandbox,
  type SandboxOptions,
} from '../../src/sandbox/index.js';
import { BIN, ROOT, tempDir } from './cli.js';

type Shape = Parameters<typeof z.strictObject>[0];
const strict = (item: { shape: Shape }) => z.strictObject(item.shape);
const data = (schema: z.ZodMiniType) => z.strictObject({ data: schema });
const N = '[1-9][0-9]*';

/** The schema of a 2xx reply, by method and path (query string left out); undefined for pages that are not the wire. */
const REPLIES: [string, (path: string) => boolean, z.ZodMiniType][] = [
  ...Object.values(API).map((e): [string, (path: string) => boolean, z.ZodMiniType] => [
    e.method,
    (path) => pathMatches(e, path),
    strictReply(e),
  ]),
  // The control plane's moves answer the payment request, and its events the bodies it sent.
  [
    'POST',
    (path) => new RegExp(`^/_sandbox/cobros/${N}/(iniciar|pagar|rechazar|expirar)$`).test(path),
    data(strict(Cobro)),
  ],
  // A request made with the id and code a scenario carries (svc sandbox --escenario).
  ['POST', (path) => path === '/_sandbox/cobros', data(strict(Cobro))],
  [
    'GET',
    (path) => path === '/_sandbox/eventos',
    data(
      z.array(
        z.strictObject({
          id: z.int().check(z.positive()),
          fecha: z.string(),
          body: strict(EventoBody),
        }),
      ),
    ),
  ],
];

/**
 * Throws unless `body` is what the endpoint answers on the wire: its resource schema
 * for a 2xx, `{error, message}` with a known code otherwise. Pages (`/pagar/…`),
 * HEAD and the control plane's own objects (entregas, log, fallas) are not the wire
 * and pass unchecked; so does a reply `faulted` by POST /_sandbox/fallas.
 */
export function checkReply(
  method: string,
  path: string,
  status: number,
  body: unknown,
  text: string,
): void {
  if (method === 'HEAD' || status === 204) return;
  const route = path.split('?')[0]!;
  let schema: z.ZodMiniType | undefined;
  if (status >= 200 && status < 300)
    schema = REPLIES.find(([m, matches]) => m === method && matches(route))?.[2];
  else if (route.startsWith('/v1/') || route.startsWith('/_sandbox/'))
    schema = strict(SandboxErrorBody);
  if (!schema) return;
  // A page of a paged list (pageSize, svc sandbox --por-pagina) is the list's reply plus
  // where the rest is: those two members are checked here, the rest as any list.
  if (status === 200 && body && typeof body === 'object' && 'has_more' in body) {
    const { has_more: more, next, ...rest } = body as Record<string, unknown>;
    if (
      typeof more !== 'boolean' ||
      (next !== null && typeof next !== 'string') ||
      more !== (next !== null)
    )
      throw new Error(
        `${method} ${path} -> ${status}: a page with has_more ${String(more)} and next ${String(next)}`,
      );
    body = rest;
  }
  const r = schema.safeParse(body);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new Error(
      `${method} ${path} -> ${status}: the reply is not the wire (${issue.path.join('.')}: ${issue.message}): ${text.slice(0, 300)}`,
    );
  }
}

export interface Reply {
  status: number;
  /** The reply parsed as JSON; undefined when it is not JSON. */
  body: any;
  text: string;
  headers: Headers;
}

/**
 * One HTTP call with an optional bearer key; the reply read whole and parsed as JSON
 * when it is JSON. The tests' one "fetch and parse" (the sandbox's api and raw use it).
 */
export async function fetchJson(
  url: string,
  init: {
    method?: string;
    key?: string | null;
    body?: string;
    headers?: Record<string, string>;
  } = {},
): Promise<Reply> {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { ...(init.key ? { authorization: `Bearer ${init.key}` } : {}), ...init.headers },
    body: init.body,
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text, headers: res.headers };
}

/** What every test sandbox has, in this process or spawned. Fields as `svc sandbox --json` prints them. */
export interface Sandbox {
  base_url: string;
  api_key: string;
  api_key_no_listo: string;
  /** The rehearsal merchant's live key (svc_live_…). */
  api_key_live: string | null;
  webhook_secret: string;
  /** Env for `svc` pointing at this sandbox with the ready merchant's key. */
  env: Record<string, string>;
  /** Calls the sandbox with a JSON body and the ready merchant's key (another key, or null for none). */
  api(method: string, path: string, body?: unknown, key?: string | null): Promise<Reply>;
  /** Calls the sandbox with exactly this body and these headers. */
  raw(
    method: string,
    path: string,
    init?: { body?: string; headers?: Record<string, string>; key?: string | null },
  ): Promise<Reply>;
  /** Every item of a /v1 list, its pages followed (`next`) as a client follows them; at most 1000 pages. */
  list(path: string): Promise<any[]>;
  /** Creates a payment request with the ready merchant and returns its data. */
  cobro(body?: Record<string, unknown>): Promise<z.infer<typeof Cobro>>;
  /** Adds a fault (POST /_sandbox/fallas) and returns its id. */
  fault(f: Record<string, unknown>): Promise<number>;
  /** Remaining count of each fault still armed, by id. */
  faultsLeft(): Promise<Map<number, number>>;
  clearFaults(): Promise<void>;
  /** Requests received on /v1/… (the control plane filtered out). */
  apiLog(): Promise<{ method: string; path: string; status: number | null }[]>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** A sandbox in this process: also its app (store, dispatcher) and close(). */
export interface InProcessSandbox extends Sandbox, RunningSandbox {}

/** `svc sandbox` as a process. */
export interface SpawnedSandbox extends Sandbox {
  proc: ResultPromise;
  /** The zone of the sandbox's dates (--tz). */
  tz: string;
  /** What it printed on stderr so far. */
  stderr(): string;
}

/** `svc sandbox` run through main() in this process. */
export interface CommandSandbox extends Sandbox {
  tz: string;
  /** What it wrote on stderr so far. */
  stderr(): string;
}

export interface StartOptions extends SandboxOptions {
  /** Leave replies unchecked: only for tests that read deliberately broken replies. */
  uncheckedReplies?: boolean;
}

/** The calls every sandbox has, over HTTP at `base`. */
function caller(
  base: string,
  key: string,
  checked: boolean,
): Omit<
  Sandbox,
  'base_url' | 'api_key' | 'api_key_no_listo' | 'api_key_live' | 'webhook_secret' | 'env' | 'stop'
> {
  const raw: Sandbox['raw'] = async (method, path, init = {}) => {
    const r = await fetchJson(base + path, {
      method,
      key: init.key === undefined ? key : init.key,
      body: init.body,
      headers: init.headers,
    });
    if (checked && (r.headers.get('content-type') ?? '').includes('json'))
      checkReply(method, path, r.status, r.body, r.text);
    return r;
  };
  const api: Sandbox['api'] = (method, path, body, k) =>
    raw(method, path, {
      key: k,
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
    });
  const must = async (method: string, path: string, body?: unknown): Promise<any> => {
    const r = await api(method, path, body);
    if (r.status >= 300) throw new Error(`${method} ${path} -> ${r.status} ${r.text}`);
    return r.body;
  };
  return {
    api,
    raw,
    async list(path) {
      const items: any[] = [];
      let next: string | null = path;
      for (let pages = 0; next !== null; pages++) {
        if (pages === 1000) throw new Error(`GET ${path}: more than 1000 pages`);
        const r = await must('GET', next);
        items.push(...(r.data as any[]));
        next = r.next ? (r.next as string).slice(base.length) : null;
      }
      return items;
    },
    async cobro(body = {}) {
      const r = await api('POST', '/v1/cobros', {
        concepto: 'Pedido de prueba',
        monto: '1000.00',
        ...body,
      });
      if (r.status !== 201) throw new Error(`create failed: ${r.text}`);
      return r.body.data;
    },
    async fault(f) {
      return (await must('POST', '/_sandbox/fallas', f)).data.id as number;
    },
    async faultsLeft() {
      const list = (await must('GET', '/_sandbox/fallas')).data as { id: number; count: number }[];
      return new Map(list.map((f) => [f.id, f.count]));
    },
    async clearFaults() {
      await must('DELETE', '/_sandbox/fallas');
    },
    async apiLog() {
      const all = (await must('GET', '/_sandbox/log')).data as {
        method: string;
        path: string;
        status: number | null;
      }[];
      return all.filter((e) => e.path.startsWith('/v1/'));
    },
  };
}

/**
 * A sandbox in this process on port 0 (no ready delay, retries after 30 and 60 ms),
 * which checks its own /v1 replies against the endpoint table (checkReplies: one that
 * drifts is a 500), and whose every reply read through api/raw is parsed with its
 * endpoint's strict schema (checkReply).
 */
export async function startSandbox(options?: StartOptions): Promise<InProcessSandbox>;
/** `svc sandbox --port 0 --json ...spawned` as a process of the built CLI, once its ready line is out. */
export async function startSandbox(options: { spawned: string[] }): Promise<SpawnedSandbox>;
/** `svc sandbox --port 0 --json ...argv` through main() in this process, once its ready line is out. */
export async function startSandbox(options: { argv: string[] }): Promise<CommandSandbox>;
export async function startSandbox(
  options: StartOptions | { spawned: string[] } | { argv: string[] } = {},
): Promise<InProcessSandbox | SpawnedSandbox | CommandSandbox> {
  if ('spawned' in options) return spawn(options.spawned);
  if ('argv' in options) return command(options.argv);
  const { uncheckedReplies, ...sandboxOptions } = options;
  const sb = await startInProcess({
    port: 0,
    readyDelayMs: 0,
    retrySchedule: [30, 60],
    checkReplies: !uncheckedReplies,
    ...sandboxOptions,
  });
  const info = {
    base_url: sb.baseUrl,
    api_key: sb.apiKey,
    api_key_no_listo: sb.apiKeyNoListo,
    api_key_live: sb.apiKeyLive,
    webhook_secret: sb.webhookSecret,
  };
  return Object.assign(sb, info, caller(sb.baseUrl, sb.apiKey, !uncheckedReplies), {
    env: { SVC_BASE_URL: sb.baseUrl, SVC_API_KEY: sb.apiKey, SVC_WEBHOOK_SECRET: sb.webhookSecret },
    stop: () => sb.close(),
  });
}

/** The JSON line `svc sandbox --json` prints once it is ready. */
type ReadyLine = Omit<
  Sandbox,
  | 'env'
  | 'api'
  | 'raw'
  | 'list'
  | 'cobro'
  | 'fault'
  | 'faultsLeft'
  | 'clearFaults'
  | 'apiLog'
  | 'stop'
> & { tz: string };

async function spawn(args: string[]): Promise<SpawnedSandbox> {
  const options: Options = {
    cwd: ROOT,
    env: { SVC_CONFIG_DIR: tempDir('svc-config-'), NO_COLOR: '1' },
    reject: false,
    buffer: false,
    stdin: 'ignore',
  };
  const proc = execa('node', [BIN, 'sandbox', '--port', '0', '--json', ...args], options);
  let stderr = '';
  proc.stderr?.on('data', (d) => (stderr += String(d)));
  const rl = createInterface({ input: proc.stdout! });
  const info = await new Promise<ReadyLine>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`sandbox did not start in 20 s: ${stderr}`)),
      20_000,
    );
    rl.once('line', (line) => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(line));
      } catch {
        reject(new Error(`sandbox ready line is not JSON: ${line}\n${stderr}`));
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sandbox exited with ${code} before ready: ${stderr}`));
    });
  });
  // Keep draining stdout so the sandbox never blocks on a full pipe.
  rl.on('line', () => {});
  return {
    ...info,
    ...caller(info.base_url, info.api_key, true),
    proc,
    stderr: () => stderr,
    env: {
      SVC_BASE_URL: info.base_url,
      SVC_API_KEY: info.api_key,
      SVC_WEBHOOK_SECRET: info.webhook_secret,
    },
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode === null && !proc.killed) proc.kill(signal);
      await proc;
    },
  };
}

async function command(args: string[]): Promise<CommandSandbox> {
  let out = '';
  let err = '';
  let onLine = (): void => {};
  const stdin = new PassThrough();
  stdin.end();
  const ctrlC = new AbortController();
  const done = main(['sandbox', '--port', '0', '--json', ...args], {
    stdout: textSink((t) => ((out += t), onLine())),
    stderr: textSink((t) => (err += t)),
    stdin,
    signal: ctrlC.signal,
    env: {
      SVC_CONFIG_DIR: tempDir('svc-config-'),
      NO_COLOR: '1',
      SVC_KEYRING: 'off',
    } as NodeJS.ProcessEnv,
  });
  const line = await Promise.race([
    new Promise<string>((resolve) => {
      onLine = () => out.includes('\n') && resolve(out.slice(0, out.indexOf('\n')));
      onLine();
    }),
    done.then((code) => {
      throw new Error(`svc sandbox ended with ${code} before ready: ${err}`);
    }),
  ]);
  const info = JSON.parse(line) as ReadyLine;
  return {
    ...info,
    ...caller(info.base_url, info.api_key, true),
    stderr: () => err,
    env: {
      SVC_BASE_URL: info.base_url,
      SVC_API_KEY: info.api_key,
      SVC_WEBHOOK_SECRET: info.webhook_secret,
    },
    async stop() {
      ctrlC.abort();
      const code = await done;
      if (code !== 0) throw new Error(`svc sandbox ended with ${code}: ${err}`);
    },
  };
}
