// Tables that fit, on a real terminal (a pty of 80 and of 60 columns): no row wraps with
// a 150-character concept; free text is shortened with "…", ids, codes, states, amounts
// and dates never; piped rows keep everything. Long lists go through the pager on a
// terminal only, and --no-pager / SVC_PAGER= turn it off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svc } from '../helpers/cli.js';
import { startSandbox, type Sandbox } from '../helpers/sandbox.js';
import { hasScript, svcTty } from '../helpers/tty.js';
import { displayWidth } from '../../src/text.js';

const CONCEPTO = `Curso anual de cerámica gres y esmaltes, turno noche, ${'con materiales incluidos '.repeat(4)}`.slice(0, 150);
const REFERENCIA = 'alumna-2026-000017-cuota-anual-completa';
const HAVE_SCRIPT = hasScript();
if (!HAVE_SCRIPT) console.log('skipped: the pty tests need util-linux `script`');

describe('tables that fit the terminal', () => {
  let sb: Sandbox;
  const codes: string[] = [];
  beforeAll(async () => {
    sb = await startSandbox();
    for (const monto of ['1500.00', '99999.99']) {
      const r = await sb.api('POST', '/v1/cobros', { concepto: CONCEPTO, monto, referencia: REFERENCIA });
      codes.push(r.body.data.codigo as string);
    }
    expect((await sb.api('POST', '/_sandbox/cobros/2/pagar', { monto: '10.00' })).status).toBe(200);
  });
  afterAll(() => sb.stop());

  for (const cols of [80, 60]) {
    it.skipIf(!HAVE_SCRIPT)(`${cols} columns: no row wraps; codes, states and amounts whole; the concept shortened`, async () => {
      const r = await svcTty(['cobro', 'listar'], sb.env, [], 30_000, { cols, rows: 40 });
      expect(r.exitCode, r.screen).toBe(0);
      // The spinner's frame shares the first line on screen until the table overwrites it.
      const lines = r.screen.split('\n').map((l) => l.replace(/^.*buscando cobros…/, '')).filter((l) => l.trim() !== '');
      for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(cols);
      const table = lines.filter((l) => /^\s*(ID|\d+)\s/.test(l));
      expect(table).toHaveLength(3);
      for (const code of codes) expect(r.screen).toContain(code);
      expect(r.screen).toContain('PAGADA_PARCIALMENTE');
      expect(r.screen).toContain('99999.99');
      expect(r.screen).toContain('Curso anual');
      expect(r.screen).toContain('…');
      expect(r.screen).not.toContain(CONCEPTO);
      if (cols === 60) expect(r.screen).toMatch(/sin lugar para .*REFERENCIA.* \(--json las trae\)/);
    });
  }

  it('piped rows keep every field whole', async () => {
    const r = await svc(['cobro', 'listar'], { env: sb.env });
    expect(r.exitCode).toBe(0);
    const rows = r.stdout.trim().split('\n').map((l) => l.split('\t'));
    expect(rows.map((row) => row[5])).toEqual([CONCEPTO, CONCEPTO]);
    expect(rows.map((row) => row[6])).toEqual([REFERENCIA, REFERENCIA]);
  });

  it('a list longer than the screen goes through the pager; --no-pager, SVC_PAGER= and a pipe do not', async () => {
    // A pager that marks each line it shows; LINES=2 makes three rows "long".
    const terminal = { ...sb.env, SVC_FORCE_TTY: '1', COLUMNS: '200', LINES: '2', PAGER: 'sed "s/^/PAGINADO: /"' };
    const paged = await svc(['cobro', 'listar'], { env: terminal });
    expect(paged.exitCode, paged.stderr).toBe(0);
    const lines = paged.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(/^PAGINADO: /);
    for (const args of [['cobro', 'listar', '--no-pager']]) {
      const r = await svc(args, { env: terminal });
      expect(r.stdout).not.toContain('PAGINADO');
      expect(r.stdout).toContain(codes[0]);
    }
    const off = await svc(['cobro', 'listar'], { env: { ...terminal, SVC_PAGER: '' } });
    expect(off.stdout).not.toContain('PAGINADO');
    expect(off.stdout).toContain(codes[0]);
    const piped = await svc(['cobro', 'listar'], { env: { ...sb.env, PAGER: terminal.PAGER, LINES: '2' } });
    expect(piped.stdout).not.toContain('PAGINADO');
    // A short list is printed as is.
    const short = await svc(['cobro', 'listar'], { env: { ...terminal, LINES: '40' } });
    expect(short.stdout).not.toContain('PAGINADO');
  });
});
