// Issue #19 point 9, one spawned run of the built CLI per surface: the listener's line
// for an unsigned body full of escape sequences, `webhook eventos` replaying it from
// the journal (a table on a terminal, a hand-damaged journal), and `cobro ver` on a
// terminal against a hostile service. Nothing but svc's own colours reaches the
// terminal; the hostile text is shown whole, quoted and escaped. The same commands
// piped (TSV, --json) run through main(), as in terminal-matrix.test.ts.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoStack, svcSpawned, tempDir } from '../helpers/cli.js';
import { svc } from '../helpers/inproc.js';
import { post, startListen } from '../helpers/receiver.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
import { fixture, type Fixture } from '../helpers/fixtures.js';
import {
  HOSTILE,
  HOSTILE_SHOWN,
  hostileProxy,
  RAW_UNSAFE,
  SGR,
  type Hostile,
} from './terminal-hostile.js';

const SECRET = 'whsec_terminal_test_secret_01';
/** A terminal with colour: svc's SGR allowed, anything else unsafe is not. */
// A terminal wide enough that no free-text cell is shortened: these tests read whole escaped values.
const TERMINAL = { SVC_FORCE_TTY: '1', NO_COLOR: '', FORCE_COLOR: '1', COLUMNS: '1000' };

function expectTerminalSafe(text: string, what: string): void {
  expect(text.includes('\u001b[5;32m'), `${what}: the body's own SGR`).toBe(false);
  expect(text.includes('\u001b[32mPAGADA'), `${what}: a fake green state`).toBe(false);
  const m = RAW_UNSAFE.exec(text.replace(SGR, ''));
  expect(
    m
      ? `U+${m[0].codePointAt(0)!.toString(16)} near ${JSON.stringify(text.slice(Math.max(0, m.index - 30), m.index + 30))}`
      : null,
    what,
  ).toBeNull();
}

/** Fake state and link: what the unsigned body carries besides HOSTILE as its event. */
const ESTADO = '\u001b]8;;https://e.vil/\u001b\\PAGADA\u001b]8;;\u001b\\';
const MONTO = '\u001b[8m999.00';
/** The first 32 characters of HOSTILE as shown (by hand). */
const PREFIX_SHOWN = String.raw`"Pedido\u001b]0;pwned\u0007\u001b[2J\u001b[5;32mPAGADA`;

describe('webhook listen and eventos', () => {
  const journal = join(tempDir('svc-term-j-'), 'webhooks.jsonl');

  it('listen: the line for an unsigned hostile body shows its fields escaped, nothing raw', async () => {
    // Without colour (startListen waits for a plain "Listo." line): then no escape at all may show.
    // A terminal wide enough for whole lines, so the state is on the line too.
    const listen = await startListen(['--journal', journal], {
      SVC_WEBHOOK_SECRET: SECRET,
      SVC_FORCE_TTY: '1',
      COLUMNS: '1000',
    });
    try {
      const body = JSON.stringify({
        event: HOSTILE,
        cobro_id: 5,
        estado: `\u001b[32mPAGADA\u001b[0m`,
        monto: MONTO,
      });
      const r = await post(listen.url, body, { 'content-type': 'application/json' });
      expect(r.status).toBe(401);
      const body2 = JSON.stringify({
        event: 'payment.approved',
        cobro_id: 6,
        estado: ESTADO,
        monto: '1.00',
      });
      expect((await post(listen.url, body2, { 'content-type': 'application/json' })).status).toBe(
        401,
      );
      await listen.waitLines(2);
    } finally {
      const { stderr } = await listen.stop('SIGINT');
      expectNoStack(stderr);
      expectTerminalSafe(stderr, 'listen stderr');
    }
    expect(listen.lines.join('\n')).not.toContain('\u001b');
    expectTerminalSafe(listen.lines.join('\n'), 'listen stdout');
    const [first, second] = listen.lines;
    // The event is cut at 40 characters (a 1 MiB field cannot flood the terminal), escaped whole up to there.
    expect(first).toContain(
      String.raw`"Pedido\u001b]0;pwned\u0007\u001b[2J\u001b[5;32mPAGADA\u001b]8;;ht"…`,
    );
    expect(first).toContain(String.raw`"\u001b[32mPAGADA\u001b[0m"`);
    expect(first).toContain(String.raw`"\u001b[8m999.00"`);
    expect(first).toMatch(/<-- 401 firma inválida/);
    expect(second).toContain(
      String.raw`"\u001b]8;;https://e.vil/\u001b\\PAGADA\u001b]8;;\u001b\\"`,
    );
  });

  it('eventos: the journal replayed as a table and as TSV shows the same fields escaped, columns intact', async () => {
    const table = await svcSpawned(['webhook', 'eventos', '--journal', journal], { env: TERMINAL });
    expect(table.exitCode, table.stderr).toBe(0);
    expectTerminalSafe(table.stdout + table.stderr, 'eventos table');
    // The journal may keep a shortened event; what it keeps is shown escaped from its first character.
    expect(table.stdout.replace(SGR, '')).toContain(PREFIX_SHOWN);
    expect(table.stdout.replace(SGR, '')).toContain(
      String.raw`"\u001b]8;;https://e.vil/\u001b\\PAGADA\u001b]8;;\u001b\\"`,
    );

    const tsv = await svc(['webhook', 'eventos', '--journal', journal]);
    expect(tsv.exitCode, tsv.stderr).toBe(0);
    expectTerminalSafe(tsv.stdout + tsv.stderr, 'eventos TSV');
    const rows = tsv.stdout.split('\n').filter(Boolean);
    expect(rows).toHaveLength(2);
    // A tab or line break inside the event would have split its row or added columns.
    // Piped rows hold --csv's 16 fields.
    expect(rows.map((r) => r.split('\t').length)).toEqual([16, 16]);
    // Newest first: the hostile event came first, so it is the last row (event is field 5).
    expect(rows[1]!.split('\t')[4]!.startsWith(PREFIX_SHOWN)).toBe(true);

    // --json keeps the journal's strings as they are.
    const json = await svc(['webhook', 'eventos', '--journal', journal, '--json']);
    expect(JSON.parse(json.stdout)[1].event.startsWith(HOSTILE.slice(0, 32))).toBe(true);
  });

  it('eventos: a hand-edited journal (fields of any type, verification missing) is skipped with a notice, not a crash', async () => {
    const path = join(tempDir('svc-term-j-'), 'edited.jsonl');
    const entry = {
      id: 'evt_000000000001',
      received_at: '2026-01-01T00:00:00.000Z',
      body: '',
      source: 'listen',
      event: { x: '\u001b[2J' },
      cobro_id: '7',
      estado: 42,
      status: 'x',
      latency_ms: 'y',
      outcome: '\u001b]0;t\u0007',
    };
    writeFileSync(path, `${JSON.stringify(entry)}\n`);
    // On a terminal the built binary; piped, main().
    for (const [run, env] of [
      [svcSpawned, TERMINAL],
      [svc, {}],
    ] as const) {
      const r = await run(['webhook', 'eventos', '--journal', path], { env });
      expectNoStack(r.stderr);
      expect(r.exitCode, r.stderr).toBe(0);
      expectTerminalSafe(r.stdout + r.stderr, 'edited journal');
      expect(r.stderr.replace(SGR, '')).toContain(
        `aviso: ${path} línea 1: no es una entrada del journal (headers no son textos); se omitió`,
      );
    }
  });
});

describe('cobro ver on a terminal against a hostile service', () => {
  let sb: InProcessSandbox;
  let fx: Fixture;
  let proxy: Hostile;
  beforeAll(async () => {
    sb = await startSandbox();
    fx = await fixture(sb);
    proxy = await hostileProxy(sb.baseUrl);
  });
  afterAll(async () => {
    await proxy?.close();
    await sb?.close();
  });

  it('the record shows codigo, concepto, url escaped, each on its own line', async () => {
    const r = await svcSpawned(['cobro', 'ver', String(fx.cobroId)], {
      env: { SVC_BASE_URL: proxy.baseUrl, SVC_API_KEY: sb.apiKey, ...TERMINAL },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expectTerminalSafe(r.stdout + r.stderr, 'cobro ver');
    const lines = r.stdout.replace(SGR, '').split('\n');
    const escaped = HOSTILE_SHOWN.replace(/[\\[\]().*+?^$|{}]/g, '\\$&');
    for (const key of ['codigo', 'concepto']) {
      expect(
        lines.find((l) => l.startsWith(`${key} `)),
        key,
      ).toMatch(new RegExp(`^${key} +${escaped}$`));
    }
    // The payer link comes first, alone on its line (the record sync and crear print).
    expect(lines[lines.findIndex((l) => l.startsWith('link de pago')) + 1]).toBe(HOSTILE_SHOWN);
  });
});
