// svc cobro crear end to end against a real sandbox: every flag, every local refusal
// (exit 2, nothing created), prompts in a pseudo-terminal, live mode.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoStack, svcSpawned } from '../../helpers/cli.js';
// Cases run in-process through main() (svc); spawned() runs the built binary, once per behaviour.
import { svc, svcAtTerminal } from '../../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../../helpers/sandbox.js';
import { hasScript, svcTty, NO_SCRIPT } from '../../helpers/tty.js';
import { skipBecause } from '../../helpers/skips.js';

const NO_TTY = skipBecause(import.meta.url, !hasScript() && NO_SCRIPT);

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ readyDelayMs: 300 });
});
afterAll(async () => {
  await sb?.stop();
});

const cobros = async () =>
  (await sb.api('GET', '/v1/cobros')).body.data as { id: number; concepto: string }[];
const postCount = async () =>
  ((await sb.api('GET', '/_sandbox/log')).body.data as { method: string; path: string }[]).filter(
    (e) => e.method === 'POST' && e.path === '/v1/cobros',
  ).length;

describe('svc cobro crear', () => {
  it('creates with every flag and sends exactly what was asked', async () => {
    // a local date about a month ahead, in Buenos Aires (the sandbox's zone too)
    const day = new Date(Date.now() + 30 * 86_400_000 - 3 * 3_600_000).toISOString().slice(0, 10);
    const r = await svcSpawned(
      [
        'cobro',
        'crear',
        '--concepto',
        'Pedido 1042',
        '--monto',
        '1500.5',
        '--vencimiento',
        `${day} 18:00`,
        '--referencia',
        'ped-1042',
        '--success-url',
        'https://tienda.example/ok',
        '--error-url',
        'https://tienda.example/error',
        '--no-tarjeta',
        '--no-transferencia',
        '--json',
      ],
      { env: { ...sb.env, TZ: 'America/Argentina/Buenos_Aires' } },
    );
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const c = JSON.parse(r.stdout);
    expect(c).toMatchObject({
      concepto: 'Pedido 1042',
      monto: '1500.50',
      monto_cobrado: '0.00',
      estado: 'PENDIENTE',
      referencia: 'ped-1042',
      medios: { tarjeta: false, qr: true, transferencia: false },
      success_url: 'https://tienda.example/ok',
      error_url: 'https://tienda.example/error',
    });
    // the sandbox runs in Buenos Aires time, like the CLI here: the local time survives the trip
    expect(c.vencimiento).toBe(`${day} 18:00:00`);
    // --json prints the created object only, exactly as the service sent it
    const fromServer = (await sb.api('GET', `/v1/cobros/${c.id}`)).body.data;
    expect(Object.keys(c)).toEqual(Object.keys(fromServer));
    expect(c.url).toBe(fromServer.url);
  });

  it('piped: key<TAB>value lines, url first', async () => {
    const r = await svc(['cobro', 'create', '--concepto', 'Piped', '--monto', '10'], {
      env: sb.env,
    });
    expect(r.exitCode).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(lines[0]![0]).toBe('url');
    expect(lines[0]![1]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/pagar\/\w+$/);
    const rec = Object.fromEntries(lines);
    expect(rec).toMatchObject({ estado: 'PENDIENTE', monto: '10.00' });
    expect(rec.codigo).toMatch(/^\w+$/);
    expect(rec.vencimiento).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it('relative expiry: +3d is three days after now on the server clock', async () => {
    const r = await svc(
      ['cobro', 'crear', '--concepto', 'Rel', '--monto', '1', '--vencimiento', '+3d', '--json'],
      { env: sb.env },
    );
    expect(r.exitCode).toBe(0);
    const c = JSON.parse(r.stdout);
    const toMs = (local: string) => Date.parse(local.replace(' ', 'T') + 'Z');
    // compared on the server's own local clock, whatever its zone: exactly 3 days (± a few seconds)
    expect(Math.abs(toMs(c.vencimiento) - toMs(c.created_at) - 3 * 86_400_000)).toBeLessThan(
      60_000,
    );
  });

  const refusals: [string, string[], RegExp][] = [
    ['exponent amount', ['--monto', '1e3'], /--monto: "1e3" no es un monto decimal/],
    ['negative amount', ['--monto', '-5'], /--monto: "-5" es negativo/],
    ['three decimals', ['--monto', '1.234'], /más de dos decimales/],
    ['comma decimal', ['--monto', '1,5'], /usa coma/],
    ['empty amount', ['--monto', ''], /el monto está vacío/],
    ['zero amount', ['--monto', '0'], /es cero/],
    [
      'http success url',
      ['--success-url', 'http://tienda.example/ok'],
      /--success-url "http:\/\/tienda.example\/ok" no es una URL https/,
    ],
    [
      'http error url',
      ['--error-url', 'http://tienda.example/err'],
      /--error-url .* no es una URL https/,
    ],
    ['past date', ['--vencimiento', '2020-01-01'], /--vencimiento "2020-01-01" ya pasó/],
    ['garbage date', ['--vencimiento', 'el martes'], /--vencimiento "el martes" no es una fecha/],
    ['impossible date', ['--vencimiento', '2099-02-30'], /no es una fecha del calendario/],
    ['no medios', ['--no-tarjeta', '--no-qr', '--no-transferencia'], /ningún medio de pago/],
    [
      'long concepto',
      ['--concepto', 'x'.repeat(201)],
      /--concepto tiene 201 caracteres \(máximo 200\)/,
    ],
    ['control chars', ['--concepto', 'Pedido\u001b[2J'], /--concepto tiene caracteres de control/],
    ['long referencia', ['--referencia', 'r'.repeat(101)], /--referencia tiene 101 caracteres/],
  ];

  it('the hint on how to write an amount comes only with an amount written wrong, not with zero or a negative one', async () => {
    for (const [monto, hinted] of [
      ['1.234', true],
      ['1e3', true],
      ['0', false],
      ['-5', false],
    ] as const) {
      const r = await svc(['cobro', 'crear', '--concepto', 'X', '--monto', monto], { env: sb.env });
      expect(r.exitCode).toBe(2);
      expect(r.stderr.includes('→ usá punto decimal'), `${monto}: ${r.stderr}`).toBe(hinted);
    }
  });

  it.each(refusals)(
    'refuses %s locally with exit 2 and creates nothing',
    async (_name, flags, message) => {
      const before = await postCount();
      const base = flags.includes('--concepto')
        ? ['--monto', '10']
        : flags.includes('--monto')
          ? ['--concepto', 'X']
          : ['--concepto', 'X', '--monto', '10'];
      const r = await svc(['cobro', 'crear', ...base, ...flags], { env: sb.env });
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
      expectNoStack(r.stderr);
      // no request reached the service
      expect(await postCount()).toBe(before);
    },
  );

  it('without a terminal, a missing required flag is a usage error naming it; nothing is created', async () => {
    const before = (await cobros()).length;
    const a = await svc(['cobro', 'crear', '--monto', '10'], { env: sb.env });
    expect(a.exitCode).toBe(2);
    expect(a.stderr).toMatch(/falta --concepto/);
    const b = await svc(['cobro', 'crear'], { env: sb.env });
    expect(b.exitCode).toBe(2);
    expect(b.stderr).toMatch(/falta --concepto y --monto/);
    // an answer piped on stdin is never taken as a prompt answer
    const c = await svc(['cobro', 'crear', '--concepto', 'X'], { env: sb.env, input: '10\n' });
    expect(c.exitCode).toBe(2);
    expect(c.stderr).toMatch(/falta --monto/);
    expect((await cobros()).length).toBe(before);
  });

  it('--json errors from the service go to stderr as the service body', async () => {
    const r = await svc(['cobro', 'crear', '--concepto', 'X', '--monto', '10', '--json'], {
      env: { ...sb.env, SVC_API_KEY: sb.api_key_no_listo },
    });
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr).error).toBe('comercio_no_listo');
  });

  it('live key: red banner on stderr, and without a terminal --yes is required before any request', async () => {
    const before = await postCount();
    const live = { ...sb.env, SVC_API_KEY: 'svc_live_0123456789abcdef0123456789abcdef' };
    const r = await svc(['cobro', 'crear', '--concepto', 'X', '--monto', '10'], { env: live });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/MODO LIVE/);
    expect(r.stderr).toMatch(/necesita --yes/);
    expect(await postCount()).toBe(before);
    // with --yes the request goes out (and the sandbox refuses live keys: 401 -> exit 3)
    const y = await svc(['cobro', 'crear', '--concepto', 'X', '--monto', '10', '--yes'], {
      env: live,
    });
    expect(y.stderr).toMatch(/MODO LIVE/);
    expect(y.exitCode).toBe(3);
  });

  it('a connection cut after the POST: outcome unknown, exit 6, how to check; sent once', async () => {
    const before = await postCount();
    await sb.api('POST', '/_sandbox/fallas', {
      method: 'POST',
      path: '/v1/cobros',
      action: 'cut_after',
    });
    const r = await svc(
      ['cobro', 'crear', '--concepto', 'Corte', '--monto', '7', '--referencia', 'corte 1'],
      { env: sb.env },
    );
    expect(r.exitCode).toBe(6);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/el cobro de 7\.00 puede haberse creado o no/);
    expect(r.stderr).toContain(`svc cobro listar --q 'corte 1'`);
    expectNoStack(r.stderr);
    expect(await postCount()).toBe(before + 1);
    const found = (await sb.api('GET', '/v1/cobros?q=corte%201')).body.data;
    expect(found.length).toBe(1);
  });

  it('--mostrar-qr waits for the QR payload and draws it', async () => {
    const r = await svc(['cobro', 'crear', '--concepto', 'QR', '--monto', '5', '--mostrar-qr'], {
      env: sb.env,
    });
    expect(r.exitCode).toBe(0);
    // piped: data on stdout, drawing on stderr
    expect(r.stdout.split('\n')[0]).toMatch(/^url\t/);
    expect(r.stderr).toMatch(/[█▀▄]{10,}/);
    expect(r.stderr).toMatch(/QR del cobro \w+/);
    const noQr = await svc(
      ['cobro', 'crear', '--concepto', 'QR', '--monto', '5', '--no-qr', '--mostrar-qr'],
      { env: sb.env },
    );
    expect(noQr.exitCode).toBe(0);
    expect(noQr.stderr).toMatch(/no acepta pagos con QR/);
  });
});

describe.skipIf(NO_TTY)('svc cobro crear on a terminal (pseudo-terminal via script)', () => {
  it('asks for missing fields, re-asks a bad amount, and prints the link prominently', async () => {
    const before = (await cobros()).length;
    const r = await svcTty(['cobro', 'crear'], sb.env, [
      [/Concepto/, 'Pedido por terminal\r'],
      [/Monto/, '12,5,0\r'],
      [/no es un monto/, '\u0015'], // Ctrl-U clears the line
      [/Monto/, '12.50\r'],
    ]);
    expect(r.exitCode).toBe(0);
    expect(r.screen).toMatch(
      /link de pago \(compartilo con quien paga\):\n(http:\/\/127\.0\.0\.1:\d+\/pagar\/\w+)\n/,
    );
    expect(r.screen).toMatch(/monto\s+12\.50/);
    const list = await cobros();
    expect(list.length).toBe(before + 1);
    expect(list[0]!.concepto).toBe('Pedido por terminal');
  });

  it('Ctrl-C at a prompt cancels with exit 130 and creates nothing', async () => {
    const before = (await cobros()).length;
    const r = await svcTty(['cobro', 'crear', '--monto', '10'], sb.env, [[/Concepto/, '\u0003']]);
    expect(r.exitCode).toBe(130);
    expectNoStack(r.screen);
    expect((await cobros()).length).toBe(before);
  });

  // The same flag in live mode is run in the pty by test/cli/asking.test.ts: here, in this process.
  it('--no-input on a terminal never asks', async () => {
    const r = await svcAtTerminal(['cobro', 'crear', '--no-input', '--monto', '10'], sb.env, []);
    expect(r.exitCode).toBe(2);
    expect(r.screen).toMatch(/falta --concepto \(con --no-input/);
  });

  it('live key on a terminal: banner, then a confirmation; answering no creates nothing', async () => {
    const before = await postCount();
    const live = { ...sb.env, SVC_API_KEY: 'svc_live_0123456789abcdef0123456789abcdef' };
    const r = await svcTty(['cobro', 'crear', '--concepto', 'X', '--monto', '10'], live, [
      [/MODO LIVE: ¿crear un cobro de 10\.00/, 'n\r'],
    ]);
    expect(r.screen).toMatch(/MODO LIVE/);
    expect(r.exitCode).toBe(8);
    expect(await postCount()).toBe(before);
  });
});
