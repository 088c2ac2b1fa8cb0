// svc sync and svc devolver end to end against a real sandbox: refresh after a payment,
// partial, second partial and total refunds, refusals, --transaccion, live mode, and a
// connection cut after the refund POST (outcome unknown, sent exactly once).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoStack, svcSpawned } from '../../helpers/cli.js';
// Cases run in-process through main() (svc); spawned() runs the built binary, once per behaviour.
import { svc, svcAtTerminal } from '../../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../../helpers/sandbox.js';
import { LIVE_KEY, startLiveProxy } from '../../helpers/live-proxy.js';
import { hasScript, svcTty, NO_SCRIPT } from '../../helpers/tty.js';
import { displayWidth } from '../../../src/text.js';
import { skipBecause } from '../../helpers/skips.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(async () => {
  await sb?.stop();
});

async function paidCobro(
  monto: string,
  pagar?: { monto?: string; medio?: string },
): Promise<number> {
  const c = await sb.api('POST', '/v1/cobros', { concepto: 'Para devolver', monto });
  expect(c.status).toBe(201);
  const id = c.body.data.id as number;
  const p = await sb.api('POST', `/_sandbox/cobros/${id}/pagar`, pagar ?? {});
  expect(p.status).toBe(200);
  return id;
}
const refundsOf = async (id: number) =>
  (
    (await sb.api('GET', '/v1/devoluciones')).body.data as { cobro_id: number; monto: string }[]
  ).filter((d) => d.cobro_id === id);
const refundPosts = async (id: number) =>
  ((await sb.api('GET', '/_sandbox/log')).body.data as { method: string; path: string }[]).filter(
    (e) => e.method === 'POST' && e.path === `/v1/cobros/${id}/devoluciones`,
  ).length;
const rec = (stdout: string) =>
  Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t')),
  );

describe('svc sync', () => {
  it('shows the refreshed request and old -> new after a payment', async () => {
    const created = await svc(
      ['cobro', 'crear', '--concepto', 'Sync', '--monto', '100', '--json'],
      { env: sb.env },
    );
    const id = JSON.parse(created.stdout).id as number;
    const same = await svcSpawned(['sync', String(id)], { env: sb.env });
    expect(same.exitCode).toBe(0);
    expect(rec(same.stdout)).toMatchObject({ estado: 'PENDIENTE', estado_anterior: 'PENDIENTE' });
    expect(same.stderr).toMatch(/estado sin cambios: PENDIENTE/);

    // The sandbox's GET is always current, so a stale read (what the real service may
    // give before a refresh) is injected: the next GET answers the old PENDIENTE record.
    const stale = (await sb.api('GET', `/v1/cobros/${id}`)).body;
    expect((await sb.api('POST', `/_sandbox/cobros/${id}/pagar`, { monto: '40.00' })).status).toBe(
      200,
    );
    await sb.api('POST', '/_sandbox/fallas', {
      method: 'GET',
      path: `/v1/cobros/${id}`,
      action: 'respond',
      status: 200,
      body: stale,
    });
    const r = await svc(['cobro', 'sync', String(id)], { env: sb.env });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/^url\t/);
    expect(rec(r.stdout)).toMatchObject({
      estado: 'PAGADA_PARCIALMENTE',
      estado_anterior: 'PENDIENTE',
      monto_cobrado: '40.00',
    });
    expect(r.stderr).toMatch(/estado: PENDIENTE → PAGADA_PARCIALMENTE/);

    const j = await svc(['sync', String(id), '--json'], { env: sb.env });
    expect(j.exitCode).toBe(0);
    expect(JSON.parse(j.stdout)).toMatchObject({ id, estado: 'PAGADA_PARCIALMENTE' });
    expect(j.stderr).toMatch(/sin cambios/);
    // the POST carried {} and happened once per call
    const posts = (
      (await sb.api('GET', '/_sandbox/log')).body.data as { method: string; path: string }[]
    ).filter((e) => e.path === `/v1/cobros/${id}/sync`);
    expect(posts.length).toBe(3);
  });

  it('a bad id is a usage error, an unknown one is exit 5', async () => {
    expect((await svc(['sync', 'abc'], { env: sb.env })).exitCode).toBe(2);
    const r = await svc(['sync', '99999'], { env: sb.env });
    expect(r.exitCode).toBe(5);
    expectNoStack(r.stderr);
  });

  it('live key without a terminal needs --yes, refused before any request', async () => {
    const r = await svc(['sync', '1'], {
      env: { ...sb.env, SVC_API_KEY: 'svc_live_0123456789abcdef0123456789abcdef' },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/MODO LIVE/);
    expect(r.stderr).toMatch(/--yes/);
  });
});

describe('svc devolver', () => {
  it('partial, second partial, then total: shows what is left and sends exact amounts', async () => {
    const id = await paidCobro('1000.10');
    const a = await svcSpawned(['devolver', String(id), '--monto', '0.10'], { env: sb.env });
    expect(a.exitCode).toBe(0);
    expect(a.stderr).toMatch(/estado\s+PAGADA\n/);
    expect(a.stderr).toMatch(/monto_cobrado\s+1000\.10/);
    expect(a.stderr).toMatch(/ya devuelto\s+0\.00/);
    expect(a.stderr).toMatch(/queda\s+1000\.10/);
    expect(rec(a.stdout)).toMatchObject({
      cobro_id: String(id),
      monto: '0.10',
      tipo: 'parcial',
      estado: 'DEVUELTA_PARCIALMENTE',
    });

    // --json: the refund on stdout and nothing for a person anywhere (stderr stays for errors).
    const b = await svc(['devolver', String(id), '--monto', '0.20', '--json'], { env: sb.env });
    expect(b.exitCode).toBe(0);
    expect(b.stderr).toBe('');
    const refund = JSON.parse(b.stdout);
    expect(refund).toMatchObject({ cobro_id: id, monto: '0.20', estado: 'DEVUELTA_PARCIALMENTE' });
    expect(Object.keys(refund)).toEqual([
      'id',
      'cobro_id',
      'monto',
      'tipo',
      'estado',
      'created_at',
    ]);

    const c = await svc(['devolver', String(id), '--total'], { env: sb.env });
    expect(c.exitCode).toBe(0);
    expect(c.stderr).toMatch(/ya devuelto\s+0\.30 \(2 devoluciones\)/);
    expect(c.stderr).toMatch(/a devolver:\s+999\.80/);
    expect(rec(c.stdout)).toMatchObject({ monto: '999.80', estado: 'DEVUELTA' });
    expect((await refundsOf(id)).map((d) => d.monto).sort()).toEqual(['0.10', '0.20', '999.80']);
  });

  it('refuses locally an amount over what is left (exit 2, no POST)', async () => {
    const id = await paidCobro('50.00');
    await svc(['devolver', String(id), '--monto', '20'], { env: sb.env });
    const r = await svc(['devolver', String(id), '--monto', '30.01'], { env: sb.env });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /--monto 30\.01 supera lo que queda por devolver del cobro \d+: 30\.00/,
    );
    expect(r.stderr).toMatch(/svc devolver \d+ --total/);
    expect(await refundPosts(id)).toBe(1);
  });

  it.each([
    ['1e3', /--monto: "1e3"/],
    ['-5', /negativo/],
    ['1.234', /más de dos decimales/],
    ['1,5', /coma/],
    ['0', /cero/],
  ])('refuses an invalid amount %s before any request', async (monto, message) => {
    const r = await svc(['devolver', '1', '--monto', monto], {
      env: { ...sb.env, SVC_BASE_URL: 'http://127.0.0.1:9' },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('refuses both or neither of --monto/--total', async () => {
    const both = await svc(['devolver', '1', '--monto', '1', '--total'], { env: sb.env });
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toMatch(/no los dos/);
    const neither = await svc(['devolver', '1'], { env: sb.env });
    expect(neither.exitCode).toBe(2);
    expect(neither.stderr).toMatch(/--monto <monto> o --total/);
  });

  it('refuses a request in a state that admits no refund (pending, cancelled, fully refunded)', async () => {
    const pending = (await sb.api('POST', '/v1/cobros', { concepto: 'Pendiente', monto: '10.00' }))
      .body.data.id as number;
    const a = await svc(['devolver', String(pending), '--total'], { env: sb.env });
    expect(a.exitCode).toBe(2);
    expect(a.stderr).toMatch(/está PENDIENTE .*no admite devoluciones/);

    const cancelled = (
      await sb.api('POST', '/v1/cobros', { concepto: 'Rechazado', monto: '10.00' })
    ).body.data.id as number;
    await sb.api('POST', `/_sandbox/cobros/${cancelled}/rechazar`, {});
    const b = await svc(['devolver', String(cancelled), '--monto', '1'], { env: sb.env });
    expect(b.exitCode).toBe(2);
    expect(b.stderr).toMatch(/está CANCELADO/);

    const done = await paidCobro('10.00');
    expect((await svc(['devolver', String(done), '--total'], { env: sb.env })).exitCode).toBe(0);
    const c = await svc(['devolver', String(done), '--monto', '0.01'], { env: sb.env });
    expect(c.exitCode).toBe(2);
    expect(c.stderr).toMatch(/está DEVUELTA \(ya se devolvió todo\)/);
    for (const id of [pending, cancelled]) expect(await refundPosts(id)).toBe(0);
    expect(await refundPosts(done)).toBe(1);
  });

  it("--transaccion: refunds on a credited transaction of the request, refuses another request's", async () => {
    const id = await paidCobro('300.00', { monto: '100.00', medio: 'qr' });
    await sb.api('POST', `/_sandbox/cobros/${id}/pagar`, {
      monto: '200.00',
      medio: 'transferencia',
    });
    const txs = (
      (await sb.api('GET', '/v1/transacciones')).body.data as {
        id: number;
        cobro_id: number;
        monto: string;
      }[]
    ).filter((t) => t.cobro_id === id);
    expect(txs.length).toBe(2);
    const small = txs.find((t) => t.monto === '100.00')!;

    const ok = await svc(
      ['devolver', String(id), '--monto', '60', '--transaccion', String(small.id)],
      { env: sb.env },
    );
    expect(ok.exitCode).toBe(0);
    expect(ok.stderr).toMatch(new RegExp(`sobre la transacción ${small.id}`));
    expect(rec(ok.stdout)).toMatchObject({ cobro_id: String(id), monto: '60.00' });

    // more than the transaction's amount
    const over = await svc(
      ['devolver', String(id), '--monto', '150', '--transaccion', String(small.id)],
      { env: sb.env },
    );
    expect(over.exitCode).toBe(2);
    expect(over.stderr).toMatch(/supera el monto de la transacción/);

    // What is left of a transaction the service judges, and the dry run says so instead
    // of claiming the refund fits: 60.00 of the 100.00 went already, 50.00 is refused.
    const rehearsed = await svc(
      ['devolver', String(id), '--monto', '50', '--transaccion', String(small.id), '--dry-run'],
      { env: sb.env },
    );
    expect(rehearsed.exitCode, rehearsed.stderr).toBe(0);
    expect(rehearsed.stderr).toMatch(
      new RegExp(`lo que queda por devolver de la transacción ${small.id} lo controla el servicio`),
    );
    expect(rehearsed.stderr).toMatch(
      new RegExp(
        `si a la transacción ${small.id} le queda 50\\.00 lo decide el servicio al recibirla; no se envió nada`,
      ),
    );
    const asJson = await svc(
      [
        'devolver',
        String(id),
        '--monto',
        '50',
        '--transaccion',
        String(small.id),
        '--dry-run',
        '--json',
      ],
      { env: sb.env },
    );
    expect(JSON.parse(asJson.stdout)).toEqual({
      cobro_id: id,
      codigo: expect.any(String),
      monto: '50.00',
      transaccion_id: small.id,
      queda_despues: '190.00',
      queda_en_transaccion: null,
    });
    const sent = await svc(
      ['devolver', String(id), '--monto', '50', '--transaccion', String(small.id)],
      { env: sb.env },
    );
    expect(sent.exitCode, sent.stderr).toBe(1);
    expect(sent.stderr).toMatch(/refund_failed .*queda de la transacción \(40\.00\)/);

    // a transaction of another request
    const other = await paidCobro('5.00');
    const otherTx = (
      (await sb.api('GET', '/v1/transacciones')).body.data as { id: number; cobro_id: number }[]
    ).find((t) => t.cobro_id === other)!;
    const wrong = await svc(
      ['devolver', String(id), '--monto', '1', '--transaccion', String(otherTx.id)],
      { env: sb.env },
    );
    expect(wrong.exitCode).toBe(2);
    expect(wrong.stderr).toMatch(new RegExp(`es del cobro ${other}, no del ${id}`));

    // a transaction that does not exist
    const missing = await svc(['devolver', String(id), '--monto', '1', '--transaccion', '99999'], {
      env: sb.env,
    });
    expect(missing.exitCode).toBe(5);
    // The first refund and the one the service refused on what was left of the transaction.
    expect(await refundPosts(id)).toBe(2);
  });

  it('live mode without a terminal and without --yes is refused before any request', async () => {
    const id = await paidCobro('10.00');
    const live = { ...sb.env, SVC_API_KEY: 'svc_live_0123456789abcdef0123456789abcdef' };
    const r = await svc(['devolver', String(id), '--total'], { env: live });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/MODO LIVE/);
    expect(r.stderr).toMatch(/necesita --yes/);
    expect(r.stdout).toBe('');
    expect(await refundPosts(id)).toBe(0);
    // and --live with a test key is refused too
    const mixed = await svc(['devolver', String(id), '--total', '--live'], { env: sb.env });
    expect(mixed.exitCode).toBe(2);
    expect(mixed.stderr).toMatch(/--live pide modo live/);
  });

  it('a connection cut after the POST: outcome unknown, exit 6, the refund made exactly once', async () => {
    const id = await paidCobro('80.00');
    const f = await sb.api('POST', '/_sandbox/fallas', {
      method: 'POST',
      path: `/v1/cobros/${id}/devoluciones`,
      action: 'cut_after',
    });
    expect(f.status).toBeLessThan(300);
    const r = await svc(['devolver', String(id), '--monto', '25'], { env: sb.env });
    expect(r.exitCode).toBe(6);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/la devolución de 25\.00 del cobro \d+ puede haberse hecho o no/);
    expect(r.stderr).toContain(`svc devoluciones listar --cobro ${id}`);
    expect(r.stderr).toContain(`svc cobro ver ${id}`);
    expectNoStack(r.stderr);
    // the service did it, once: one refund, one POST received (never retried)
    expect((await refundsOf(id)).map((d) => d.monto)).toEqual(['25.00']);
    expect(await refundPosts(id)).toBe(1);
  });

  it('--json with an unknown outcome: the check commands travel in the JSON error', async () => {
    const id = await paidCobro('80.00');
    await sb.api('POST', '/_sandbox/fallas', {
      method: 'POST',
      path: `/v1/cobros/${id}/devoluciones`,
      action: 'cut_after',
    });
    const r = await svc(['devolver', String(id), '--total', '--json'], { env: sb.env });
    expect(r.exitCode).toBe(6);
    expect(r.stdout).toBe('');
    const last = JSON.parse(r.stderr.trim().split('\n').at(-1)!);
    expect(last.error).toBe('outcome_unknown');
    expect(last.message).toContain(`svc devoluciones listar --cobro ${id}`);
    expect(await refundPosts(id)).toBe(1);
  });

  it('a connection refused before sending is a plain network error (nothing sent)', async () => {
    const id = await paidCobro('10.00');
    await sb.api('POST', '/_sandbox/fallas', {
      method: 'POST',
      path: `/v1/cobros/${id}/devoluciones`,
      action: 'respond',
      status: 502,
      body: '<html>bad gateway</html>',
    });
    const r = await svc(['devolver', String(id), '--total'], { env: sb.env });
    // an HTML page instead of the service's JSON: the POST reached something, outcome unknown
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toMatch(/puede haberse hecho o no/);
    expect(await refundsOf(id)).toEqual([]);
  });
});

describe.skipIf(skipBecause(import.meta.url, !hasScript() && NO_SCRIPT))(
  'svc sync and svc devolver on a terminal (pseudo-terminal via script)',
  () => {
    it('sync shows old -> new above the refreshed request, link first', async () => {
      const id = (await sb.api('POST', '/v1/cobros', { concepto: 'TTY sync', monto: '10.00' })).body
        .data.id as number;
      const stale = (await sb.api('GET', `/v1/cobros/${id}`)).body;
      await sb.api('POST', `/_sandbox/cobros/${id}/pagar`, {});
      await sb.api('POST', '/_sandbox/fallas', {
        method: 'GET',
        path: `/v1/cobros/${id}`,
        action: 'respond',
        status: 200,
        body: stale,
      });
      const r = await svcTty(['sync', String(id)], sb.env, []);
      expect(r.exitCode).toBe(0);
      expect(r.screen).toMatch(
        /estado: PENDIENTE → PAGADA\n\nlink de pago[^\n]*\nhttp:\/\/127\.0\.0\.1:\d+\/pagar\/\w+\n/,
      );
    });

    it('the preview fits an 80-column terminal: a long concept is shortened with …', async () => {
      const concepto =
        `Curso anual de cerámica gres y esmaltes, turno noche, ${'con materiales incluidos '.repeat(5)}`.slice(
          0,
          150,
        );
      const c = await sb.api('POST', '/v1/cobros', { concepto, monto: '40.00' });
      await sb.api('POST', `/_sandbox/cobros/${c.body.data.id}/pagar`, {});
      const r = await svcTty(
        ['devolver', String(c.body.data.id), '--monto', '1'],
        sb.env,
        [[/\(s\/N\)/, 'n\r']],
        30_000,
        { cols: 80, rows: 30 },
      );
      expect(r.exitCode).toBe(8);
      // The screen as captured joins a cleared spinner and prompt redraws to the next text: the row is read from its label.
      const row = /cobro {2,}\d+ \(\w+\) [^\n]*/.exec(r.screen)?.[0];
      expect(row, r.screen).toMatch(/^cobro +\d+ \(\w+\) Curso anual de cerámica.*…$/);
      expect(displayWidth(row!)).toBeLessThanOrEqual(80);
    });

    // The same (s/N) is answered in a pty by test/cli/asking.test.ts: here, in this process.
    it('test mode asks (s/N): n makes no refund (exit 8), s makes exactly one', async () => {
      const id = await paidCobro('20.00');
      const no = await svcAtTerminal(['devolver', String(id), '--monto', '5'], sb.env, [
        [/¿Devolver 5\.00 del cobro [^\n]*\(s\/N\)/, 'n\r'],
      ]);
      expect(no.exitCode).toBe(8);
      expect(no.screen).toMatch(/queda\s+20\.00/);
      expect(no.screen).not.toMatch(/\bNo\b|y\/N/);
      expect(await refundPosts(id)).toBe(0);
      const yes = await svcAtTerminal(['devolver', String(id), '--monto', '5'], sb.env, [
        [/¿Devolver 5\.00 del cobro [^\n]*\(s\/N\)/, 's\r'],
      ]);
      expect(yes.exitCode).toBe(0);
      expect(yes.screen).not.toMatch(/\bYes\b/);
      expect((await refundsOf(id)).map((d) => d.monto)).toEqual(['5.00']);
      expect(await refundPosts(id)).toBe(1);
    });

    it('live mode asks to type the amount: another amount cancels before any POST, the same one as the prompts read it (12,50) refunds', async () => {
      const proxy = await startLiveProxy(sb.base_url, sb.api_key);
      try {
        const live = { ...sb.env, SVC_BASE_URL: proxy.baseUrl, SVC_API_KEY: LIVE_KEY };
        const id = await paidCobro('30.00');
        const wrong = await svcTty(['devolver', String(id), '--monto', '12.5'], live, [
          [/escribí el monto \(12\.50\)/, '12.05\r'],
        ]);
        expect(wrong.screen).toMatch(/MODO LIVE/);
        expect(wrong.exitCode).toBe(8);
        expect(wrong.screen).toMatch(
          /no se devolvió nada: escribiste "12\.05", no 12\.50; para confirmar, escribí 12\.50/,
        );
        expect(await refundPosts(id)).toBe(0);

        const right = await svcTty(['devolver', String(id), '--monto', '12.5'], live, [
          [/escribí el monto \(12\.50\)/, '12,50\r'],
        ]);
        expect(right.exitCode).toBe(0);
        expect((await refundsOf(id)).map((d) => d.monto)).toEqual(['12.50']);
      } finally {
        await proxy.close();
      }
    });
  },
);

describe('live mode end to end (through a proxy that maps one live key to the sandbox)', () => {
  it('--yes without a terminal refunds, with the banner; crear and sync too', async () => {
    const proxy = await startLiveProxy(sb.base_url, sb.api_key);
    try {
      const live = { ...sb.env, SVC_BASE_URL: proxy.baseUrl, SVC_API_KEY: LIVE_KEY };
      const id = await paidCobro('30.00');
      const r = await svcSpawned(['devolver', String(id), '--total', '--yes', '--json'], {
        env: live,
      });
      expect(r.exitCode).toBe(0);
      expect(r.stderr.match(/MODO LIVE/g)?.length).toBe(1);
      expect(JSON.parse(r.stdout)).toMatchObject({ monto: '30.00', estado: 'DEVUELTA' });

      const c = await svc(
        ['cobro', 'crear', '--concepto', 'Live', '--monto', '1', '--yes', '--json'],
        { env: live },
      );
      expect(c.exitCode).toBe(0);
      expect(c.stderr).toMatch(/MODO LIVE/);
      const s = await svc(['sync', String(JSON.parse(c.stdout).id), '--yes'], { env: live });
      expect(s.exitCode).toBe(0);
      expect(s.stderr).toMatch(/MODO LIVE/);
      const noYes = await svc(['sync', String(JSON.parse(c.stdout).id)], { env: live });
      expect(noYes.exitCode).toBe(2);
    } finally {
      await proxy.close();
    }
  });
});
