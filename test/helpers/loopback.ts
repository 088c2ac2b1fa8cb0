// A scripted HTTP server of a test's own on loopback: listening on 127.0.0.1 at a
// port the system picks, and closed without waiting on a connection left open.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on 127.0.0.1, port 0; returns the server's base URL (http://127.0.0.1:PORT). */
export async function onLoopback(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Cuts the server's open connections (a reply still streaming, a kept-alive socket), then closes it. */
export async function closeServer(server: Server | undefined): Promise<void> {
  if (!server) return;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}
