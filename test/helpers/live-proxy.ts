// The sandbox refuses live keys (as it should), so live mode is exercised end to end
// through this loopback proxy: it accepts exactly one live key, swaps it for the
// sandbox's test key and forwards everything else byte for byte. Any other key is
// forwarded unchanged (and refused by the sandbox).
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const LIVE_KEY = 'svc_live_0123456789abcdef0123456789abcdef';

export interface LiveProxy {
  baseUrl: string;
  close(): Promise<void>;
}

export async function startLiveProxy(target: string, testKey: string): Promise<LiveProxy> {
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const headers = { ...req.headers };
    if (headers.authorization === `Bearer ${LIVE_KEY}`) headers.authorization = `Bearer ${testKey}`;
    const out = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
