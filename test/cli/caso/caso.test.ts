// The support desk against a real sandbox: a request found by the code on the payer's
// receipt (any case) or the merchant's exact reference, in every command that takes
// one; several matches listed with exit 2, none exit 5 with the search tried; `svc
// caso` as JSON (the service's lists and the journal's notifications of that request),
// as Markdown (no key, secret or signature, no control characters) and on a terminal;
// `devolver --dry-run` checks everything and sends nothing.
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayWidth } from '../../../src/text.js';
import { Journal, readJournal } from '../../../src/webhooks/event-journal.js';
import { journalEntryAs } from '../../helpers/journal.js';
import { startListener, type Listener } from '../../../src/webhooks/listen.js';
import { expectNoStack, svcSpawned, tempDir } from '../../helpers/cli.js';
// Cases run in-process through main() (svc); spawned() runs the built binary, once per behaviour.
import { svc } from '../../helpers/inproc.js';
import { startSandbox, type Sandbox } from '../../helpers/sandbox.js';

let sb: Sandbox;
let listener: Listener;
let journal: string;
let paid: { id: number; codigo: string };
let unrelated: number;

const posts = async (path: string) =>
  ((await sb.api('GET', '/_sandbox/log')).body.data as { method: string; path: string }[]).filter(
    (e) => e.method === 'POST' && e.path === path,
  ).length;

beforeAll(async () => {
  // In this process, cvu and qr ready at once (no ready delay), so the request does not change between svc's read and the test's.
  sb = await startSandbox();
  journal = join(tempDir('svc-caso-'), 'webhooks.jsonl');
  // The merchant's own receiver: the real listener, journaling what the sandbox sends.
  listener = await startListener({ secret: sb.webhook_secret, port: 0, journal });
  expect((await sb.api('POST', '/_sandbox/webhook', { url: listener.url })).status).toBe(200);
  const c = (
    await sb.api('POST', '/v1/cobros', {
      concepto: 'Zapatillas | rojas',
      monto: '1500.00',
      referencia: 'pedido-1042',
    })
  ).body.data;
  paid = { id: c.id, codigo: c.codigo };
  expect(
    (await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, { monto: '1000.00', medio: 'qr' }))
      .status,
  ).toBe(200);
  expect((await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, { medio: 'debito' })).status).toBe(
    200,
  );
  expect(
    (await sb.api('POST', `/v1/cobros/${c.id}/devoluciones`, { monto: '100.00' })).status,
  ).toBe(201);
  unrelated = (
    await sb.api('POST', '/v1/cobros', {
      concepto: `menciona ${c.codigo} en el concepto`,
      monto: '5.00',
    })
  ).body.data.id;
  // The four notifications of the request (created, partially paid, approved, partially refunded) are journaled.
  // Counted on disk: an event is received before its journal line is written.
  for (let i = 0; i < 200 && readJournal(journal).entries.length < 5; i++)
    await new Promise((r) => setTimeout(r, 50));
  expect(readJournal(journal).entries.length).toBeGreaterThanOrEqual(5);
});
afterAll(async () => {
  await listener?.close();
  await sb?.stop();
});

describe('a request named as the customer names it', () => {
  it('cobro ver takes the code in any case, and the exact reference', async () => {
    const byCode = await svcSpawned(['cobro', 'ver', paid.codigo.toLowerCase(), '--json'], {
      env: sb.env,
    });
    expect(byCode.exitCode, byCode.stderr).toBe(0);
    expect(JSON.parse(byCode.stdout)).toMatchObject({ id: paid.id, codigo: paid.codigo });
    const byRef = await svc(['cobro', 'ver', '--referencia', 'pedido-1042', '--json'], {
      env: sb.env,
    });
    expect(JSON.parse(byRef.stdout).id).toBe(paid.id);
    // `q` also matches the other request's concept: only the exact code counts.
    const sync = await svc(['sync', paid.codigo, '--json'], { env: sb.env });
    expect(JSON.parse(sync.stdout).id).toBe(paid.id);
  });

  it('several requests with the reference: listed on stderr, exit 2; none: exit 5 naming the search', async () => {
    const other = (
      await sb.api('POST', '/v1/cobros', {
        concepto: 'Otra',
        monto: '10.00',
        referencia: 'compartida',
      })
    ).body.data.id;
    const first = (
      await sb.api('POST', '/v1/cobros', {
        concepto: 'Una',
        monto: '20.00',
        referencia: 'compartida',
      })
    ).body.data.id;
    const many = await svc(['cobro', 'ver', '--referencia', 'compartida'], { env: sb.env });
    expect(many.exitCode).toBe(2);
    expect(many.stdout).toBe('');
    expect(many.stderr).toMatch(new RegExp(`^${first}\\t\\w{10}\\tPENDIENTE\\t20.00\\tUna$`, 'm'));
    expect(many.stderr).toMatch(new RegExp(`^${other}\\t\\w{10}\\tPENDIENTE\\t10.00\\tOtra$`, 'm'));
    expect(many.stderr).toMatch(/error: 2 cobros tienen la referencia "compartida"/);
    expect(many.stderr).toContain(`elegí uno por su id: ${first}, ${other}`);

    const none = await svc(['caso', 'ZZZZZZZZZZ'], { env: sb.env });
    expect(none.exitCode).toBe(5);
    expect(none.stderr).toMatch(
      /^error: no hay ningún cobro con el código ZZZZZZZZZZ \(búsqueda: GET \/v1\/cobros\?q=ZZZZZZZZZZ, sin resultados\)$/m,
    );
    // The search finds a concept, no reference like it: not found.
    const partial = await svc(['cobro', 'ver', '--referencia', 'Otra'], { env: sb.env });
    expect(partial.exitCode).toBe(5);
    expect(partial.stderr).toMatch(/resultados?, ninguno exacto/);
    // A part of a reference: the near ones listed, exit 2 (test/cli/forgiving-lookups.test.ts).
    const near = await svc(['cobro', 'ver', '--referencia', 'pedido'], { env: sb.env });
    expect(near.exitCode).toBe(2);
    expect(near.stderr).toMatch(/\tpedido-1042\t/);
    expectNoStack(none.stderr + partial.stderr);
  });

  it.each([
    [['cobro', 'ver', 'K7QM3XW9P'], /ni un código de cobro/],
    [['cobro', 'ver', '42', '--referencia', 'x'], /de una sola forma/],
    [['caso'], /falta el cobro/],
    [['devolver', '--referencia', '', '--total'], /--referencia vacía/],
  ])('%j is refused before any request (exit 2)', async (args, message) => {
    const r = await svc(args, { env: sb.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});

describe('devolver --dry-run', () => {
  it('checks everything, says what would be sent, sends nothing: exit 0 when it fits, 2 when not', async () => {
    const before = await posts(`/v1/cobros/${paid.id}/devoluciones`);
    const ok = await svcSpawned(['devolver', paid.codigo, '--monto', '50', '--dry-run', '--json'], {
      env: sb.env,
    });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual({
      cobro_id: paid.id,
      codigo: paid.codigo,
      monto: '50.00',
      transaccion_id: null,
      queda_despues: '1350.00',
    });
    // --json: what would be sent is the answer; nothing for a person on stderr.
    expect(ok.stderr).toBe('');
    const human = await svc(['devolver', paid.codigo, '--monto', '50', '--dry-run'], {
      env: sb.env,
    });
    expect(human.exitCode, human.stderr).toBe(0);
    expect(human.stderr).toMatch(/--dry-run.*no se envió nada/);
    const over = await svc(
      ['devolver', '--referencia', 'pedido-1042', '--monto', '1400.01', '--dry-run'],
      { env: sb.env },
    );
    expect(over.exitCode).toBe(2);
    expect(over.stderr).toMatch(/supera lo que queda por devolver del cobro \d+: 1400.00/);
    expect(await posts(`/v1/cobros/${paid.id}/devoluciones`)).toBe(before);
  });
});

describe('svc caso', () => {
  it('--json: the request, its lists as the service sends them and its notifications from the journal', async () => {
    const r = await svcSpawned(['caso', paid.codigo, '--json', '--journal', journal], {
      env: sb.env,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const caso = JSON.parse(r.stdout);
    expect(Object.keys(caso)).toEqual([
      'cobro',
      'transacciones',
      'devoluciones',
      'liquidaciones',
      'notificaciones',
    ]);
    expect(caso.cobro).toEqual((await sb.api('GET', `/v1/cobros/${paid.id}`)).body.data);
    for (const [key, path] of [
      ['transacciones', '/v1/transacciones'],
      ['devoluciones', '/v1/devoluciones'],
      ['liquidaciones', '/v1/liquidaciones'],
    ] as const) {
      expect(caso[key]).toEqual(
        (await sb.api('GET', path)).body.data.filter(
          (x: { cobro_id: number }) => x.cobro_id === paid.id,
        ),
      );
    }
    expect(caso.transacciones).toHaveLength(2);
    expect(caso.devoluciones).toHaveLength(1);
    // One time format in the document: the journal's times as the service writes its dates.
    const times = [
      caso.cobro.created_at,
      ...caso.transacciones.map((t: { fecha: string }) => t.fecha),
      ...caso.notificaciones.map((n: { received_at: string }) => n.received_at),
    ];
    for (const t of times) expect(t).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(caso.notificaciones[0].received_at >= caso.cobro.created_at).toBe(true);
    expect(caso.notificaciones.map((n: { event: string }) => n.event)).toEqual([
      'payment.created',
      'payment.partially_paid',
      'payment.approved',
      'payment.partially_refunded',
    ]);
    expect(caso.notificaciones.every((n: { firma_valida: boolean }) => n.firma_valida)).toBe(true);
    expect(r.stdout).not.toContain('x-svc-signature');
    // Without a journal (none in the data folder yet) the case is the service's alone.
    const bare = await svc(['caso', String(paid.id), '--json'], {
      env: { ...sb.env, SVC_DATA_DIR: tempDir() },
    });
    expect(bare.exitCode, bare.stderr).toBe(0);
    expect(JSON.parse(bare.stdout).notificaciones).toEqual([]);
    // A journal named that is not there is a mistake, not "no notifications": exit 2, for every reader.
    const none = join(tempDir(), 'none.jsonl');
    for (const args of [
      ['caso', String(paid.id)],
      ['webhook', 'eventos'],
      ['webhook', 'conciliar'],
      ['webhook', 'replay', '--last', '1'],
      ['webhook', 'ver', 'evt_0123456789ab'],
    ]) {
      const r = await svc([...args, '--journal', none], { env: sb.env });
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(`error: --journal ${none}: no existe`);
      expect(r.stdout).toBe('');
    }
  });

  it('--markdown: a ticket report with the code, totals and no key, secret, signature or control character', async () => {
    const r = await svc(
      ['caso', '--referencia', 'pedido-1042', '--markdown', '--journal', journal],
      { env: sb.env },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(`# Caso ${paid.codigo}: cobro ${paid.id}`);
    expect(r.stdout).toContain('Total devuelto: **100.00**. Queda por devolver: **1400.00**.');
    expect(r.stdout).toContain('## Notificaciones recibidas (4)');
    expect(r.stdout).toMatch(/\| payment\.approved \| PAGADA \| válida \| recibida, sin app \|/);
    for (const secret of [sb.api_key, sb.webhook_secret, 'v1=', 'x-svc-signature'])
      expect(r.stdout).not.toContain(secret);
    expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    // A pipe in a concept does not break the table.
    expect(r.stdout).toContain('| concepto | `Zapatillas \\| rojas` |');
    // With --json too, neither is guessed: exit 2 before any request, as --csv with --json.
    const logged = (await sb.apiLog()).length;
    const both = await svc(['caso', String(paid.id), '--markdown', '--json'], { env: sb.env });
    expect(both.exitCode).toBe(2);
    expect((await sb.apiLog()).length).toBe(logged);
    expect(both.stdout).toBe('');
    expect(JSON.parse(both.stderr)).toEqual({
      error: 'usage',
      message: '--markdown o --json, no los dos',
    });
  });

  it("--markdown: links, images and HTML from the service are text; a stranger's notification is listed as rejected, without its content", async () => {
    const concepto =
      '[Pagá acá](http://evil.example/x) ![](http://evil.example/p.png) <img src=x onerror=alert(1)> `x`';
    const c = (
      await sb.api('POST', '/v1/cobros', {
        concepto,
        monto: '10.00',
        referencia: 'www.evil.example',
      })
    ).body.data;
    // A stranger's unsigned post about that request: 401, and still journaled.
    const forged = JSON.stringify({
      event: '[clic](http://evil.example/y)',
      cobro_id: c.id,
      estado: '<b>PAGADA</b>',
      monto: '10.00',
    });
    const answer = await fetch(listener.url, {
      method: 'POST',
      body: forged,
      headers: { 'content-type': 'application/json' },
    });
    expect(answer.status).toBe(401);
    for (
      let i = 0;
      i < 200 &&
      !readJournal(journal).entries.some((e) => e.cobro_id === c.id && !e.verification.valid);
      i++
    )
      await new Promise((r) => setTimeout(r, 50));
    const r = await svc(['caso', String(c.id), '--markdown', '--journal', journal], {
      env: sb.env,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    // Outside code spans nothing is a link, an image, a tag or a bare address.
    const prose = r.stdout.replace(/(`+)(?:(?!\1).)*?\1/g, '');
    expect(prose).not.toMatch(/\]\(|<img|<b>|https?:|www\./);
    expect(r.stdout).toContain(
      '| concepto | `` [Pagá acá](http://evil.example/x) ![](http://evil.example/p.png) <img src=x onerror=alert(1)> `x` `` |',
    );
    expect(r.stdout).toContain('| referencia | `www.evil.example` |');
    expect(r.stdout).toMatch(/\| - \| - \| inválida \| rechazada \(.+\), sin su contenido \|/);
    expect(r.stdout).not.toContain('clic');
    expect(r.stdout).not.toContain('<b>');
  });

  it("reads only its request's lines of the journal, through the listener's index", async () => {
    const path = join(tempDir('svc-caso-idx-'), 'webhooks.jsonl');
    const j = await Journal.open(path, { index: true });
    const mine: string[] = [];
    for (let i = 0; i < 30; i++) {
      const id = `evt_${(0x100000 + i).toString(16).padStart(12, '0')}`;
      const about = i % 10 === 0 ? paid.id : unrelated;
      if (about === paid.id) mine.push(id);
      await j.append(journalEntryAs(id, { cobro_id: about }));
    }
    await j.close();
    // A line about another request damaged after it was indexed: caso does not read it.
    const text = readFileSync(path, 'latin1');
    const at = text.indexOf('\n', text.indexOf('evt_000000100005')) + 1;
    const fd = openSync(path, 'r+');
    writeSync(
      fd,
      Buffer.alloc(text.indexOf('\n', at) - at, 'x'),
      0,
      text.indexOf('\n', at) - at,
      at,
    );
    closeSync(fd);
    const r = await svc(['caso', String(paid.id), '--json', '--journal', path], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).notificaciones.map((n: { id: string }) => n.id)).toEqual(mine);
    // Every reader of the whole journal does read it.
    expect(readJournal(path).skipped).toBe(1);
  });

  it('on a terminal-less pipe: the record, each list and a timeline in time order', async () => {
    const r = await svc(['caso', String(paid.id), '--journal', journal], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^queda por devolver\t1400.00$/m);
    expect(r.stdout).toContain('transacciones (2)');
    const timeline = r.stdout
      .slice(r.stdout.indexOf('línea de tiempo'))
      .split('\n')
      .slice(1)
      .filter(Boolean);
    const times = timeline.map((l) => l.split('\t')[0]!);
    expect(times).toEqual([...times].sort());
    expect(timeline[0]).toMatch(/\tcobro creado: 1500.00/);
    // The other request that `q` finds by its concept is not part of this case.
    expect(r.stdout).not.toContain('menciona');
    expect(unrelated).not.toBe(paid.id);
  });

  it('on an 80-column terminal: every line fits, and the notifications say what became of each', async () => {
    const r = await svc(['caso', String(paid.id), '--journal', journal], {
      env: { ...sb.env, SVC_FORCE_TTY: '1', COLUMNS: '80', NO_COLOR: '1', SVC_PAGER: '' },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter((l) => displayWidth(l) > 80)).toEqual([]);
    // Every notification was received valid with no app behind the listener: said once above the table, each row its event and state.
    const notes = r.stdout.slice(
      r.stdout.indexOf('notificaciones recibidas'),
      r.stdout.indexOf('línea de tiempo'),
    );
    expect(notes).toMatch(/^(FECHA .* {3})?FIRMA válida {3}APP sin app$/m);
    expect(notes).toMatch(/payment\.approved +PAGADA\b/);
  });

  it('no notifications: where svc looked, so none is not read as none sent', async () => {
    const dir = tempDir('svc-caso-none-');
    const empty = join(dir, 'vacio.jsonl');
    closeSync(openSync(empty, 'w'));
    const notes = async (argv: string[], env: Record<string, string> = {}) => {
      const r = await svc(['caso', String(paid.id), ...argv], { env: { ...sb.env, ...env } });
      expect(r.exitCode, r.stderr).toBe(0);
      const lines = r.stdout.split('\n');
      return lines[lines.indexOf('notificaciones recibidas (0)') + 1];
    };
    expect(await notes(['--journal', empty])).toBe(`ninguna de este cobro en el journal ${empty}`);
    // The default journal, in a data folder where no listener ever ran.
    const data = join(dir, 'datos');
    expect(await notes([], { SVC_DATA_DIR: data })).toBe(
      `no hay journal en ${join(data, 'webhooks.jsonl')}: las guarda \`svc webhook listen\` mientras corre`,
    );
  });
});
