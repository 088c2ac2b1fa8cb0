// A hostile server on loopback: a proxy in front of a sandbox that forwards every
// request as is, except those a rule takes over, which it answers badly: a body
// larger than the client's cap (streamed, or announced with Content-Length),
// bytes that are not HTTP, any status and body. It counts every request it sees.
import {
  createServer,
  request,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export type Answer =
  /** `head` + padding + `tail`, `bytes` long in all, written at the reader's pace. */
  | { kind: 'big'; bytes: number; head: string; tail: string; declare: boolean }
  | { kind: 'respond'; status: number; body: string; headers?: Record<string, string> }
  /** Raw bytes on the socket, not an HTTP response, then the connection closed. */
  | { kind: 'not-http'; bytes: string };

export interface Hostile {
  baseUrl: string;
  /** Every request seen, in order: `METHOD /path?query`. */
  seen: string[];
  on(method: string, path: string, answer: Answer): void;
  clear(): void;
  close(): Promise<void>;
}

/** A valid JSON body padded to `bytes`: `{"data":{...item,"pad":"xxx…"}}`. */
export function bigItem(item: Record<string, unknown>, bytes: number, declare: boolean): Answer {
  return {
    kind: 'big',
    bytes,
    head: `{"data":${JSON.stringify(item).slice(0, -1)},"pad":"`,
    tail: '"}}',
    declare,
  };
}

/** A valid list body padded to `bytes` with copies of `item`: `{"data":[item,item,…]}`. */
export function bigList(item: Record<string, unknown>, bytes: number, declare: boolean): Answer {
  const one = JSON.stringify(item);
  const copies = Math.ceil(bytes / (one.length + 1));
  const body = `{"data":[${Array.from({ length: copies }, () => one).join(',')}]}`;
  return { kind: 'big', bytes: body.length, head: body, tail: '', declare };
}

async function answerBig(res: ServerResponse, a: Extract<Answer, { kind: 'big' }>): Promise<void> {
  res.writeHead(200, {
    'content-type': 'application/json',
    ...(a.declare ? { 'content-length': String(a.bytes) } : {}),
  });
  const padding = a.bytes - Buffer.byteLength(a.head) - Buffer.byteLength(a.tail);
  const chunk = 64 * 1024;
  const parts = function* () {
    for (let i = 0; i < a.head.length; i += chunk) yield a.head.slice(i, i + chunk);
    for (let left = padding; left > 0; left -= chunk) yield 'x'.repeat(Math.min(chunk, left));
    if (a.tail) yield a.tail;
  };
  for (const part of parts()) {
    if (res.destroyed) return; // the client hung up, as it should past its cap
    if (!res.write(part)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  }
  res.end();
}

export async function startHostile(target: string): Promise<Hostile> {
  const upstream = new URL(target);
  const rules = new Map<string, Answer>();
  const seen: string[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    seen.push(`${req.method} ${req.url}`);
    const rule = rules.get(`${req.method} ${path}`);
    if (!rule) {
      const out = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
        },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      out.on('error', () => res.destroy());
      req.pipe(out);
      return;
    }
    req.resume();
    req.once('end', () => {
      if (rule.kind === 'big') void answerBig(res, rule).catch(() => res.destroy());
      else if (rule.kind === 'respond')
        res
          .writeHead(rule.status, { 'content-type': 'application/json', ...rule.headers })
          .end(rule.body);
      else req.socket.end(rule.bytes);
    });
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    seen,
    on(method, path, answer) {
      rules.set(`${method} ${path}`, answer);
    },
    clear() {
      rules.clear();
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
