// Starts `svc sandbox --port 0 --json` as a real process and reads its ready line;
// and the one reply check of the tests: every sandbox reply is parsed with the strict
// reply of its endpoint in the endpoint table (src/api/contract.ts), so the emulator
// cannot drift from the wire the client accepts without a test failing.
import { execa, type ResultPromise } from 'execa';
import { createInterface } from 'node:readline';
import * as z from 'zod/mini';
import { API, pathMatches, strictReply } from '../../src/api/contract.js';
import { Cobro, EventoBody, SandboxErrorBody } from '../../src/api/schemas.js';
import { BIN, ROOT, tempDir } from './cli.js';

type Shape = Parameters<typeof z.strictObject>[0];
const strict = (item: { shape: Shape }) => z.strictObject(item.shape);
const data = (schema: z.ZodMiniType) => z.strictObject({ data: schema });
const N = '[1-9][0-9]*';

/** The schema of a 2xx reply, by method and path (query string left out); undefined for pages that are not the wire. */
const REPLIES: [string, (path: string) => boolean, z.ZodMiniType][] = [
  ...Object.values(API).map((e): [string, (path: string) => boolean, z.ZodMiniType] => [e.method, (path) => pathMatches(e, path), strictReply(e)]),
  // The control plane's moves answer the payment request, and its events the bodies it sent.
  ['POST', (path) => new RegExp(`^/_sandbox/cobros/${N}/(iniciar|pagar|rechazar|expirar)$`).test(path), data(strict(Cobro))],
  // A request made with the id and code a scenario carries (svc sandbox --escenario).
  ['POST', (path) => path === '/_sandbox/cobros', data(strict(Cobro))],
  [
    'GET',
    (path) => path === '/_sandbox/eventos',
    data(z.array(z.strictObject({ id: z.int().check(z.positive()), fecha: z.string(), body: strict(EventoBody) }))),
  ],
];

/**
 * Throws unless `body` is what the endpoint answers on the wire: its resource schema
 * for a 2xx, `{error, message}` with a known code otherwise. Pages (`/pagar/…`),
 * HEAD and the control plane's own objects (entregas, log, fallas) are not the wire
 * and pass unchecked; so does a reply `faulted` by POST /_sandbox/fallas.
 */
export function checkReply(method: string, path: string, status: number, body: unknown, text: string): void {
  if (method === 'HEAD' || status === 204) return;
  const route = path.split('?')[0]!;
  let schema: z.ZodMiniType | undefined;
  if (status >= 200 && status < 300) schema = REPLIES.find(([m, matches]) => m === method && matches(route))?.[2];
  else if (route.startsWith('/v1/') || route.startsWith('/_sandbox/')) schema = strict(SandboxErrorBody);
  if (!schema) return;
  const r = schema.safeParse(body);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new Error(`${method} ${path} -> ${status}: the reply is not the wire (${issue.path.join('.')}: ${issue.message}): ${text.slice(0, 300)}`);
  }
}

export interface SandboxInfo {
  base_url: string;
  api_key: string;
  api_key_no_listo: string;
  /** The rehearsal merchant's live key (svc_live_…). */
  api_key_live: string | null;
  webhook_secret: string;
  /** The zone of the sandbox's dates (--tz). */
  tz: string;
}

export interface Sandbox extends SandboxInfo {
  proc: ResultPromise;
  /** Env for `svc` pointing at this sandbox with the ready merchant's key. */
  env: Record<string, string>;
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Calls the sandbox over HTTP with the ready merchant's key. */
  api(method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; body: any; text: string }>;
}

export async function startSandbox(args: string[] = []): Promise<Sandbox> {
  const proc = execa('node', [BIN, 'sandbox', '--port', '0', '--json', ...args], {
    cwd: ROOT,
    env: { SVC_CONFIG_DIR: tempDir('svc-config-'), NO_COLOR: '1' },
    reject: false,
    buffer: false,
    stdin: 'ignore',
  });
  let stderr = '';
  proc.stderr?.on('data', (d) => (stderr += String(d)));
  const rl = createInterface({ input: proc.stdout! });
  const info = await new Promise<SandboxInfo>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sandbox did not start in 20 s: ${stderr}`)), 20_000);
    rl.once('line', (line) => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(line) as SandboxInfo);
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
  const api: Sandbox['api'] = async (method, path, body, key = info.api_key) => {
    const res = await fetch(info.base_url + path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    checkReply(method, path, res.status, parsed, text);
    return { status: res.status, body: parsed, text };
  };
  return {
    ...info,
    proc,
    env: { SVC_BASE_URL: info.base_url, SVC_API_KEY: info.api_key, SVC_WEBHOOK_SECRET: info.webhook_secret },
    api,
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode === null && !proc.killed) proc.kill(signal);
      await proc;
    },
  };
}
