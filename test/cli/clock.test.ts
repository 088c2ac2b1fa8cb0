// One clock: a time a person types means that wall-clock time in the service's zone,
// whatever the machine's TZ; svc's own times (the notification journal) are shown in
// the same zone and format as the service's dates. The zone is SVC_TZ, else the
// profile's (`svc login --zona`, or the sandbox's own), else the service's default.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcSpawned, tempDir, type SvcOptions, type SvcResult } from '../helpers/cli.js';
import { svc } from '../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';
import { journalEntryAs as journalEntry } from '../helpers/journal.js';

/** A day some weeks ahead (the service takes expiries up to 365 days away). */
const DAY = new Date(Date.now() + 40 * 86_400_000).toISOString().slice(0, 10);

/**
 * Runs svc in this process with the process's own zone set to env.TZ (Node takes a TZ
 * set at run time), as the built binary started with that TZ would have it; the zone
 * this process had is put back after.
 */
async function inZone(args: string[], options: SvcOptions = {}): Promise<SvcResult> {
  const tz = options.env?.TZ;
  if (tz === undefined) return svc(args, options);
  const had = process.env.TZ;
  process.env.TZ = tz;
  try {
    return await svc(args, options);
  } finally {
    if (had === undefined) delete process.env.TZ;
    else process.env.TZ = had;
  }
}

describe('typed times mean the service zone on any machine', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterAll(() => sb.stop());

  const vencimientoOf = async (
    env: Record<string, string>,
    typed: string,
    run = inZone,
  ): Promise<string> => {
    const made = await run(
      ['cobro', 'crear', '--concepto', 'Reloj', '--monto', '10', '--vencimiento', typed, '--json'],
      { env: { ...sb.env, ...env } },
    );
    expect(made.exitCode, made.stderr).toBe(0);
    const id = JSON.parse(made.stdout).id as number;
    const seen = await run(['cobro', 'ver', String(id), '--json'], { env: { ...sb.env, ...env } });
    expect(seen.exitCode, seen.stderr).toBe(0);
    return JSON.parse(seen.stdout).vencimiento as string;
  };

  it('the built binary started with TZ=Asia/Tokyo: "DAY 18:00" comes back as typed', async () => {
    expect(await vencimientoOf({ TZ: 'Asia/Tokyo' }, `${DAY} 18:00`, svcSpawned)).toBe(
      `${DAY} 18:00:00`,
    );
  });

  for (const TZ of ['UTC', 'Asia/Tokyo']) {
    it(`TZ=${TZ}: "${DAY} 18:00" comes back as typed, a bare date as 23:59:59`, async () => {
      expect(await vencimientoOf({ TZ }, `${DAY} 18:00`)).toBe(`${DAY} 18:00:00`);
      expect(await vencimientoOf({ TZ }, `${DAY}`)).toBe(`${DAY} 23:59:59`);
    });
  }

  it('"24/12/2026 18:00" is day/month/year in the service zone, with TZ=UTC as with any TZ', async () => {
    const [y, m, d] = DAY.split('-');
    expect(await vencimientoOf({ TZ: 'UTC' }, `${d}/${m}/${y} 18:00`)).toBe(`${DAY} 18:00:00`);
    expect(await vencimientoOf({ TZ: 'UTC' }, `${d}/${m}/${y}`)).toBe(`${DAY} 23:59:59`);
  });

  it('+400d is refused before sending (exit 2, naming the limit), not by the service', async () => {
    const posts = async () =>
      (
        (await sb.api('GET', '/_sandbox/log')).body.data as { method: string; path: string }[]
      ).filter((e) => e.method === 'POST' && e.path === '/v1/cobros').length;
    const before = await posts();
    const r = await svc(
      ['cobro', 'crear', '--concepto', 'Lejos', '--monto', '10', '--vencimiento', '+400d'],
      { env: { ...sb.env, TZ: 'UTC' } },
    );
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /^error: --vencimiento "\+400d" \(\d{4}-\d{2}-\d{2} [\d:]+-03:00\) está a más de 365 días: el servicio acepta hasta 365 días desde ahora\n/,
    );
    expect(await posts()).toBe(before);
  });

  it('SVC_TZ says what a typed time means: 18:00 in Tokyo is 06:00 in Buenos Aires', async () => {
    expect(await vencimientoOf({ TZ: 'UTC', SVC_TZ: 'Asia/Tokyo' }, `${DAY} 18:00`)).toBe(
      `${DAY} 06:00:00`,
    );
  });

  it('an unknown SVC_TZ is a usage error naming it; help and errors name the zone', async () => {
    const bad = await svc(
      ['cobro', 'crear', '--concepto', 'x', '--monto', '1', '--vencimiento', '+1d'],
      { env: { ...sb.env, SVC_TZ: 'Marte/Olimpo' } },
    );
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toBe(
      'error: SVC_TZ "Marte/Olimpo" no es una zona horaria conocida (ej. America/Argentina/Buenos_Aires, UTC)\n',
    );
    const typo = await svc(
      ['cobro', 'crear', '--concepto', 'x', '--monto', '1', '--vencimiento', 'pasado mañana'],
      { env: sb.env },
    );
    expect(typo.exitCode).toBe(2);
    expect(typo.stderr).toContain('hora de America/Argentina/Buenos_Aires');
    const help = await svc(['cobro', 'crear', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      'hora del servicio (America/Argentina/Buenos_Aires',
    );
  });
});

describe('a sandbox in another zone', () => {
  it('announces it, and svc login against it keeps it in the profile', async () => {
    const sb = await startSandbox({ spawned: ['--tz', 'UTC'] });
    try {
      expect(sb.tz).toBe('UTC');
      const config = tempDir('svc-config-');
      const env = { SVC_CONFIG_DIR: config, SVC_BASE_URL: sb.base_url, TZ: 'Asia/Tokyo' };
      const login = await inZone(['login', '--with-key-stdin', '--json'], {
        env,
        input: `${sb.api_key}\n`,
      });
      expect(login.exitCode, login.stderr).toBe(0);
      expect(JSON.parse(login.stdout).zona).toBe('UTC');
      const made = await inZone(
        [
          'cobro',
          'crear',
          '--concepto',
          'UTC',
          '--monto',
          '5',
          '--vencimiento',
          `${DAY} 09:30`,
          '--json',
        ],
        { env },
      );
      expect(made.exitCode, made.stderr).toBe(0);
      expect(JSON.parse(made.stdout).vencimiento).toBe(`${DAY} 09:30:00`);
      // --zona wins over the sandbox's, and a zone Intl does not know is refused before anything is sent.
      const wrong = await inZone(['login', '--with-key-stdin', '--zona', 'Nada/Nada'], {
        env,
        input: `${sb.api_key}\n`,
      });
      expect(wrong.exitCode).toBe(2);
      expect(wrong.stderr).toContain('--zona "Nada/Nada" no es una zona horaria conocida');
    } finally {
      await sb.stop();
    }
  });
});

describe("svc's own times are the service's clock", () => {
  const journal = (): string => {
    const dir = tempDir();
    const path = join(dir, 'webhooks.jsonl');
    const entry = (id: string, at: string, event: string) =>
      JSON.stringify(journalEntry(id, { received_at: at, event }));
    writeFileSync(
      path,
      `${entry('evt_1', '2026-12-24T21:00:00.000Z', 'payment.created')}\n${entry('evt_2', '2026-12-25T02:30:05.000Z', 'payment.approved')}\n`,
    );
    return path;
  };

  it('webhook eventos: newest first, dates as the service writes them, in its zone; --json keeps ISO 8601', async () => {
    const path = journal();
    const ba = await svc(['webhook', 'eventos', '--journal', path]);
    expect(ba.exitCode, ba.stderr).toBe(0);
    const rows = ba.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t').slice(0, 2));
    expect(rows).toEqual([
      ['evt_2', '2026-12-24 23:30:05'],
      ['evt_1', '2026-12-24 18:00:00'],
    ]);
    const utc = await svc(['webhook', 'eventos', '--journal', path], { env: { SVC_TZ: 'UTC' } });
    expect(utc.stdout).toContain('evt_2\t2026-12-25 02:30:05');
    const json = await svc(['webhook', 'eventos', '--journal', path, '--json']);
    expect(JSON.parse(json.stdout).map((e: { received_at: string }) => e.received_at)).toEqual([
      '2026-12-25T02:30:05.000Z',
      '2026-12-24T21:00:00.000Z',
    ]);
    const one = await svc(['webhook', 'ver', 'evt_1', '--journal', path]);
    expect(one.stdout).toMatch(/recibido\s+2026-12-24 18:00:00/);
  });

  it("one clock in every output: webhook ver's delivery lines and eventos --csv in the service's zone and format", async () => {
    const path = journal();
    // A replay of evt_2 delivered to an app: a delivery line under `webhook ver evt_2`.
    const replay = {
      ...JSON.parse(readFileSync(path, 'utf8').split('\n')[1]!),
      id: 'evt_3',
      received_at: '2026-12-25T03:00:07.000Z',
      source: 'replay',
      replay_of: 'evt_2',
      target: 'http://127.0.0.1:3000/webhooks',
      status: 200,
      outcome: 'forwarded',
      latency_ms: 4,
    };
    appendFileSync(path, `${JSON.stringify(replay)}\n`);
    const ver = await svc(['webhook', 'ver', 'evt_2', '--journal', path]);
    expect(ver.exitCode, ver.stderr).toBe(0);
    expect(ver.stdout).toMatch(/recibido\s+2026-12-24 23:30:05/);
    expect(ver.stdout).toMatch(
      /^ {2}2026-12-25 00:00:07 {2}replay +→ http:\/\/127\.0\.0\.1:3000\/webhooks {2}200/m,
    );
    expect(ver.stdout).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
    const csv = await svc(['webhook', 'eventos', '--journal', path, '--csv']);
    expect(csv.exitCode, csv.stderr).toBe(0);
    const rows = csv.stdout
      .trim()
      .split('\r\n')
      .map((l) => l.split(','));
    expect(rows[0]!.slice(0, 2)).toEqual(['id', 'received_at']);
    expect(rows.slice(1).map((r) => r.slice(0, 2))).toEqual([
      ['evt_3', '2026-12-25 00:00:07'],
      ['evt_2', '2026-12-24 23:30:05'],
      ['evt_1', '2026-12-24 18:00:00'],
    ]);
    // --json keeps ISO 8601 with its offset.
    const json = await svc(['webhook', 'ver', 'evt_2', '--journal', path, '--json']);
    expect(JSON.parse(json.stdout).intentos[0].fecha).toBe('2026-12-25T03:00:07.000Z');
  });
});
