// A request written by hand on a socket, for what fetch hides: a chunked body that is
// never finished, to see whether the server answers (a 413 the sender can read) or
// only cuts the connection.
import { connect } from 'node:net';

/**
 * POSTs to `url` a chunked body of `bytes` bytes in one chunk and never ends it:
 * resolves with what the server wrote back (one character per byte: latin1) by the time it closed the connection (or
 * after waitMs). The server reads every byte sent before it can tell the body is too
 * large, so its close after answering is not a reset that could swallow the answer;
 * a server that cuts the connection without answering gives ''.
 */
export function unfinishedPost(
  url: string,
  headers: Record<string, string>,
  bytes: number,
  waitMs = 15_000,
): Promise<{ text: string; closedByServer: boolean }> {
  const u = new URL(url);
  const head = [
    `POST ${u.pathname} HTTP/1.1`,
    `Host: ${u.host}`,
    'Transfer-Encoding: chunked',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    '',
    '',
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = connect(Number(u.port), u.hostname);
    const got: Buffer[] = [];
    let settled = false;
    const done = (closedByServer: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: Buffer.concat(got).toString('latin1'), closedByServer });
    };
    const timer = setTimeout(() => done(false), waitMs);
    socket.on('data', (d: Buffer) => got.push(d));
    socket.on('end', () => done(true));
    socket.on('close', () => done(true));
    socket.on('error', (err) => (got.length ? done(true) : reject(err)));
    socket.on('connect', () => {
      socket.write(head);
      socket.write(`${bytes.toString(16)}\r\n`);
      socket.write(Buffer.alloc(bytes, 0x20));
    });
  });
}

/** The status line and the JSON body of an answer unfinishedPost got (Content-Length or chunked). */
export function parseAnswer(text: string): { status: string; body: unknown } {
  const end = text.indexOf('\r\n\r\n');
  const status = text.slice(0, text.indexOf('\r\n'));
  const head = text.slice(0, end).toLowerCase();
  let body = text.slice(end + 4);
  if (head.includes('transfer-encoding: chunked')) {
    let out = '';
    for (let at = 0; ;) {
      const nl = body.indexOf('\r\n', at);
      const size = parseInt(body.slice(at, nl), 16);
      if (!size) break;
      out += body.slice(nl + 2, nl + 2 + size);
      at = nl + 2 + size + 2;
    }
    body = out;
  }
  return {
    status,
    body: body ? JSON.parse(Buffer.from(body, 'latin1').toString('utf8')) : undefined,
  };
}
