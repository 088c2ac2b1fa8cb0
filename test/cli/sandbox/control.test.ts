// The sandbox's failure controls and logs from the command line, against a real
// sandbox: `sandbox fallas agregar|listar|borrar` (every named failure reaches the
// client as it should), `sandbox log` (filters, --json, --follow until Ctrl-C) and
// `sandbox entregas` (each notification attempt). `svc sandbox` runs through main() in
// this process; the --follow that Ctrl-C ends is the built binary.
import { execa } from 'execa';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BIN, expectNoStack } from '../../helpers/cli.js';
import { svc } from '../../helpers/inproc.js';
import { closedPort } from '../../helpers/fixtures.js';
import { startReceiver } from '../../helpers/receiver.js';
import { startSandbox, type Sandbox } from '../../helpers/sandbox.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ argv: [] });
});
afterAll(() => sb?.stop());

describe('svc sandbox fallas', () => {
  it('agregar makes the next matching request fail as named; listar shows what is pending; borrar clears it', async () => {
    const add = await svc(
      ['sandbox', 'fallas', 'agregar', '--ruta', '/v1/cobros', '--metodo', 'post', '--tipo', '503'],
      { env: sb.env },
    );
    expect(add.exitCode, add.stderr).toBe(0);
    expect(add.stderr).toMatch(/^falla \d+: el próximo pedido POST a \/v1\/cobros → 503$/m);
    const crear = await svc(['cobro', 'crear', '--concepto', 'x', '--monto', '1'], { env: sb.env });
    // A 503 to a write says nothing of what was done.
    expect(crear.exitCode).toBe(6);
    expect(crear.stderr).toMatch(/HTTP 503/);

    expect(
      (
        await svc(
          [
            'sandbox',
            'fallas',
            'agregar',
            '--ruta',
            '/v1/cuenta*',
            '--tipo',
            'lento',
            '--demora',
            '10',
            '--veces',
            '3',
          ],
          { env: sb.env },
        )
      ).exitCode,
    ).toBe(0);
    const list = await svc(['sandbox', 'fallas', 'listar'], { env: sb.env });
    expect(list.stdout).toMatch(/^\d+\t\*\t\/v1\/cuenta\*\tlento \(10 ms\)\t3\t1$/m);
    const cleared = await svc(['sandbox', 'fallas', 'borrar', '--json'], { env: sb.env });
    expect(JSON.parse(cleared.stdout)).toEqual({ borradas: 1 });
    expect((await sb.api('GET', '/_sandbox/fallas')).body.data).toEqual([]);
  });

  it.each([
    ['500', { action: 'respond', status: 500 }],
    ['500-despues', { action: 'respond_after', status: 500 }],
    ['502-html', { action: 'respond', status: 502 }],
    ['429', { action: 'respond', status: 429, headers: { 'Retry-After': '1' } }],
    ['lento', { action: 'delay', delay_ms: 5000 }],
    ['cortar', { action: 'cut' }],
    ['cortar-despues', { action: 'cut_after' }],
  ])('--tipo %s is the control plane fault %j', async (tipo, fault) => {
    const r = await svc(
      ['sandbox', 'fallas', 'agregar', '--ruta', '/v1/nunca', '--tipo', tipo, '--json'],
      { env: sb.env },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      method: '*',
      path: '/v1/nunca',
      count: 1,
      ...fault,
    });
    await sb.api('DELETE', '/_sandbox/fallas');
  });

  it.each([
    [['sandbox', 'fallas', 'agregar', '--tipo', '500'], /falta --ruta/],
    [['sandbox', 'fallas', 'agregar', '--ruta', '/v1/x'], /falta --tipo/],
    [
      ['sandbox', 'fallas', 'agregar', '--ruta', '/v1/x', '--tipo', '418'],
      /--tipo "418" no es válido/,
    ],
    [
      ['sandbox', 'fallas', 'agregar', '--ruta', '/v1/x', '--tipo', '500', '--demora', '5'],
      /--demora va con --tipo lento/,
    ],
    [['sandbox', 'fallas', 'quitar'], /acción "quitar" no es válida/],
  ])('%j: exit 2', async (args, message) => {
    const r = await svc(args, { env: sb.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});

describe('svc sandbox log', () => {
  it('one line per request to the service (not the control plane), filtered by method, path prefix and status', async () => {
    await svc(['cobro', 'ver', '987654'], { env: sb.env });
    await svc(['salud'], { env: sb.env });
    const all = await svc(['sandbox', 'log'], { env: sb.env });
    expect(all.stdout).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d  GET    \/v1\/cobros\/987654\s+404  [\d.]+ ms\s+comercio 1$/m,
    );
    expect(all.stdout).not.toContain('/_sandbox/');
    // On a terminal narrower than a whole line: the time without the date, each line within 80 columns.
    const narrow = await svc(['sandbox', 'log'], {
      env: { ...sb.env, SVC_FORCE_TTY: '1', COLUMNS: '80', NO_COLOR: '1' },
    });
    expect(narrow.stdout).toMatch(
      /^\d\d:\d\d:\d\d  GET    \/v1\/cobros\/987654\s+404  [\d.]+ ms\s+comercio 1$/m,
    );
    expect(
      narrow.stdout
        .trim()
        .split('\n')
        .filter((l) => l.length > 80),
    ).toEqual([]);
    const only = await svc(['sandbox', 'log', '--estado', '4xx', '--json'], { env: sb.env });
    const lines = only.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((l) => l.status >= 400 && l.status < 500)).toBe(true);
    const salud = await svc(['sandbox', 'log', '--metodo', 'get', '--ruta', '/v1/salud'], {
      env: sb.env,
    });
    expect(
      salud.stdout
        .trim()
        .split('\n')
        .every((l) => / GET +\/v1\/salud /.test(l)),
    ).toBe(true);
    expect((await svc(['sandbox', 'log', '--estado', 'abc'], { env: sb.env })).exitCode).toBe(2);
    // --limit: the last n, as tail -n.
    const every = (await svc(['sandbox', 'log', '--json'], { env: sb.env })).stdout
      .trim()
      .split('\n');
    const last2 = (await svc(['sandbox', 'log', '--json', '--limit', '2'], { env: sb.env })).stdout
      .trim()
      .split('\n');
    expect(every.length).toBeGreaterThan(2);
    expect(last2.map((l) => JSON.parse(l).id)).toEqual(
      every.slice(-2).map((l) => JSON.parse(l).id),
    );
  });

  it('--follow prints new requests as they come and ends with exit 0 on Ctrl-C', async () => {
    const p = execa('node', [BIN, 'sandbox', 'log', '--follow', '--ruta', '/v1/cobros/424242'], {
      env: { ...sb.env, SVC_CONFIG_DIR: '/nonexistent' },
      reject: false,
    });
    const lines = createInterface({ input: p.stdout! });
    const seen = new Promise<string>((resolve) =>
      lines.on('line', (l) => l.includes('/v1/cobros/424242') && resolve(l)),
    );
    // The first poll happens after the initial listing: ask until the line shows up.
    let line: string | undefined;
    for (const until = Date.now() + 30_000; line === undefined && Date.now() < until;) {
      await sb.api('GET', '/v1/cobros/424242');
      line = await Promise.race([
        seen,
        new Promise<undefined>((r) => setTimeout(() => r(undefined), 250)),
      ]);
    }
    expect(line).toMatch(/GET +\/v1\/cobros\/424242 +404/);
    p.kill('SIGINT');
    const r = await p;
    expect(r.exitCode).toBe(0);
    expectNoStack(r.stderr);
  });
});

describe('svc sandbox entregas', () => {
  it('each notification attempt: event, request, target, status', async () => {
    const app = await startReceiver();
    try {
      expect((await sb.api('POST', '/_sandbox/webhook', { url: app.url })).status).toBe(200);
      const id = (await sb.api('POST', '/v1/cobros', { concepto: 'Con aviso', monto: '10.00' }))
        .body.data.id;
      // The sandbox records an attempt once it has read the app's answer, after the app got it.
      await vi.waitFor(
        async () =>
          expect(
            (await sb.api('GET', '/_sandbox/entregas')).body.data.some(
              (a: { cobro_id: number }) => a.cobro_id === id,
            ),
          ).toBe(true),
        { timeout: 15_000 },
      );
      const r = await svc(['sandbox', 'entregas', '--json'], { env: sb.env });
      const attempts = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(attempts.find((a) => a.cobro_id === id)).toMatchObject({
        event: 'payment.created',
        status: 200,
        ok: true,
      });
      const text = await svc(['sandbox', 'entregas'], { env: sb.env });
      expect(text.stdout).toMatch(
        new RegExp(`evento \\d+\\s+payment\\.created\\s+cobro ${id}\\s+intento 1 .* 200`),
      );
      // On an 80-column terminal: the time, no target nor latency, each line within the width.
      const narrow = await svc(['sandbox', 'entregas'], {
        env: { ...sb.env, SVC_FORCE_TTY: '1', COLUMNS: '80', NO_COLOR: '1' },
      });
      expect(narrow.stdout).toMatch(
        new RegExp(
          `^\\d\\d:\\d\\d:\\d\\d  evento \\d+ +payment\\.created +cobro ${id} +intento 1  200$`,
          'm',
        ),
      );
      expect(
        narrow.stdout
          .trim()
          .split('\n')
          .filter((l) => l.length > 80),
      ).toEqual([]);

      // svc sandbox reenviar: the same event again, signed anew, as an attempt marked reenvío.
      const created = attempts.find((a) => a.cobro_id === id);
      const again = await svc(['sandbox', 'reenviar', String(created.evento_id), '--json'], {
        env: sb.env,
      });
      expect(again.exitCode, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({
        evento_id: created.evento_id,
        event: 'payment.created',
        cobro_id: id,
      });
      await app.waitFor(2);
      expect(app.received[1]!.body.equals(app.received[0]!.body)).toBe(true);
      await vi.waitFor(
        async () =>
          expect(
            (await sb.api('GET', '/_sandbox/entregas')).body.data.filter(
              (a: { cobro_id: number }) => a.cobro_id === id,
            ),
          ).toHaveLength(2),
        { timeout: 15_000 },
      );
      const after = await svc(['sandbox', 'entregas'], { env: sb.env });
      expect(after.stdout).toMatch(
        new RegExp(`payment\\.created\\s+cobro ${id}\\s+intento 1 \\(reenvío\\)`),
      );
      const missing = await svc(['sandbox', 'reenviar', '99999'], { env: sb.env });
      expect(missing.exitCode).toBe(5);
    } finally {
      await sb.api('POST', '/_sandbox/webhook', { url: null });
      await app.close();
    }
  });
});

describe('svc sandbox entregas, when the app is down', () => {
  it('says why in Spanish, as webhook listen does: the connection refused', async () => {
    const port = await closedPort();
    expect(
      (await sb.api('POST', '/_sandbox/webhook', { url: `http://127.0.0.1:${port}/` })).status,
    ).toBe(200);
    try {
      const id = (await sb.api('POST', '/v1/cobros', { concepto: 'Sin app', monto: '10.00' })).body
        .data.id;
      await vi.waitFor(
        async () =>
          expect(
            (await sb.api('GET', '/_sandbox/entregas')).body.data.some(
              (a: { cobro_id: number }) => a.cobro_id === id,
            ),
          ).toBe(true),
        { timeout: 15_000 },
      );
      const r = await svc(['sandbox', 'entregas'], { env: sb.env });
      expect(r.stdout).toMatch(
        new RegExp(
          `cobro ${id}\\s+intento 1 .* conexión rechazada \\(¿la app está corriendo en ese puerto\\?\\)`,
        ),
      );
    } finally {
      await sb.api('POST', '/_sandbox/webhook', { url: null });
    }
  });
});

describe('svc sandbox names its dashboard', () => {
  it('the ready line gives its address, and a browser gets the page there', async () => {
    const info = sb as Sandbox & { panel?: string };
    expect(info.panel).toBe(`${sb.base_url}/`);
    const res = await fetch(info.panel!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  });
});

describe('svc sandbox fallas agregar --ruta', () => {
  it.each([
    [
      'cobros',
      /^error: --ruta "cobros" tiene que empezar con \/: ej\. \/v1\/cobros, \/v1\/cobros\/1 o "\/v1\/cobros\*"\n→ ¿quisiste decir \/v1\/cobros\?$/,
    ],
    [
      '/v1/cobros/',
      /^error: --ruta "\/v1\/cobros\/" termina en \/: ninguna ruta del servicio termina así y la falla nunca ocurriría\n→ usá \/v1\/cobros, o "\/v1\/cobros\/\*" para todas las que siguen$/,
    ],
    ['/v1/cobros?estado=PAGADA', /^error: --ruta "\/v1\/cobros\?estado=PAGADA": sin \?consulta/],
    ['/_sandbox/reloj', /^error: --ruta: las rutas de control del sandbox/],
  ])(
    '%s: refused in Spanish before any request (exit 2), and no fault is armed',
    async (ruta, message) => {
      const r = await svc(['sandbox', 'fallas', 'agregar', '--ruta', ruta, '--tipo', '500'], {
        env: sb.env,
      });
      expect(r.exitCode).toBe(2);
      expect(r.stderr.trim()).toMatch(message);
      expect((await sb.api('GET', '/_sandbox/fallas')).body).toMatchObject({ data: [] });
    },
  );
});

describe('svc sandbox webhook', () => {
  it('shows, sets and clears where the running sandbox sends notifications; a notification then reaches the new URL', async () => {
    const target = await startReceiver();
    try {
      const before = await svc(['sandbox', 'webhook', '--json'], { env: sb.env });
      expect(before.exitCode, before.stderr).toBe(0);
      const port = new URL(target.url).port;
      const path = new URL(target.url).pathname;
      // As a developer types it: no scheme.
      const set = await svc(['sandbox', 'webhook', `localhost:${port}${path}`], { env: sb.env });
      expect(set.exitCode, set.stderr).toBe(0);
      expect(set.stderr).toBe(
        `listo: el sandbox ahora envía las notificaciones a http://localhost:${port}${path}\n`,
      );
      expect((await sb.api('GET', '/_sandbox/webhook')).body).toMatchObject({
        data: { url: `http://localhost:${port}${path}` },
      });
      const c = (await sb.api('POST', '/v1/cobros', { concepto: 'x', monto: '5.00' })).body
        .data as { id: number };
      expect((await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, {})).status).toBe(200);
      await vi.waitFor(() => expect(target.received.length).toBeGreaterThan(0), {
        timeout: 10_000,
        interval: 50,
      });

      const refused = await svc(['sandbox', 'webhook', 'http://tienda.example/hooks'], {
        env: sb.env,
      });
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toMatch(
        /^error: URL "http:\/\/tienda\.example\/hooks" no sirve: tiene que ser https, o http hacia 127\.0\.0\.1\/localhost$/m,
      );
      const both = await svc(['sandbox', 'webhook', 'https://x.example', '--borrar'], {
        env: sb.env,
      });
      expect(both.exitCode).toBe(2);

      const cleared = await svc(['sandbox', 'webhook', '--borrar', '--json'], { env: sb.env });
      expect(cleared.exitCode, cleared.stderr).toBe(0);
      expect(JSON.parse(cleared.stdout)).toEqual({ url: null });
    } finally {
      await target.close();
    }
  });
});
