// Issue #19 point 9: a hostile service cannot drive the user's terminal. A proxy on
// 127.0.0.1 in front of an in-process sandbox rewrites every free-text field of every
// reply (concepto, referencia, codigo, url, nombre, message…) into a string full of
// escape sequences, C1 controls and bidi overrides. Every printing command runs
// in-process through main(), piped, on a (forced) terminal, and with colour: its
// output holds no control character but svc's own colours, shows the hostile string
// whole and visibly, keeps TSV columns, and --json stays byte for byte what was sent.
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/main.js';
import { tempDir } from '../helpers/cli.js';
import { fixture, sandbox, type Fixture, type HSandbox } from '../helpers/fixtures.js';
import { HOSTILE_SHOWN, hostileProxy, RAW_UNSAFE, SGR, type Hostile } from './terminal-hostile.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** main() in-process with captured streams; `tty` forces the terminal decisions (SVC_FORCE_TTY). */
async function run(argv: string[], env: Record<string, string>, input = ''): Promise<Run> {
  const sink = () => {
    const chunks: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        chunks.push(String(chunk));
        done();
      },
    });
    return { stream, text: () => chunks.join('') };
  };
  const out = sink();
  const err = sink();
  const stdin = Readable.from(input ? [Buffer.from(input)] : []);
  const code = await main(argv, {
    stdout: out.stream,
    stderr: err.stream,
    stdin,
    env: { SVC_CONFIG_DIR: tempDir('svc-config-'), SVC_DATA_DIR: tempDir('svc-data-'), SVC_KEYRING: 'off', ...env },
  });
  return { code, stdout: out.text(), stderr: err.text() };
}

const MODES = {
  piped: { NO_COLOR: '1' },
  terminal: { NO_COLOR: '1', SVC_FORCE_TTY: '1' },
  colour: { FORCE_COLOR: '1', SVC_FORCE_TTY: '1' },
} as const;
type Mode = keyof typeof MODES;

let sb: HSandbox;
let fx: Fixture;
let proxy: Hostile;
let pending: number[];
let env: Record<string, string>;

beforeAll(async () => {
  sb = await sandbox();
  fx = await fixture(sb);
  // One unpaid request per mode for `sandbox pagar`.
  pending = [];
  for (let i = 0; i < 3; i++) pending.push((await sb.api('POST', '/v1/cobros', { concepto: 'Pedido', monto: '10.00' })).body.data.id);
  proxy = await hostileProxy(sb.baseUrl);
  env = { SVC_BASE_URL: proxy.baseUrl, SVC_API_KEY: sb.apiKey };
});
afterAll(async () => {
  await proxy?.close();
  await sb?.close();
});

interface Case {
  argv: (mode: Mode, i: number) => string[];
  /** Rows of a piped table, or key<TAB>value lines of a piped record. */
  piped?: 'table' | 'record';
  exit?: number;
  input?: () => string;
  /** Where the hostile string must show (default: stdout). */
  on?: 'stdout' | 'stderr';
  /** An error line: the message on one line, line breaks as a space. */
  error?: boolean;
  /** The command shortens the value (shown up to a length, then "…"). */
  cut?: boolean;
  /** The command prints no free-text field (the check is then that nothing unsafe got through). */
  none?: boolean;
}

const CASES: Record<string, Case> = {
  'cobro ver': { argv: () => ['cobro', 'ver', String(fx.cobroId)], piped: 'record' },
  'cobro listar': { argv: () => ['cobro', 'listar'], piped: 'table' },
  // Its columns are ids, amounts, enums and dates: nothing hostile can show.
  'transacciones listar': { argv: () => ['transacciones', 'listar'], piped: 'table', none: true },
  'transacciones ver': { argv: () => ['transacciones', 'ver', String(fx.txId)], piped: 'record' },
  // Refunds and settlements carry no free text: their tipo and estado are enums the client checks.
  'devoluciones listar': { argv: () => ['devoluciones', 'listar'], piped: 'table', none: true },
  'devoluciones ver': { argv: () => ['devoluciones', 'ver', String(fx.devId)], piped: 'record', none: true },
  liquidaciones: { argv: () => ['liquidaciones'], piped: 'table', none: true },
  cuenta: { argv: () => ['cuenta'], piped: 'record' },
  salud: { argv: () => ['salud'], piped: 'record' },
  cargos: { argv: () => ['cargos'], piped: 'table' },
  sync: { argv: () => ['sync', String(fx.cobroId), '--yes'], piped: 'record' },
  'cobro sync': { argv: () => ['cobro', 'sync', String(fx.cobroId), '--yes'], piped: 'record' },
  'cobro crear': { argv: () => ['cobro', 'crear', '--concepto', 'Pedido', '--monto', '10.00', '--yes'], piped: 'record' },
  // The preview (cobro, concepto) is on stderr; the refund record on stdout.
  devolver: { argv: () => ['devolver', String(fx.refundableId), '--monto', '1.00', '--yes'], piped: 'record', on: 'stderr' },
  'sandbox pagar': { argv: (_m, i) => ['sandbox', 'pagar', String(pending[i])], piped: 'record' },
  login: { argv: () => ['login', '--with-key-stdin'], input: () => `${sb.apiKey}\n`, on: 'stderr', cut: true },
  'an error from the service': { argv: () => ['cobro', 'ver', '999999'], exit: 5, on: 'stderr', error: true },
};

function expectSafe(r: Run, label: string, mode: Mode): void {
  for (const [name, text] of [['stdout', r.stdout], ['stderr', r.stderr]] as const) {
    // The hostile string's own SGR never passes; svc's colours are the only escapes left.
    expect(text.includes('\u001b[5;32m'), `${label} ${name}: hostile SGR`).toBe(false);
    if (mode !== 'colour') expect(text.includes('\u001b'), `${label} ${name}: an escape without colour`).toBe(false);
    const m = RAW_UNSAFE.exec(text.replace(SGR, ''));
    expect(m ? `U+${m[0].codePointAt(0)!.toString(16)} at ${m.index}: ${JSON.stringify(text.slice(Math.max(0, m.index - 40), m.index + 40))}` : null, `${label} ${name}`).toBeNull();
  }
}

/** JSON text with nothing raw a terminal could act on (its line breaks and indentation aside). */
function expectJsonSafe(text: string, label: string): void {
  const m = RAW_UNSAFE.exec(text);
  expect(m ? `U+${m[0].codePointAt(0)!.toString(16)} at ${m.index}` : null, label).toBeNull();
}

describe('every printing command shows a hostile service safely', () => {
  for (const [name, c] of Object.entries(CASES)) {
    it(`${name}: piped, on a terminal and in colour`, async () => {
      for (const [i, mode] of (Object.keys(MODES) as Mode[]).entries()) {
        const label = `svc ${c.argv(mode, i).join(' ')} (${mode})`;
        const r = await run(c.argv(mode, i), { ...env, ...MODES[mode] }, c.input?.());
        expect(r.code, `${label}\n${r.stderr}`).toBe(c.exit ?? 0);
        expectSafe(r, label, mode);
        const where = (c.on === 'stderr' ? r.stderr : r.stdout).replace(SGR, '');
        if (c.error) {
          // One error line, the whole message visible: its line break became a space.
          expect(where, label).toContain(HOSTILE_SHOWN.replace(String.raw`\r\n\t`, ' '));
          expect(where.trim().split('\n').filter((l) => l.startsWith('error:')), label).toHaveLength(1);
        } else if (c.cut) {
          expect(where, label).toContain(`${HOSTILE_SHOWN.slice(0, 60)}`);
        } else if (!c.none) {
          expect(where, label).toContain(HOSTILE_SHOWN);
        }
        if (mode === 'piped' && c.piped) {
          const rows = r.stdout.split('\n').filter(Boolean);
          const tabs = new Set(rows.map((l) => l.split('\t').length));
          // A tab or a line break inside a value would have added a column or a row.
          expect(tabs.size, `${label}: TSV columns\n${r.stdout}`).toBe(1);
          if (c.piped === 'record') expect([...tabs][0], label).toBe(2);
        }
      }
    });
  }
});

describe('--json: byte for byte what the service sent when piped, the same value with \\u escapes on a terminal', () => {
  it.each([
    ['cobro ver', () => ['cobro', 'ver', String(fx.cobroId)], () => `/v1/cobros/${fx.cobroId}`],
    ['cobro listar', () => ['cobro', 'listar'], () => '/v1/cobros'],
    ['cuenta', () => ['cuenta'], () => '/v1/cuenta'],
    ['api', () => ['api', 'GET', `/v1/cobros/${fx.cobroId}`], () => `/v1/cobros/${fx.cobroId}`],
  ])('%s --json', async (name, argv, path) => {
    const json = name === 'api' ? [] : ['--json'];
    for (const mode of ['piped', 'terminal'] as Mode[]) {
      const r = await run([...argv(), ...json], { ...env, ...MODES[mode] });
      expect(r.code, r.stderr).toBe(0);
      const sent = JSON.parse(proxy.sent.get(path())!) as { data: unknown };
      const expected = name === 'api' ? sent : sent.data;
      if (mode === 'piped') {
        expect(r.stdout).toBe(`${JSON.stringify(expected, null, 2)}\n`);
        expect(r.stdout).toContain('\u202e');
      } else {
        // jq reads the same data; the terminal gets no C1, bidi or line separator to act on.
        expect(JSON.parse(r.stdout)).toStrictEqual(expected);
        expectJsonSafe(r.stdout, `${name} (terminal)`);
        expect(r.stdout).toContain(String.raw`\u202e`);
      }
    }
  });
});
