// Tables that fit, on a terminal of 80 and of 60 columns: no row wraps with a
// 150-character concept; free text is shortened with "…", ids, codes, states, amounts
// and dates never; piped rows keep everything. Long lists go through the pager on a
// terminal only, and --no-pager / SVC_PAGER= turn it off. The layouts run through
// main() on a forced terminal of that width (SVC_FORCE_TTY, COLUMNS); what is about the
// process runs the built binary once each: the width read from a real terminal (a pty),
// and the pager, which writes to svc's own stdout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { svcSpawned, tempDir } from '../helpers/cli.js';
import { svc, svcOnTerminal as onTerminal } from '../helpers/inproc.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
import { hasScript, screenLines, svcTty, NO_SCRIPT } from '../helpers/tty.js';
import { displayWidth } from '../../src/text.js';
import { skipBecause } from '../helpers/skips.js';

const CONCEPTO =
  `Curso anual de cerámica gres y esmaltes, turno noche, ${'con materiales incluidos '.repeat(4)}`.slice(
    0,
    150,
  );
const REFERENCIA = 'alumna-2026-000017-cuota-anual-completa';
const HAVE_SCRIPT = hasScript();

/** A journal with one event whose name and state are the longest the service has. */
async function startJournal(): Promise<string> {
  const path = join(tempDir(), 'webhooks.jsonl');
  const body = JSON.stringify({
    event: 'payment.partially_refunded',
    cobro_id: 1042,
    estado: 'DEVUELTA_PARCIALMENTE',
    monto: '99999.99',
  });
  const entry = {
    id: 'evt_0123456789ab',
    received_at: new Date().toISOString(),
    source: 'listen',
    method: 'POST',
    path: '/',
    headers: {},
    body,
    event: 'payment.partially_refunded',
    cobro_id: 1042,
    estado: 'DEVUELTA_PARCIALMENTE',
    monto: '99999.99',
    verification: { valid: true },
    outcome: 'forwarded',
    target: 'http://127.0.0.1:3000/webhooks',
    status: 200,
    answered: 200,
    latency_ms: 12,
  };
  // The second differs in every column: none is said once above the table instead.
  const other = {
    ...entry,
    id: 'evt_ba9876543210',
    received_at: new Date(Date.now() + 60_000).toISOString(),
    event: 'payment.approved',
    cobro_id: 1043,
    estado: 'PAGADA',
    monto: '10.00',
    verification: { valid: false, reason: 'vencida' },
    outcome: 'skipped',
    status: 401,
    answered: null,
    latency_ms: 3,
  };
  writeFileSync(path, `${JSON.stringify(entry)}\n${JSON.stringify(other)}\n`);
  return path;
}

describe('tables that fit the terminal', () => {
  let sb: InProcessSandbox;
  const codes: string[] = [];
  beforeAll(async () => {
    sb = await startSandbox();
    // Two concepts and references that differ at their ends: the columns stay (a column with one value for every row is said once above instead).
    for (const [monto, end] of [
      ['1500.00', ''],
      ['99999.99', '-b'],
    ] as const) {
      const r = await sb.api('POST', '/v1/cobros', {
        concepto: CONCEPTO.slice(0, 150 - end.length) + end,
        monto,
        referencia: REFERENCIA + end,
      });
      codes.push(r.body.data.codigo as string);
    }
    expect((await sb.api('POST', '/_sandbox/cobros/2/pagar', { monto: '10.00' })).status).toBe(200);
  });
  afterAll(() => sb?.stop());

  for (const cols of [80, 60]) {
    it(`${cols} columns: no row wraps; codes, states and amounts whole; the concept shortened`, async () => {
      const r = await onTerminal(['cobro', 'listar'], sb.env, cols);
      expect(r.exitCode, r.screen).toBe(0);
      const lines = screenLines(r.screen).filter((l) => l.trim() !== '');
      for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(cols);
      const table = lines.filter((l) => /^\s*(ID|\d+)\s/.test(l));
      expect(table).toHaveLength(3);
      for (const code of codes) expect(r.screen).toContain(code);
      expect(r.screen).toContain('PAGADA_PARCIALMENTE');
      expect(r.screen).toContain('99999.99');
      expect(r.screen).toContain('Curso anua');
      expect(r.screen).toContain('…');
      expect(r.screen).not.toContain(CONCEPTO);
      if (cols === 60)
        expect(r.screen).toMatch(/sin lugar para .*REFERENCIA.* \(--json las trae\)/);
    });
  }

  it.skipIf(skipBecause(import.meta.url, !HAVE_SCRIPT && NO_SCRIPT))(
    'on a real terminal (a pty of 60 columns, no COLUMNS) the table fits the width the terminal reports',
    async () => {
      const r = await svcTty(['cobro', 'listar'], sb.env, [], 30_000, { cols: 60, rows: 40 });
      expect(r.exitCode, r.screen).toBe(0);
      const lines = screenLines(r.screen).filter((l) => l.trim() !== '');
      for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(60);
      expect(lines.filter((l) => /^\s*(ID|\d+)\s/.test(l))).toHaveLength(3);
      expect(r.screen).toMatch(/sin lugar para .*REFERENCIA.* \(--json las trae\)/);
    },
  );

  it('piped rows keep every field whole', async () => {
    const r = await svc(['cobro', 'listar'], { env: sb.env });
    expect(r.exitCode).toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows.map((row) => row[2])).toEqual([`${CONCEPTO.slice(0, 148)}-b`, CONCEPTO]);
    expect(rows.map((row) => row[6])).toEqual([`${REFERENCIA}-b`, REFERENCIA]);
  });

  it('a list longer than the screen goes through the pager, told the text is UTF-8', async () => {
    // A pager that marks each line it shows; LINES=2 makes three rows "long". The pager
    // writes to svc's own stdout: the built binary, once.
    // svc writes UTF-8 whatever the locale: less is told so (else "…" shows as <E2><80><A6>).
    const terminal = {
      ...sb.env,
      SVC_FORCE_TTY: '1',
      COLUMNS: '200',
      LINES: '2',
      PAGER: 'echo "charset=$LESSCHARSET"; sed "s/^/PAGINADO: /"',
    };
    const paged = await svcSpawned(['cobro', 'listar'], { env: terminal });
    expect(paged.exitCode, paged.stderr).toBe(0);
    const [charset, ...lines] = paged.stdout.trim().split('\n');
    expect(charset).toBe('charset=utf-8');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(/^PAGINADO: /);
    expect(paged.stdout).toContain(codes[0]);
  });

  it('--no-pager, SVC_PAGER=, a pipe and a list that fits the screen print without the pager', async () => {
    // A pager that would leave a file behind: none of these may start it.
    const marker = join(tempDir(), 'paginado');
    const terminal = {
      ...sb.env,
      SVC_FORCE_TTY: '1',
      COLUMNS: '200',
      LINES: '2',
      PAGER: `cat > '${marker}'`,
    };
    const cases: [string, string[], Record<string, string>][] = [
      ['--no-pager', ['cobro', 'listar', '--no-pager'], terminal],
      ['SVC_PAGER=', ['cobro', 'listar'], { ...terminal, SVC_PAGER: '' }],
      ['a pipe', ['cobro', 'listar'], { ...sb.env, PAGER: terminal.PAGER, LINES: '2' }],
      ['a short list', ['cobro', 'listar'], { ...terminal, LINES: '40' }],
    ];
    for (const [label, args, env] of cases) {
      const r = await svc(args, { env });
      expect(r.exitCode, `${label}: ${r.stderr}`).toBe(0);
      expect(r.stdout, label).toContain(codes[0]);
      expect(existsSync(marker), label).toBe(false);
    }
  });

  it('webhook conciliar at 80 columns: every line fits; rows grouped by what fixes them, event names and states whole', async () => {
    const journal = join(tempDir(), 'webhooks.jsonl');
    writeFileSync(journal, '');
    // An empty journal knows nothing: every request is older than it, counted apart.
    const apart = await onTerminal(['webhook', 'conciliar', '--journal', journal], sb.env, 80);
    expect(apart.exitCode, apart.screen).toBe(1);
    expect(apart.screen.replace(/\s+/g, ' ')).toMatch(
      /error: el journal \S+ no tiene eventos del listener: no se sabe qué le llegó a tu app/,
    );
    const r = await onTerminal(
      ['webhook', 'conciliar', '--journal', journal, '--anteriores'],
      sb.env,
      80,
    );
    expect(r.exitCode, r.screen).toBe(1);
    const lines = screenLines(r.screen);
    for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(80);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^nunca llegó al listener \(\d+\): svc webhook trigger EVENTO --cobro N$/,
      ),
    );
    expect(r.screen).toMatch(/\n +2 +\(nada\) +PAGADA_PARCIALMENTE +payment\.partially_paid\n/);
    // No address known: said once, not repeated as a placeholder on every row; only the
    // one command that fixes everything asks for it, so that it runs once filled in.
    expect(r.screen).toContain('el journal no sabe adónde reenviar');
    expect(r.screen.split('URL_DE_TU_APP')).toHaveLength(2);
    expect(r.screen).toMatch(
      /→ todo de una vez: svc webhook conciliar --forward-to URL_DE_TU_APP /,
    );
  });

  it('webhook eventos fits 80 columns, event names whole, and says what it left out', async () => {
    const app = await startJournal();
    const r = await onTerminal(['webhook', 'eventos', '--journal', app], {}, 80);
    expect(r.exitCode, r.screen).toBe(0);
    const rows = r.screen.split('\n').filter((l) => /^(ID|evt_)/.test(l));
    expect(rows.length).toBeGreaterThan(1);
    for (const line of rows) expect(displayWidth(line), line).toBeLessThanOrEqual(80);
    expect(r.screen).toContain('payment.partially_refunded');
    expect(r.screen).toMatch(/sin lugar para .*FECHA/);
    // What the event said stays longest (a state shared by every row is said once above).
    expect(rows[0]).toMatch(/^ID +EVENTO +COBRO +(ESTADO +)?MONTO/);
    // The notes under the table too: broken at spaces, no line wider than the terminal.
    for (const line of r.screen.split('\n'))
      expect(displayWidth(line), line).toBeLessThanOrEqual(80);
  });
  it('cobro ver at 80 columns: a long concept goes on under itself, whole, broken at spaces', async () => {
    const r = await onTerminal(['cobro', 'ver', '1'], sb.env, 80);
    expect(r.exitCode, r.screen).toBe(0);
    const lines = screenLines(r.screen);
    for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(80);
    const at = lines.findIndex((l) => l.startsWith('concepto '));
    const indent = lines[at]!.indexOf('Curso');
    const held = [lines[at]!.slice(indent)];
    for (let i = at + 1; lines[i]!.startsWith(' '.repeat(indent)); i++)
      held.push(lines[i]!.slice(indent));
    expect(held.length).toBeGreaterThan(1);
    expect(held.join(' ')).toBe(CONCEPTO.trim());
  });

  it('money first at 80 and 60 columns: the fee and what is left stay; a state shared by every row is said once above; caso has no COBRO column', async () => {
    // Two payments (the second of the 99999.99 request): every list has two rows.
    expect((await sb.api('POST', '/_sandbox/cobros/1/pagar', {})).status).toBe(200);
    for (const cols of [80, 60]) {
      for (const args of [['transacciones', 'listar'], ['liquidaciones']]) {
        const r = await onTerminal(args, sb.env, cols);
        expect(r.exitCode, r.screen).toBe(0);
        const lines = screenLines(r.screen).filter((l) => l.trim() !== '');
        for (const line of lines)
          expect(displayWidth(line), `${cols} ${args.join(' ')}: ${line}`).toBeLessThanOrEqual(
            cols,
          );
        expect(r.screen, `${cols} ${args.join(' ')}`).toMatch(
          /^(?:ID|COBRO) .*(MONTO|BRUTO) +TE COBRAMOS +TE QUEDA/m,
        );
        expect(r.screen).not.toMatch(/sin lugar para .*TE (COBRAMOS|QUEDA)/);
        // A settlement's own id is the first column to go.
        const header = lines.find((l) => /^(ID|COBRO) /.test(l))!;
        // Both rows share their state: said once, above the table, not as a column.
        const shared = args[0] === 'liquidaciones' ? 'ESTADO estimado' : 'ESTADO ACREDITADO';
        if (!header.includes('ESTADO'))
          expect(lines.slice(0, lines.indexOf(header)).join('\n')).toContain(shared);
        if (cols === 80 && args[0] === 'liquidaciones') expect(header).not.toContain('ESTADO');
      }
    }
    const caso = await onTerminal(['caso', '1'], sb.env, 80);
    expect(caso.exitCode, caso.screen).toBe(0);
    const headers = screenLines(caso.screen).filter((l) => l.startsWith('ID '));
    expect(headers.length).toBeGreaterThanOrEqual(2);
    for (const h of headers) expect(h).not.toMatch(/\bCOBRO\b/);
    expect(headers.filter((h) => /TE COBRAMOS +TE QUEDA/.test(h))).toHaveLength(2);
  });

  // Last: it adds a request the tests above do not expect.
  it('liquidaciones and devoluciones at 60 columns: rows and the totals line within the terminal', async () => {
    const c = (await sb.api('POST', '/v1/cobros', { concepto: 'Seña', monto: '1000.00' })).body
      .data;
    expect(
      (await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, { medio: 'credito' })).status,
    ).toBe(200);
    expect(
      (await sb.api('POST', `/v1/cobros/${c.id}/devoluciones`, { monto: '200.00' })).status,
    ).toBe(201);
    for (const args of [['liquidaciones'], ['devoluciones', 'listar']]) {
      const r = await onTerminal(args, sb.env, 60);
      expect(r.exitCode, r.screen).toBe(0);
      const lines = screenLines(r.screen).filter((l) => l.trim() !== '');
      for (const line of lines)
        expect(displayWidth(line), `${args.join(' ')}: ${line}`).toBeLessThanOrEqual(60);
      if (args[0] === 'liquidaciones')
        expect(r.screen).toMatch(
          /^total: bruto \d+\.\d\d, te cobramos \d+\.\d\d, te queda \d+\.\d\d\n\(\d+ liquidaci/m,
        );
      else expect(r.screen).toMatch(/200\.00 +DEVUELTA_PARCIALMENTE/);
    }
  });
});
