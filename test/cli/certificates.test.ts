// A company CA, end to end: the sandbox behind a TLS front whose certificate a CA made
// here signed (test/helpers/certs.ts). Trusted through each setting (--cacert,
// SSL_CERT_FILE, the profile's ca_file, NODE_EXTRA_CA_CERTS in a process of its own);
// untrusted, expired, for another name or self-signed, svc says what happened in
// words and what to do, and sends nothing.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith, expectNoStack, svcSpawned, tempDir } from '../helpers/cli.js';
import {
  hasOpenssl,
  makeCerts,
  startTlsFront,
  type Pem,
  type TestCerts,
  type TlsFront,
} from '../helpers/certs.js';
import { svc } from '../helpers/inproc.js';
import { startReceiver } from '../helpers/receiver.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';

let sb: InProcessSandbox;
let certs: TestCerts;
const fronts: TlsFront[] = [];

/** The sandbox over https at 127.0.0.1, served with `pem`. */
async function served(pem: Pem): Promise<string> {
  const front = await startTlsFront(pem, Number(new URL(sb.base_url).port));
  fronts.push(front);
  return `https://127.0.0.1:${front.port}`;
}

let good: string;
beforeAll(async () => {
  sb = await startSandbox();
  certs = makeCerts();
  good = await served(certs.good);
}, 30_000);
afterAll(async () => {
  await Promise.all(fronts.map((f) => f.close()));
  await sb?.close();
});

describe.skipIf(!hasOpenssl())('a company CA', () => {
  it('is trusted through --cacert, SSL_CERT_FILE and the profile’s ca_file', async () => {
    const viaFlag = await svc(['salud', '--cacert', certs.ca.certFile], {
      env: { ...sb.env, SVC_BASE_URL: good },
    });
    expect(viaFlag.exitCode, viaFlag.stderr).toBe(0);
    const viaEnv = await svc(['salud'], {
      env: { ...sb.env, SVC_BASE_URL: good, SSL_CERT_FILE: certs.ca.certFile },
    });
    expect(viaEnv.exitCode, viaEnv.stderr).toBe(0);
    const dir = configWith({
      oficina: { base_url: good, test_key: sb.api_key, ca_file: certs.ca.certFile },
    });
    const viaProfile = await svc(['salud', '--debug'], { env: { SVC_CONFIG_DIR: dir } });
    expect(viaProfile.exitCode, viaProfile.stderr).toBe(0);
    expect(viaProfile.stderr).toContain(
      `certificados de la opción ca_file del perfil (${certs.ca.certFile})`,
    );
  });

  it('is trusted through NODE_EXTRA_CA_CERTS (the built CLI, which Node reads it for)', async () => {
    const r = await svcSpawned(['salud'], {
      env: { ...sb.env, SVC_BASE_URL: good, NODE_EXTRA_CA_CERTS: certs.ca.certFile },
    });
    expect(r.exitCode, r.stderr).toBe(0);
  });

  it('untrusted: says the CA is unknown and which settings trust it; nothing sent', async () => {
    const before = (await sb.apiLog()).length;
    const r = await svc(['cobro', 'crear', '--monto', '10', '--concepto', 'x'], {
      env: { ...sb.env, SVC_BASE_URL: good },
    });
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toContain('el certificado de 127.0.0.1 lo firmó una CA que svc no conoce');
    expect(r.stderr).toMatch(
      /--cacert ARCHIVO, SSL_CERT_FILE=ARCHIVO o NODE_EXTRA_CA_CERTS=ARCHIVO/,
    );
    expect(r.stderr).not.toContain('UNABLE_TO_VERIFY');
    expectNoStack(r.stderr);
    expect((await sb.apiLog()).length).toBe(before);
  });

  it('another CA than the one set: says which file svc trusts already', async () => {
    const otherDir = makeCerts();
    const r = await svc(['salud', '--cacert', otherDir.ca.certFile], {
      env: { ...sb.env, SVC_BASE_URL: good },
    });
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toContain(`svc ya confía en ${otherDir.ca.certFile}, de --cacert`);
  });

  it.each([
    ['expired', 'el certificado de 127.0.0.1 está vencido', 'fecha y hora'],
    ['wrongName', 'el certificado no es de 127.0.0.1', '--base-url'],
    ['selfSigned', 'el certificado de 127.0.0.1 es autofirmado', '--cacert'],
  ] as const)('%s: the reason in words and the way forward', async (which, why, fix) => {
    const address = await served(certs[which]);
    const env = { ...sb.env, SVC_BASE_URL: address, SSL_CERT_FILE: certs.ca.certFile };
    const r = await svc(['salud'], { env });
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toContain(why);
    expect(r.stderr.split('\n')[1]).toMatch(new RegExp(`^→ .*${fix}`));
    const json = await svc(['salud', '--json'], { env });
    expect(JSON.parse(json.stderr)).toMatchObject({ error: 'tls' });
  });

  it('webhook trigger to an https app: trusted through --cacert, else said in words', async () => {
    const app = await startReceiver();
    try {
      const front = await startTlsFront(certs.good, app.port);
      fronts.push(front);
      const target = `https://127.0.0.1:${front.port}/hook`;
      const env = { SVC_WEBHOOK_SECRET: 'whsec_certificados_0123456789ab' };
      const refused = await svc(
        ['webhook', 'trigger', 'payment.approved', '--forward-to', target],
        {
          env,
        },
      );
      expect(refused.exitCode).not.toBe(0);
      expect(refused.stderr).toContain(
        'el certificado de la app lo firmó una CA que svc no conoce (su CA se agrega con --cacert, SSL_CERT_FILE o NODE_EXTRA_CA_CERTS)',
      );
      expect(app.received).toHaveLength(0);
      const ok = await svc(
        [
          'webhook',
          'trigger',
          'payment.approved',
          '--forward-to',
          target,
          '--cacert',
          certs.ca.certFile,
        ],
        { env },
      );
      expect(ok.exitCode, ok.stderr).toBe(0);
      expect(app.received).toHaveLength(1);
    } finally {
      await app.close();
    }
  });

  it('a CA file that is not there, or holds no certificate, is named', async () => {
    const missing = join(tempDir(), 'no-esta.pem');
    const r = await svc(['salud'], {
      env: { ...sb.env, SVC_BASE_URL: good, SSL_CERT_FILE: missing },
    });
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toContain(
      `no se pudo leer el certificado de SSL_CERT_FILE (${missing}): no existe`,
    );
    const empty = join(tempDir(), 'vacio.pem');
    writeFileSync(empty, 'nada\n');
    const e = await svc(['salud', '--cacert', empty], { env: { ...sb.env, SVC_BASE_URL: good } });
    expect(e.exitCode).toBe(6);
    expect(e.stderr).toContain(`--cacert (${empty}) no tiene certificados PEM`);
  });
});
