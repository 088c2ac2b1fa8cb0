// The tests' one stand-in for the developer's app: a node:http server on 127.0.0.1
// (port 0 unless told) that records every request (headers and raw bytes) and answers
// as the test tells it to: a script of statuses, then `answer`; with the signing
// secret, it checks every signature as a merchant's endpoint would (401 when it fails).
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execa, type Options, type ResultPromise } from 'execa';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { main } from '../../src/main.js';
import { textSink } from './inproc.js';
import { verify } from '../../src/webhooks/signature.js';
import { BIN, ROOT, ownFolders } from './cli.js';

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The body as UTF-8. */
  text: string;
  /** When it arrived (Date.now()). */
  at: number;
  /** Whether its signature verified, when the receiver was given the secret. */
  verified?: boolean;
}

/** An answer: a status (and body, after a delay), the connection cut, or no answer ever (the sender's timeout decides). */
export type Answer = { status: number; body?: string; delayMs?: number } | 'cut' | 'hang';

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Statuses to answer first, in order (0: never answer); then `answer`. */
  script: number[];
  /** How to answer the next requests (default 200 "ok"; 401 to a bad signature when verifying). */
  answer: (r: Received) => Answer;
  close(): Promise<void>;
  /** Resolves with everything received once `n` requests arrived in total. */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
}

export async function startReceiver(
  options: { port?: number; script?: number[]; secret?: string } = {},
): Promise<Receiver> {
  const received: Received[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const { secret } = options;
  const target: Receiver = {
    url: '',
    port: 0,
    received,
    script: options.script ?? [],
    answer: (r) => (r.verified === false ? { status: 401 } : { status: 200, body: 'ok' }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
    waitFor(n, timeoutMs = 20_000) {
      if (received.length >= n) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`the app got ${received.length} requests, expected ${n}`)),
          timeoutMs,
        );
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve(received);
          },
        });
      });
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const r: Received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        text: body.toString('utf8'),
        at: Date.now(),
      };
      if (secret !== undefined) {
        r.verified = verify({
          secret,
          timestamp: String(req.headers['x-svc-timestamp'] ?? ''),
          signature: String(req.headers['x-svc-signature'] ?? ''),
          body,
        }).ok;
      }
      received.push(r);
      for (const w of [...waiters]) {
        if (received.length >= w.n) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
      const scripted = target.script.shift();
      const a: Answer =
        scripted === undefined ? target.answer(r) : scripted === 0 ? 'hang' : { status: scripted };
      if (a === 'hang') return;
      if (a === 'cut') {
        req.socket.destroy();
        return;
      }
      const send = () => {
        res.writeHead(a.status, { 'content-type': 'text/plain' });
        res.end(a.body ?? '');
      };
      if (a.delayMs) setTimeout(send, a.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) =>
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve()),
  );
  target.port = (server.address() as AddressInfo).port;
  target.url = `http://127.0.0.1:${target.port}/hook`;
  return target;
}

/** A raw POST with node:http (exact bytes, exact headers). */
export function post(
  url: string,
  body: Buffer | string,
  headers: Record<string, string>,
  options: { chunked?: boolean } = {},
): Promise<{ status: number; body: string; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    const req = request(url, {
      method: 'POST',
      agent: false,
      headers: options.chunked ? headers : { ...headers, 'content-length': String(bytes.length) },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString(),
          headers: res.headers,
        }),
      );
    });
    req.on('error', reject);
    if (options.chunked) {
      // Several writes, no Content-Length: the listener has to count as it reads.
      const step = 256 * 1024;
      for (let i = 0; i < bytes.length; i += step) req.write(bytes.subarray(i, i + step));
      req.end();
    } else {
      req.end(bytes);
    }
  });
}

// --- the built CLI's listener as a process ------------------------------------------

/** A running `svc webhook listen`: the built CLI as a process (startListen) or main() in this process (listenInProcess). */
export interface Listening {
  url: string;
  /** stdout lines so far (one per event). */
  lines: string[];
  stderr(): string;
  /** Resolves once `n` stdout lines arrived. */
  waitLines(n: number, timeoutMs?: number): Promise<void>;
  stop(signal?: NodeJS.Signals): Promise<{ exitCode: number | undefined; stderr: string }>;
}

export interface ListenProc extends Listening {
  proc: ResultPromise;
}

/** A listener's stdout lines as they come, and a wait for the n-th (its stderr named when the wait fails). */
function stdoutLines(stderr: () => string): {
  lines: string[];
  add(line: string): void;
  waitLines: Listening['waitLines'];
} {
  const lines: string[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  return {
    lines,
    add(line) {
      lines.push(line);
      for (const w of [...waiters])
        if (lines.length >= w.n) (waiters.splice(waiters.indexOf(w), 1), w.resolve());
    },
    waitLines(n, timeoutMs = 20_000) {
      if (lines.length >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `got ${lines.length} lines, expected ${n}:\n${lines.join('\n')}\n${stderr()}`,
              ),
            ),
          timeoutMs,
        );
        waiters.push({ n, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
  };
}

/** After a test: the listener killed and the app closed, whichever were started. */
export async function stopBoth(
  listen: Listening | undefined,
  target: Receiver | undefined,
): Promise<void> {
  await listen?.stop('SIGKILL');
  await target?.close();
}

/** Runs `svc webhook listen --port 0 ...args` and waits for its "Listo" line. */
export async function startListen(
  args: string[],
  env: Record<string, string>,
): Promise<ListenProc> {
  const options: Options = {
    cwd: ROOT,
    env: { ...ownFolders(env), NO_COLOR: '1', ...env },
    extendEnv: false,
    reject: false,
    buffer: false,
    stdin: 'ignore',
  };
  const proc = execa('node', [BIN, 'webhook', 'listen', '--port', '0', ...args], options);
  let err = '';
  const out = stdoutLines(() => err);
  createInterface({ input: proc.stdout! }).on('line', out.add);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`listen did not start: ${err}`)), 20_000);
    proc.stderr!.on('data', (d) => {
      err += String(d);
      const m = /^Listo\. Esperando notificaciones en (\S+)/m.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`listen exited with ${code}: ${err}`));
    });
  });
  return {
    url,
    proc,
    lines: out.lines,
    stderr: () => err,
    waitLines: out.waitLines,
    async stop(signal = 'SIGINT') {
      if (proc.exitCode === null) proc.kill(signal);
      const r = await proc;
      return { exitCode: r.exitCode, stderr: err };
    },
  };
}

/**
 * Runs `svc webhook listen --port 0 ...args` through main() in this process, for what is
 * not about the process (its lines, its journal); stop() ends it as Ctrl-C would.
 */
export async function listenInProcess(
  args: string[],
  env: Record<string, string>,
): Promise<Listening> {
  let partial = '';
  let err = '';
  const out = stdoutLines(() => err);
  let started = (): void => {};
  const stdout = textSink((t) => {
    partial += t;
    for (let i = partial.indexOf('\n'); i >= 0; i = partial.indexOf('\n')) {
      out.add(partial.slice(0, i));
      partial = partial.slice(i + 1);
    }
  });
  const stdin = new PassThrough();
  stdin.end();
  const ctrlC = new AbortController();
  const done = main(['webhook', 'listen', '--port', '0', ...args], {
    stdout,
    stderr: textSink((t) => ((err += t), started())),
    stdin,
    signal: ctrlC.signal,
    env: { ...ownFolders(env), NO_COLOR: '1', SVC_KEYRING: 'off', ...env } as NodeJS.ProcessEnv,
  });
  const url = await Promise.race([
    new Promise<string>((resolve) => {
      started = () => {
        const m = /^Listo\. Esperando notificaciones en (\S+)/m.exec(err);
        if (m) resolve(m[1]!);
      };
    }),
    done.then((code) => {
      throw new Error(`listen ended with ${code}: ${err}`);
    }),
  ]);
  return {
    url,
    lines: out.lines,
    stderr: () => err,
    waitLines: out.waitLines,
    async stop() {
      ctrlC.abort();
      return { exitCode: await done, stderr: err };
    },
  };
}
