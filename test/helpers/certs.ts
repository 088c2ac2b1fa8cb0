// Certificates made at test time with the machine's openssl (node:crypto cannot sign
// one): a company CA, server certificates it signs (good, expired, for another name),
// a self-signed one; and a TLS front on loopback that serves one of them and passes
// the bytes to a plain http server (the sandbox), as an https service would answer.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { createServer, type Server } from 'node:tls';
import { tempDir } from './cli.js';

export interface Pem {
  key: string;
  cert: string;
  /** The certificate's file (PEM). */
  certFile: string;
}

export interface TestCerts {
  dir: string;
  ca: Pem;
  /** Signed by the CA for `servicio.test` and 127.0.0.1. */
  good: Pem;
  /** Signed by the CA for `servicio.test` and 127.0.0.1, expired. */
  expired: Pem;
  /** Signed by the CA for `otro.test`. */
  wrongName: Pem;
  /** Self-signed for `servicio.test` and 127.0.0.1. */
  selfSigned: Pem;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

/** Whether this machine has openssl (the tests that need it skip, saying so, without). */
export function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function makeCerts(): TestCerts {
  const dir = tempDir('svc-certs-');
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  const pem = (name: string): Pem => ({
    key: readFileSync(join(dir, `${name}.key`), 'utf8'),
    cert: readFileSync(join(dir, `${name}.pem`), 'utf8'),
    certFile: join(dir, `${name}.pem`),
  });
  openssl(dir, [
    'req',
    '-x509',
    ...key,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=CA de prueba de la empresa',
  ]);
  const signed = (name: string, host: string, days: string) => {
    const ip = host === 'servicio.test' ? ',IP:127.0.0.1' : '';
    writeFileSync(join(dir, `${name}.ext`), `subjectAltName=DNS:${host}${ip}\n`);
    openssl(dir, [
      'req',
      ...key,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      `/CN=${host}`,
    ]);
    openssl(dir, [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      days,
      '-extfile',
      `${name}.ext`,
    ]);
    return pem(name);
  };
  const good = signed('good', 'servicio.test', '2');
  // Valid until a day before it was made.
  const expired = signed('expired', 'servicio.test', '-1');
  const wrongName = signed('wrong', 'otro.test', '2');
  openssl(dir, [
    'req',
    '-x509',
    ...key,
    '-keyout',
    'self.key',
    '-out',
    'self.pem',
    '-days',
    '2',
    '-subj',
    '/CN=servicio.test',
    '-addext',
    'subjectAltName=DNS:servicio.test,IP:127.0.0.1',
  ]);
  return { dir, ca: pem('ca'), good, expired, wrongName, selfSigned: pem('self') };
}

export interface TlsFront {
  port: number;
  close(): Promise<void>;
}

/** TLS with `pem` on 127.0.0.1 port 0, each connection passed byte for byte to 127.0.0.1:`targetPort`. */
export async function startTlsFront(pem: Pem, targetPort: number): Promise<TlsFront> {
  const sockets = new Set<Socket>();
  const server: Server = createServer({ key: pem.key, cert: pem.cert }, (client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
