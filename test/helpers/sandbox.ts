// Starts `svc sandbox --port 0 --json` as a real process and reads its ready line.
import { execa, type ResultPromise } from 'execa';
import { createInterface } from 'node:readline';
import { BIN, ROOT, tempDir } from './cli.js';

export interface SandboxInfo {
  base_url: string;
  api_key: string;
  api_key_no_listo: string;
  webhook_secret: string;
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
