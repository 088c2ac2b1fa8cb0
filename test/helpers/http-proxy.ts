// A forward proxy on loopback, as a company's would be, that counts what goes through
// it: plain http requests in absolute form (`GET http://host:port/path`), https as
// CONNECT host:port and a tunnel. Every host name resolves to 127.0.0.1 here, so a
// test can address the service by a name only the proxy can reach (`servicio.test`):
// a request that went straight would fail, not pass unseen. It can ask for
// credentials (407) or refuse every tunnel.
import { createServer, request, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface ProxySeen {
  method: string;
  /** The absolute address (plain http) or host:port (CONNECT). */
  target: string;
  /** The Proxy-Authorization header as sent, if any. */
  auth?: string;
}

export interface TestProxy {
  /** http://127.0.0.1:port */
  url: string;
  port: number;
  seen: ProxySeen[];
  close(): Promise<void>;
}

export interface TestProxyOptions {
  /** `user:pass` the proxy requires (407 without them). */
  credentials?: string;
  /** Status to answer every CONNECT with instead of opening the tunnel. */
  refuseConnect?: number;
}

export async function startProxy(options: TestProxyOptions = {}): Promise<TestProxy> {
  const seen: ProxySeen[] = [];
  const expected = options.credentials
    ? `Basic ${Buffer.from(options.credentials).toString('base64')}`
    : undefined;
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const auth = req.headers['proxy-authorization'];
    seen.push({ method: req.method ?? '', target: req.url ?? '', auth });
    if (expected && auth !== expected) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="oficina"' }).end('auth');
      return;
    }
    const target = new URL(req.url ?? '');
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    const out = request(
      {
        host: '127.0.0.1',
        port: target.port || 80,
        method: req.method,
        path: `${target.pathname}${target.search}`,
        headers,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    const auth = req.headers['proxy-authorization'];
    seen.push({ method: 'CONNECT', target: req.url ?? '', auth });
    if (expected && auth !== expected) {
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="oficina"\r\nContent-Length: 0\r\n\r\n',
      );
      return;
    }
    if (options.refuseConnect) {
      client.end(`HTTP/1.1 ${options.refuseConnect} No\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const port = Number((req.url ?? '').split(':').pop());
    const upstream = connect(port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.once('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
