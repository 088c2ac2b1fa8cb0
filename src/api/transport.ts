// How the client speaks HTTP: one request per attempt over node:http or node:https,
// no redirect followed (it would carry the key wherever it points), the answer read
// whole up to a cap (a reply past it is refused as it arrives, never held: one over
// 512 MiB could not even become a string). Node's built-in fetch does the same but loads undici on its first call,
// which every command would pay: about 170 ms and 40 MB on Node 20, 20 ms on Node 24.
// A caller's own fetch (ClientOptions.fetch) goes through the same shape.
import { request as httpRequest } from 'node:http';

export interface Exchange {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
  /** Most bytes of a reply body read; past it the reply is dropped with ReplyTooLargeError. */
  maxBytes: number;
  /** Called once the request is handed to the socket layer: from then on it may reach the service. */
  onDispatch?: () => void;
}

/** The reply's body is larger than Exchange.maxBytes (declared, or seen while reading). */
export class ReplyTooLargeError extends Error {
  override name = 'ReplyTooLargeError';
  readonly code = 'SVC_REPLY_TOO_LARGE';
  constructor(
    readonly limit: number,
    /** Bytes announced by Content-Length, when that is how it was known. */
    readonly declared?: number,
  ) {
    super(`reply over ${limit} bytes`);
  }
}

function declaredLength(value: string | string[] | null | undefined): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v && /^\d+$/.test(v.trim()) ? Number(v.trim()) : undefined;
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Sends one request; rejects with the socket's error (code ECONNREFUSED, ENOTFOUND, ECONNRESET…) or the abort. */
export function send(url: URL, x: Exchange): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers =
      x.body === undefined
        ? x.headers
        : { ...x.headers, 'content-length': String(Buffer.byteLength(x.body)) };
    // TLS is loaded only for an https address: against the sandbox (plain http on
    // loopback) it is a good part of a call's start-up (#16).
    const request =
      url.protocol === 'https:' ? process.getBuiltinModule('node:https').request : httpRequest;
    const req = request(url, { method: x.method, headers, signal: x.signal, agent: false });
    req.once('error', reject);
    req.once('response', (res) => {
      // Refused before reading when the size is announced; else counted as it comes.
      const declared = declaredLength(res.headers['content-length']);
      if (declared !== undefined && declared > x.maxBytes) {
        reject(new ReplyTooLargeError(x.maxBytes, declared));
        res.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      // A compressed body is counted as it is decoded: the cap holds for what svc reads.
      const body = decoded(res, res.headers['content-encoding']);
      body.on('data', (chunk: Buffer) => {
        if (size > x.maxBytes) return;
        size += chunk.length;
        if (size > x.maxBytes) {
          chunks.length = 0;
          reject(new ReplyTooLargeError(x.maxBytes));
          res.destroy();
          body.destroy();
          return;
        }
        chunks.push(chunk);
      });
      res.once('error', reject);
      if (body !== res) body.once('error', reject);
      body.once('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      // The connection closed before the answer was whole (a no-op after a rejection above).
      res.once('close', () => {
        if (!res.complete)
          reject(
            Object.assign(new Error('la conexión se cerró a mitad de la respuesta'), {
              code: 'ECONNRESET',
            }),
          );
      });
    });
    x.onDispatch?.();
    req.end(x.body);
  });
}

/**
 * The body as sent, decoded when the service compressed it anyway (gzip, deflate, br)
 * although svc asks for `Accept-Encoding: identity`; any other coding is left as is.
 * fetch decodes on its own.
 */
function decoded(
  res: import('node:http').IncomingMessage,
  encoding: string | undefined,
): import('node:stream').Readable {
  const coding = (encoding ?? '').trim().toLowerCase();
  if (coding === '' || coding === 'identity') return res;
  const zlib = process.getBuiltinModule('node:zlib');
  const decoder =
    coding === 'gzip' || coding === 'x-gzip'
      ? zlib.createGunzip()
      : coding === 'deflate'
        ? zlib.createInflate()
        : coding === 'br'
          ? zlib.createBrotliDecompress()
          : undefined;
  return decoder ? res.pipe(decoder) : res;
}

/** The same exchange through a fetch the caller supplied. */
export async function sendWithFetch(
  fetchImpl: typeof fetch,
  url: URL,
  x: Exchange,
): Promise<Reply> {
  x.onDispatch?.();
  const res = await fetchImpl(url, {
    method: x.method,
    headers: x.headers,
    body: x.body,
    signal: x.signal,
    redirect: 'manual',
  });
  const declared = declaredLength(res.headers.get('content-length'));
  if (declared !== undefined && declared > x.maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw new ReplyTooLargeError(x.maxBytes, declared);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (res.body) {
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > x.maxBytes) {
        await reader.cancel().catch(() => {});
        throw new ReplyTooLargeError(x.maxBytes);
      }
      chunks.push(value);
    }
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return { status: res.status, headers: Object.fromEntries(res.headers), text };
}
