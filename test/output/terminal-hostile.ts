// A hostile service for the terminal tests (issue #19 point 9): a proxy on 127.0.0.1
// in front of a sandbox that rewrites every free-text field of every JSON reply into
// a string of escape sequences, C1 controls and bidi overrides (the sandbox itself
// refuses to store them), and what such a string must look like once shown.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Title, clear screen, a fake blinking green state, an OSC 8 link, RLO, LRI, C1 CSI and NEL, ZWSP, LINE SEPARATOR, DEL, CR LF, TAB. */
export const HOSTILE =
  'Pedido\u001b]0;pwned\u0007\u001b[2J\u001b[5;32mPAGADA\u001b]8;;https://evil.example/\u001b\\clic\u001b]8;;\u001b\\' +
  '\u202egnp.exe\u2066\u009b2J\u0085\u200b\u2028\u007f\r\n\tfin';
/** How a value holding HOSTILE is shown: quoted, each unsafe character escaped (written out by hand, not computed). */
export const HOSTILE_SHOWN = String.raw`"Pedido\u001b]0;pwned\u0007\u001b[2J\u001b[5;32mPAGADA\u001b]8;;https://evil.example/\u001b\\clic\u001b]8;;\u001b\\\u202egnp.exe\u2066\u009b2J\u0085\u200b\u2028\u007f\r\n\tfin"`;

/** Raw characters a terminal could act on or hide (line feed and tab aside). */
export const RAW_UNSAFE = /(?![\n\t])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
/** svc's own colours. */
export const SGR = /\u001b\[[0-9;]*m/g;

/** Free-text fields of the wire schemas and the sandbox's log and deliveries (the others are enums, amounts or dates the client checks). */
const POISON = new Set([
  'codigo',
  'concepto',
  'referencia',
  'url',
  'cvu',
  'qr',
  'success_url',
  'error_url',
  'nombre',
  'email',
  'label',
  'name',
  'version',
  'message',
  'path',
  'error',
]);

function poison(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => poison(v));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    // A refund's tipo and every estado are enums the client checks: a hostile one is exit 6, not text.
    out[k] = typeof v === 'string' && POISON.has(k) ? HOSTILE : poison(v);
  }
  return out;
}

export interface Hostile {
  baseUrl: string;
  /** The last body sent for each path (to compare --json with). */
  sent: Map<string, string>;
  close(): Promise<void>;
}

export async function hostileProxy(target: string): Promise<Hostile> {
  const up = new URL(target);
  const sent = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    const out = request(
      { host: up.hostname, port: up.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          let body = Buffer.concat(chunks).toString('utf8');
          if (String(answer.headers['content-type'] ?? '').includes('json') && body) {
            const path = (req.url ?? '').split('?')[0]!;
            body = JSON.stringify(poison(JSON.parse(body)));
            sent.set(path, body);
          }
          const headers = { ...answer.headers, 'content-length': String(Buffer.byteLength(body)) };
          delete headers['transfer-encoding'];
          res.writeHead(answer.statusCode ?? 502, headers);
          res.end(body);
        });
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
