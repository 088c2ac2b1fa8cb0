// Issue #19 point 9: a hostile service cannot drive the user's terminal. A proxy on
// 127.0.0.1 in front of an in-process sandbox rewrites every free-text field of every
// reply (concepto, referencia, codigo, url, nombre, message…) into a string full of
// escape sequences, C1 controls and bidi overrides. Every printing command runs
// in-process through main(), piped, on a (forced) terminal, and with colour: its
// output holds no control character but svc's own colours, shows the hostile string
// whole and visibly, keeps TSV columns, and --json stays byte for byte what was sent.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/main.js';
import { tempDir } from '../helpers/cli.js';
import { fixture, sandbox, type Fixture, type HSandbox } from './helpers.js';

/** Title, clear screen, a fake blinking green state, an OSC 8 link, RLO, LRI, C1 CSI and NEL, ZWSP, DEL, CR LF, TAB. */
export const HOSTILE =
  'Pedido\u001b]0;pwned\u0007\u001b[2J\u001b[5;32mPAGADA\u001b]8;;https://evil.example/\u001b\\clic\u001b]8;;\u001b\\' +
  '\u202egnp.exe\u2066\u009b2J\u0085\u200b\u007f\r\n\tfin';
/** How a value holding HOSTILE is shown: quoted, each unsafe character escaped (written out by hand, not computed). */
export const HOSTILE_SHOWN = String.raw`"Pedido\u001b]0;pwned\u0007\u001b[2J\u001b[5;32mPAGADA\u001b]8;;https://evil.example/\u001b\\clic\u001b]8;;\u001b\\\u202egnp.exe\u2066\u009b2J\u0085\u200b\u007f\r\n\tfin"`;

/** Raw characters a terminal could act on or hide (line feed and tab aside). */
// eslint-disable-next-line no-control-regex
const RAW_UNSAFE = /(?![\n\t])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
/** svc's own colours. */
// eslint-disable-next-line no-control-regex
const SGR = /\u001b\[[0-9;]*m/g;

/** Free-text fields of the wire schemas (the others are enums, amounts or dates the client checks). */
const POISON = new Set(['codigo', 'concepto', 'referencia', 'url', 'cvu', 'qr', 'success_url', 'error_url', 'nombre', 'email', 'label', 'tipo', 'name', 'version', 'message']);

function poison(value: unknown, liquidaciones: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => poison(v, liquidaciones));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    // A settlement's estado is free text in the schema; a payment's is an enum.
    out[k] = typeof v === 'string' && (POISON.has(k) || (liquidaciones && k === 'estado')) ? HOSTILE : poison(v, liquidaciones);
  }
  return out;
}

interface Hostile {
  baseUrl: string;
  /** The last body sent for each path (to compare --json with). */
  sent: Map<string, string>;
  close(): Promise<void>;
}

async function hostileProxy(target: string): Promise<Hostile> {
  const up = new URL(target);
  const sent = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    const out = request({ host: up.hostname, port: up.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (c: Buffer) => chunks.push(c));
      answer.on('end', () => {
        let body = Buffer.concat(chunks).toString('utf8');
        if (String(answer.headers['content-type'] ?? '').includes('json') && body) {
          const path = (req.url ?? '').split('?')[0]!;
          body = JSON.stringify(poison(JSON.parse(body), path.startsWith('/v1/liquidaciones')));
          sent.set(path, body);
        }
        const headers = { ...answer.headers, 'content-length': String(Buffer.byteLength(body)) };
        delete headers['transfer-encoding'];
        res.writeHead(answer.statusCode ?? 502, headers);
        res.end(body);
      });
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

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
  'devoluciones listar': { argv: () => ['devoluciones', 'listar'], piped: 'table' },
  'devoluciones ver': { argv: () => ['devoluciones', 'ver', String(fx.devId)], piped: 'record' },
  liquidaciones: { argv: () => ['liquidaciones'], piped: 'table' },
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

describe('--json stays byte for byte what the service sent', () => {
  it.each([
    ['cobro ver', () => ['cobro', 'ver', String(fx.cobroId)], () => `/v1/cobros/${fx.cobroId}`],
    ['cobro listar', () => ['cobro', 'listar'], () => '/v1/cobros'],
    ['cuenta', () => ['cuenta'], () => '/v1/cuenta'],
    ['liquidaciones', () => ['liquidaciones'], () => '/v1/liquidaciones'],
    ['api', () => ['api', 'GET', `/v1/cobros/${fx.cobroId}`], () => `/v1/cobros/${fx.cobroId}`],
  ])('%s --json', async (name, argv, path) => {
    const json = name === 'api' ? [] : ['--json'];
    for (const mode of ['piped', 'terminal'] as Mode[]) {
      const r = await run([...argv(), ...json], { ...env, ...MODES[mode] });
      expect(r.code, r.stderr).toBe(0);
      const sent = JSON.parse(proxy.sent.get(path())!) as { data: unknown };
      const expected = name === 'api' ? sent : sent.data;
      expect(r.stdout).toBe(`${JSON.stringify(expected, null, 2)}\n`);
      expect(r.stdout).toContain('\u202e');
    }
  });
});
