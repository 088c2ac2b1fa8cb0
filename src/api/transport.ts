// How the client speaks HTTP: one request per attempt over node:http or node:https,
// no redirect followed (it would carry the key wherever it points), the answer read
// whole. Node's built-in fetch does the same but loads undici on its first call,
// which every command would pay: about 170 ms and 40 MB on Node 20, 20 ms on Node 24.
// A caller's own fetch (ClientOptions.fetch) goes through the same shape.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface Exchange {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Sends one request; rejects with the socket's error (code ECONNREFUSED, ENOTFOUND, ECONNRESET…) or the abort. */
export function send(url: URL, x: Exchange): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers = x.body === undefined ? x.headers : { ...x.headers, 'content-length': String(Buffer.byteLength(x.body)) };
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(url, { method: x.method, headers, signal: x.signal, agent: false });
    req.once('error', reject);
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('error', reject);
      res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      // The connection closed before the answer was whole.
      res.once('close', () => {
        if (!res.complete) reject(Object.assign(new Error('la conexión se cerró a mitad de la respuesta'), { code: 'ECONNRESET' }));
      });
    });
    req.end(x.body);
  });
}

/** The same exchange through a fetch the caller supplied. */
export async function sendWithFetch(fetchImpl: typeof fetch, url: URL, x: Exchange): Promise<Reply> {
  const res = await fetchImpl(url, { method: x.method, headers: x.headers, body: x.body, signal: x.signal, redirect: 'manual' });
  const text = await res.text();
  return { status: res.status, headers: Object.fromEntries(res.headers), text };
}
