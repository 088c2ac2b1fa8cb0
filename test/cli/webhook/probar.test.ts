// svc webhook probar against two receivers written here: a correct one (verifies the
// signature over the raw body with the timestamp's tolerance, checks X-Svc-Event
// against the body, answers 2xx to a repeat) passes every case, exit 0; one that
// answers 200 to anything fails the refusal cases, exit 1. An unreachable receiver
// is exit 6.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startListener } from '../../../src/webhooks/listen.js';
import { verify } from '../../../src/webhooks/signature.js';
import { expectNoStack, svcSpawned } from '../../helpers/cli.js';
import { svc } from '../../helpers/inproc.js';
import { hasScript, svcTty, NO_SCRIPT } from '../../helpers/tty.js';
import { displayWidth } from '../../../src/text.js';
import { skipBecause } from '../../helpers/skips.js';

const SECRET = 'whsec_probar0123456789abcdef';
const servers: Server[] = [];

async function receiver(
  handle: (headers: Record<string, string | string[] | undefined>, body: Buffer) => number,
): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.statusCode = handle(req.headers, Buffer.concat(chunks));
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
}

let correct: string;
let naive: string;
let seen = 0;
beforeAll(async () => {
  correct = await receiver((h, body) => {
    seen++;
    const check = verify({
      secret: SECRET,
      timestamp: h['x-svc-timestamp'] as string,
      signature: h['x-svc-signature'] as string,
      body,
    });
    if (!check.ok) return 401;
    try {
      return (JSON.parse(body.toString('utf8')) as { event: string }).event === h['x-svc-event']
        ? 200
        : 400;
    } catch {
      return 400;
    }
  });
  naive = await receiver(() => 200);
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

describe('svc webhook probar', () => {
  it('a correct receiver meets every case: one line each, the score, exit 0', async () => {
    const r = await svcSpawned(['webhook', 'probar', '--forward-to', correct], {
      env: { SVC_WEBHOOK_SECRET: SECRET },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('✓'))).toHaveLength(15);
    expect(lines.filter((l) => l.startsWith('✗'))).toHaveLength(0);
    expect(r.stdout).toMatch(
      /✓ firma hecha con otro secreto\s+se esperaba un rechazo; respondió 401/,
    );
    expect(r.stdout).toMatch(
      /✓ la misma entrega dos veces \(reintento\)\s+se esperaba 2xx; respondió 200, 200/,
    );
    expect(r.stdout).toContain('15/15: tu receptor respondió como debe en todos los casos');
    // 7 valid events, 6 refusals, a repeat (2), a slow one: 16 deliveries.
    expect(seen).toBe(16);
  });

  it('a receiver that answers 200 to anything fails the refusals: exit 1, --json says which', async () => {
    const r = await svc(['webhook', 'probar', '--forward-to', naive, '--json'], {
      env: { SVC_WEBHOOK_SECRET: SECRET },
    });
    expect(r.exitCode).toBe(1);
    const report = JSON.parse(r.stdout) as {
      aprobados: number;
      total: number;
      casos: { caso: string; ok: boolean }[];
    };
    expect(report).toMatchObject({ aprobados: 9, total: 15 });
    expect(report.casos.filter((c) => !c.ok).map((c) => c.caso)).toEqual([
      'firma hecha con otro secreto',
      'cuerpo cambiado después de firmar',
      'timestamp viejo (360 s atrás)',
      'timestamp del futuro (360 s adelante)',
      'sin X-Svc-Signature ni X-Svc-Timestamp',
      'X-Svc-Event distinto del evento del cuerpo',
    ]);
    expect(r.stderr).toMatch(/6 de 15 casos no respondieron como se esperaba/);
    expect(r.stdout).not.toContain(SECRET);
  });

  it("svc webhook listen itself passes: it refuses (400) an X-Svc-Event that is not the signed body's event", async () => {
    const got: { outcome: string; verification: { reason?: string } }[] = [];
    const listener = await startListener({
      secret: SECRET,
      port: 0,
      journal: null,
      onEvent: (e) => got.push(e),
    });
    try {
      const r = await svc(['webhook', 'probar', '--forward-to', listener.url], {
        env: { SVC_WEBHOOK_SECRET: SECRET },
      });
      expect(r.exitCode, r.stdout).toBe(0);
      expect(r.stdout).toMatch(
        /✓ X-Svc-Event distinto del evento del cuerpo\s+se esperaba un rechazo; respondió 400/,
      );
      expect(got.filter((e) => e.verification.reason === 'event_mismatch')).toHaveLength(1);
    } finally {
      await listener.close();
    }
  });

  it.skipIf(skipBecause(import.meta.url, !hasScript() && NO_SCRIPT))(
    'on a terminal of 80 and 60 columns every line fits, each case then what happened, broken at spaces',
    async () => {
      // Both terminals at once: each run mostly waits on the receiver and the slow case's pauses.
      const runs = await Promise.all(
        [80, 60].map(async (cols) => ({
          cols,
          r: await svcTty(
            ['webhook', 'probar', '--forward-to', naive],
            { SVC_WEBHOOK_SECRET: SECRET },
            [],
            60_000,
            { cols, rows: 40 },
          ),
        })),
      );
      for (const { cols, r } of runs) {
        expect(r.exitCode, r.screen).toBe(1);
        for (const line of r.screen.split('\n'))
          expect(displayWidth(line), `${cols}: ${line}`).toBeLessThanOrEqual(cols);
        expect(r.screen).toMatch(
          /✗ firma hecha con otro secreto\n {2}se esperaba un rechazo; respondió 200\n/,
        );
      }
    },
  );

  it('no receiver at the address: exit 6, one line; no secret: exit 2', async () => {
    const r = await svc(['webhook', 'probar', '--forward-to', 'http://127.0.0.1:9/x'], {
      env: { SVC_WEBHOOK_SECRET: SECRET },
    });
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toMatch(/^error: no se pudo llegar a http:\/\/127\.0\.0\.1:9\/x/m);
    expectNoStack(r.stderr);
    const none = await svc(['webhook', 'probar', '--forward-to', correct], {
      env: { SVC_CONFIG_DIR: '/nonexistent-svc' },
    });
    expect(none.exitCode).toBe(2);
  });
});
