// Issue #19 point 9 and #29.9: outside text cannot drive the user's terminal. A proxy on
// 127.0.0.1 in front of an in-process sandbox rewrites every free-text field of every
// reply (concepto, referencia, codigo, url, nombre, message, a log line's path, a
// delivery's error…) into a string full of escape sequences, C1 controls and bidi
// overrides; a journal, a bank statement and an app say the same. The matrix is built
// from the command tree (src/cli/registry.ts): every command is either run here, or
// declared as printing only svc's own text, or named with the test that covers it
// elsewhere, so a new command fails the first test until it is placed. Each one runs
// in-process through main() in every output format it has (its table, record or lines,
// --json, --csv for lists, --markdown where it exists), piped, on a (forced) terminal
// and with colour: nothing but svc's own colours reaches a terminal, the hostile string
// shows whole and visibly, TSV keeps its columns, and --json stays byte for byte what
// was sent when piped.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/main.js';
import { commands } from '../../src/cli/registry.js';
import { encodeBody } from '../../src/webhooks/event-journal.js';
import { signatureHeader } from '../../src/webhooks/signature.js';
import { ownFolders, tempDir } from '../helpers/cli.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
import { closedPort, fixture, type Fixture } from '../helpers/fixtures.js';
import { journalEntryAs } from '../helpers/journal.js';
import {
  HOSTILE,
  HOSTILE_SHOWN,
  hostileProxy,
  RAW_UNSAFE,
  SGR,
  type Hostile,
} from './terminal-hostile.js';

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
    env: { ...ownFolders(env), SVC_KEYRING: 'off', ...env },
  });
  return { code, stdout: out.text(), stderr: err.text() };
}

// No pager: a long list on a (forced) terminal would go to `less` instead of the captured stdout.
const MODES = {
  piped: { NO_COLOR: '1' },
  // Wide enough that no line is broken at spaces: these read whole escaped values.
  terminal: { NO_COLOR: '1', SVC_FORCE_TTY: '1', SVC_PAGER: '', COLUMNS: '1000' },
  colour: { FORCE_COLOR: '1', SVC_FORCE_TTY: '1', SVC_PAGER: '', COLUMNS: '1000' },
} as const;
type Mode = keyof typeof MODES;

let sb: InProcessSandbox;
let fx: Fixture;
let proxy: Hostile;
let app: Server;
let appUrl: string;
let pending: number[];
let env: Record<string, string>;
let journal: string;
let statement: string;
let signed: { body: string; timestamp: string; signature: string };
let configDir: string;
const SECRET = 'whsec_terminal_matrix_secret_01';

/** An app that answers every notification 500 with a hostile body and header. */
async function hostileApp(): Promise<Server> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`${HOSTILE}\n\u001b[5;32mOK`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** A journal whose every text field is hostile: what a stranger posts and an app answers, as the listener keeps it. */
function hostileJournal(cobroId: number, dir: string): string {
  const file = join(dir, 'webhooks.jsonl');
  const body = JSON.stringify({
    event: HOSTILE,
    cobro_id: cobroId,
    estado: HOSTILE,
    monto: HOSTILE,
  });
  // An app's answer as a hand-edited journal may hold it: names and values of headers, the body.
  const answer = {
    headers: { 'content-type': HOSTILE, [HOSTILE]: 'x' },
    ...encodeBody(Buffer.from(`\u001b[5;32m${HOSTILE}`)),
  };
  const entries = [
    journalEntryAs('evt_hostil_1', {
      cobro_id: cobroId,
      event: 'payment.approved',
      estado: 'PAGADA',
      method: HOSTILE,
      replay_of: HOSTILE,
      headers: { 'content-type': HOSTILE, 'x-svc-event': HOSTILE, [HOSTILE]: 'x' },
      ...encodeBody(Buffer.from(body)),
      outcome: 'target_error',
      target: `http://127.0.0.1:9/${encodeURIComponent(HOSTILE)}`,
      status: 500,
      answered: 500,
      latency_ms: 3,
      response: answer,
    }),
    // A stranger's post: it did not verify.
    journalEntryAs('evt_hostil_2', {
      cobro_id: cobroId,
      event: HOSTILE,
      estado: HOSTILE,
      monto: HOSTILE,
      path: `/${HOSTILE}`,
      ...encodeBody(Buffer.from(body)),
      verification: { valid: false, reason: HOSTILE, message: HOSTILE },
      outcome: 'rejected',
      answered: 401,
    }),
    // A replay of the first that could not reach the app.
    journalEntryAs('evt_hostil_3', {
      source: 'replay',
      replay_of: 'evt_hostil_1',
      cobro_id: cobroId,
      event: 'payment.approved',
      ...encodeBody(Buffer.from(body)),
      outcome: 'unreachable',
      target: 'http://127.0.0.1:9/',
      error: HOSTILE,
      response_start: HOSTILE,
    }),
  ];
  writeFileSync(file, entries.map((e) => JSON.stringify(e)).join('\n') + '\n');
  return file;
}

beforeAll(async () => {
  sb = await startSandbox();
  fx = await fixture(sb);
  // Delivery attempts that fail (a closed port): `sandbox entregas` has errors and URLs to show.
  await sb.api('POST', '/_sandbox/webhook', { url: `http://127.0.0.1:${await closedPort()}/hook` });
  // Unpaid requests for the commands that pay, reject or expire one per run.
  pending = [];
  for (let i = 0; i < 40; i++)
    pending.push(
      (await sb.api('POST', '/v1/cobros', { concepto: 'Pedido', monto: '10.00' })).body.data.id,
    );
  await sb.api('POST', `/_sandbox/cobros/${pending.pop()!}/pagar`, {});
  proxy = await hostileProxy(sb.baseUrl);
  app = await hostileApp();
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/hook`;
  const dir = tempDir('svc-matrix-');
  journal = hostileJournal(fx.cobroId, dir);
  // A bank statement whose unexpected credit carries the hostile concept (CSV-quoted).
  statement = join(dir, 'extracto.csv');
  writeFileSync(
    statement,
    `Fecha,Descripción,Importe\n2026-11-26,"${HOSTILE.replace(/"/g, '""')}",123.45\n`,
  );
  // A notification with a good signature whose every text field is hostile.
  const body = JSON.stringify({
    event: HOSTILE,
    cobro_id: 1,
    codigo: HOSTILE,
    estado: HOSTILE,
    monto: HOSTILE,
  });
  const timestamp = String(Math.floor(Date.now() / 1000));
  signed = {
    body: join(dir, 'body.json'),
    timestamp,
    signature: signatureHeader(SECRET, timestamp, body),
  };
  writeFileSync(signed.body, body);
  // A config file edited by hand: a hostile profile name and address.
  configDir = join(dir, 'config');
  mkdirSync(configDir, { mode: 0o700 });
  writeFileSync(
    join(configDir, 'config.json'),
    JSON.stringify({
      current: HOSTILE,
      profiles: { [HOSTILE]: { base_url: `http://127.0.0.1:9/${HOSTILE}`, test_key: sb.apiKey } },
    }),
    { mode: 0o600 },
  );
  env = { SVC_BASE_URL: proxy.baseUrl, SVC_API_KEY: sb.apiKey, SVC_WEBHOOK_SECRET: SECRET };
});
afterAll(async () => {
  await proxy?.close();
  await new Promise((r) => app?.close(r));
  await sb?.close();
});

/** The next unpaid request (one per run of a command that changes it). */
const next = () => {
  const id = pending.pop();
  if (id === undefined)
    throw new Error('the matrix ran out of unpaid requests: add more in beforeAll');
  return String(id);
};

interface Case {
  argv: () => string[];
  /** Environment of its own, over the matrix's. */
  env?: () => Record<string, string>;
  /** Rows of a piped table, or key<TAB>value lines of a piped record. */
  piped?: 'table' | 'record';
  exit?: number;
  /** Exit code with --json, when it differs. */
  jsonExit?: number;
  input?: () => string;
  /** Where the hostile string must show (default: stdout). */
  on?: 'stdout' | 'stderr';
  /** An error line: the message on one line, line breaks as a space. */
  error?: boolean;
  /** The command shortens the value (shown up to a length, then "…"). */
  cut?: boolean;
  /** The command prints no free-text field (the check is then that nothing unsafe got through). */
  none?: boolean;
  /** --json is NDJSON: one JSON document a line. */
  jsonLines?: boolean;
  /** Its output is JSON whatever the flags (checked as --json is). */
  jsonOnly?: boolean;
  /** What must show instead of the hostile string whole (a command that quotes a longer text around it). */
  shows?: string;
}

const withJournal = () => ['--journal', journal];

const CASES: Record<string, Case> = {
  'cobro ver': { argv: () => ['cobro', 'ver', String(fx.cobroId)], piped: 'record' },
  'cobro listar': { argv: () => ['cobro', 'listar'], piped: 'table' },
  // Its columns are ids, amounts, enums and dates: nothing hostile can show.
  'transacciones listar': { argv: () => ['transacciones', 'listar'], piped: 'table', none: true },
  'transacciones ver': { argv: () => ['transacciones', 'ver', String(fx.txId)], piped: 'record' },
  // Refunds and settlements carry no free text: their tipo and estado are enums the client checks.
  'devoluciones listar': { argv: () => ['devoluciones', 'listar'], piped: 'table', none: true },
  'devoluciones ver': {
    argv: () => ['devoluciones', 'ver', String(fx.devId)],
    piped: 'record',
    none: true,
  },
  liquidaciones: { argv: () => ['liquidaciones'], piped: 'table', none: true },
  // The statement's concept (a file) on the unexpected credit's row; exit 1, mismatch.
  'liquidaciones conciliar': {
    argv: () => ['liquidaciones', 'conciliar', statement],
    piped: 'table',
    exit: 1,
    shows: String.raw`línea 2: Pedido\u001b]0;pwned\u0007\u001b[2J\u001b[5;32mPAGADA`,
  },
  cuenta: { argv: () => ['cuenta'], piped: 'record' },
  salud: { argv: () => ['salud'], piped: 'record' },
  diagnostico: { argv: () => ['diagnostico'], piped: 'record' },
  cargos: { argv: () => ['cargos'], piped: 'table' },
  sync: { argv: () => ['sync', String(fx.cobroId), '--yes'], piped: 'record' },
  'cobro sync': { argv: () => ['cobro', 'sync', String(fx.cobroId), '--yes'], piped: 'record' },
  'cobro crear': {
    argv: () => ['cobro', 'crear', '--concepto', 'Pedido', '--monto', '10.00', '--yes'],
    piped: 'record',
  },
  // The preview (cobro, concepto) is on stderr; the refund record on stdout.
  devolver: {
    argv: () => ['devolver', String(fx.refundableId), '--monto', '1.00', '--yes'],
    piped: 'record',
    on: 'stderr',
  },
  // The service's record and the journal's events of that request (one with a hostile answer).
  caso: { argv: () => ['caso', String(fx.cobroId), ...withJournal()], cut: true },
  'sandbox pagar': { argv: () => ['sandbox', 'pagar', next()], piped: 'record' },
  'sandbox rechazar': { argv: () => ['sandbox', 'rechazar', next()], none: true },
  'sandbox expirar': { argv: () => ['sandbox', 'expirar', next()], none: true },
  // Paths of requests (the proxy rewrites them) and the deliveries' URLs and errors.
  'sandbox log': { argv: () => ['sandbox', 'log', '--limit', '5'], cut: true, jsonLines: true },
  'sandbox entregas': {
    argv: () => ['sandbox', 'entregas', '--limit', '5'],
    cut: true,
    jsonLines: true,
  },
  'sandbox escenario': { argv: () => ['sandbox', 'escenario', 'exportar'], jsonOnly: true },
  'sandbox iniciar': { argv: () => ['sandbox', 'iniciar', next()], piped: 'record' },
  // The event name and the URL the sandbox answers with.
  'sandbox reenviar': { argv: () => ['sandbox', 'reenviar', '1'], on: 'stderr', cut: true },
  // The route as the sandbox echoes it (a route no command here calls: the fault stays armed, unused).
  'sandbox fallas': {
    argv: () => ['sandbox', 'fallas', 'agregar', '--ruta', '/v1/nada', '--tipo', '500'],
    on: 'stderr',
    cut: true,
  },
  'sandbox fallas (listar)': { argv: () => ['sandbox', 'fallas', 'listar'], cut: true },
  'sandbox reloj': { argv: () => ['sandbox', 'reloj'], none: true },
  // The notification URL the sandbox answers with.
  'sandbox webhook': { argv: () => ['sandbox', 'webhook'], on: 'stderr', cut: true },
  // A notification whose signature is good and whose fields are not.
  'webhook verify': {
    argv: () => [
      'webhook',
      'verify',
      '--body',
      signed.body,
      '--timestamp',
      signed.timestamp,
      '--signature',
      signed.signature,
    ],
    cut: true,
  },
  // The hostile app answers every case 500: statuses are all probar prints of it.
  'webhook probar': {
    argv: () => ['webhook', 'probar', '--forward-to', appUrl],
    exit: 1,
    none: true,
  },
  // A hand-edited config file: the profile's name and address.
  'perfil listar': {
    argv: () => ['perfil', 'listar'],
    env: () => ({ SVC_CONFIG_DIR: configDir }),
    cut: true,
  },
  login: {
    argv: () => ['login', '--with-key-stdin'],
    input: () => `${sb.apiKey}\n`,
    on: 'stderr',
    cut: true,
  },
  api: { argv: () => ['api', 'GET', `/v1/cobros/${fx.cobroId}`], jsonOnly: true },
  // The journal: what a stranger posted and what the app answered.
  'webhook ver': { argv: () => ['webhook', 'ver', 'evt_hostil_1', ...withJournal()], cut: true },
  'webhook eventos': {
    argv: () => ['webhook', 'eventos', ...withJournal()],
    piped: 'table',
    cut: true,
  },
  'webhook conciliar': {
    argv: () => ['webhook', 'conciliar', ...withJournal()],
    exit: 1,
    none: true,
    jsonLines: true,
  },
  // What the app answered: 500 with a hostile body.
  'webhook trigger': {
    argv: () => ['webhook', 'trigger', 'payment.approved', '--forward-to', appUrl],
    exit: 1,
    none: true,
  },
  'webhook replay': {
    argv: () => ['webhook', 'replay', 'evt_hostil_3', '--forward-to', appUrl, ...withJournal()],
    exit: 1,
    cut: true,
  },
};

/**
 * Commands that print only svc's own words, numbers it computed and what the person
 * typed: no text from the service, a journal, a file or an app. Each says why.
 */
const OWN_TEXT: Record<string, string> = {
  version: "svc's version and Node's",
  completion: 'scripts written from the command tree',
  comandos: 'the command tree',
  demo: 'runs its own sandbox and app; its lines are its own steps',
  'perfil usar': 'the profile name the person typed',
  'perfil borrar': 'the profile name the person typed',
  logout: 'the profile name the person typed',
  'sandbox compactar': 'sizes and counts of the data file',
  'webhook sign': 'a signature and headers svc computed',
  // Its request lines: a date, a method and a path, which Node's HTTP parser admits only
  // as visible ASCII (a control or non-ASCII byte in the request line is a 400 before svc sees it).
  sandbox: 'its own banner and request lines (method and path: visible ASCII by the HTTP parser)',
};

/** Commands whose outside text is checked by another test (long-running, or not a terminal). */
const ELSEWHERE: Record<string, string> = {
  'webhook listen':
    'test/output/terminal-spawn.test.ts "listen: …" (a long-running listener, spawned)',
  mcp: 'JSON-RPC to an assistant, not a terminal: test/mcp/stdio.test.ts "a stranger’s text in the journal comes back only as data…"',
};

type Format = 'default' | 'json' | 'csv' | 'markdown';

/** The output formats a command has, read from its definition. */
function formatsOf(name: string): Format[] {
  const def = commands.find((c) => c.name === name);
  if (!def) return ['default'];
  const flags = (def.options ?? []).map((o) => o.flags);
  return [
    'default',
    'json',
    ...(def.csv ? (['csv'] as const) : []),
    ...(flags.some((f) => f.startsWith('--markdown')) ? (['markdown'] as const) : []),
  ];
}

const FORMAT_FLAGS: Record<Format, string[]> = {
  default: [],
  json: ['--json'],
  csv: ['--csv'],
  markdown: ['--markdown'],
};

describe('the matrix is the command tree', () => {
  it('every command is run here, declared as printing only its own text, or named with the test that covers it', () => {
    const names = commands.map((c) => c.name);
    // A command may have variants in CASES: "sandbox fallas (listar)".
    const cased = new Set(Object.keys(CASES).map((k) => k.replace(/ \(.*\)$/, '')));
    const placed = names.filter(
      (n) => [cased.has(n), n in OWN_TEXT, n in ELSEWHERE].filter(Boolean).length === 1,
    );
    expect(
      names.filter((n) => !placed.includes(n)),
      'commands in none of CASES, OWN_TEXT, ELSEWHERE (or in more than one)',
    ).toEqual([]);
    const known = new Set(names);
    expect(
      [...cased, ...Object.keys(OWN_TEXT), ...Object.keys(ELSEWHERE)].filter((n) => !known.has(n)),
      'names that are no command',
    ).toEqual([]);
  });
});

function expectSafe(r: Run, label: string, mode: Mode): void {
  for (const [name, text] of [
    ['stdout', r.stdout],
    ['stderr', r.stderr],
  ] as const) {
    // The hostile string's own SGR never passes; svc's colours are the only escapes left.
    expect(text.includes('\u001b[5;32m'), `${label} ${name}: hostile SGR`).toBe(false);
    if (mode !== 'colour')
      expect(text.includes('\u001b'), `${label} ${name}: an escape without colour`).toBe(false);
    const m = RAW_UNSAFE.exec(text.replace(SGR, ''));
    expect(
      m
        ? `U+${m[0].codePointAt(0)!.toString(16)} at ${m.index}: ${JSON.stringify(text.slice(Math.max(0, m.index - 40), m.index + 40))}`
        : null,
      `${label} ${name}`,
    ).toBeNull();
  }
}

/** Output of --json: one document, or one a line (NDJSON); nothing on stdout is allowed (an error). */
function parseJson(text: string, c: Case, label: string): void {
  if (!text) return;
  const docs = c.jsonLines ? text.split('\n').filter(Boolean) : [text];
  for (const d of docs) expect(() => JSON.parse(d), `${label}: ${d.slice(0, 200)}`).not.toThrow();
}

/** JSON text with nothing raw a terminal could act on (its line breaks and indentation aside). */
function expectJsonSafe(text: string, label: string): void {
  const m = RAW_UNSAFE.exec(text);
  expect(m ? `U+${m[0].codePointAt(0)!.toString(16)} at ${m.index}` : null, label).toBeNull();
}

describe('every printing command shows a hostile service safely', () => {
  for (const [name, c] of Object.entries(CASES)) {
    for (const format of formatsOf(name.replace(/ \(.*\)$/, ''))) {
      it(`${name}${format === 'default' ? '' : ` --${format}`}: piped, on a terminal and in colour`, async () => {
        for (const mode of Object.keys(MODES) as Mode[]) {
          const argv = [...c.argv(), ...FORMAT_FLAGS[format]];
          const label = `svc ${argv.join(' ')} (${mode})`;
          const r = await run(argv, { ...env, ...c.env?.(), ...MODES[mode] }, c.input?.());
          expect(r.code, `${label}\n${r.stderr}\n${r.stdout}`).toBe(
            format === 'json' ? (c.jsonExit ?? c.exit ?? 0) : (c.exit ?? 0),
          );
          const json = format === 'json' || c.jsonOnly;
          if (mode === 'piped' && (json || format === 'csv')) {
            // Piped, --json and --csv are the data as sent (a spreadsheet's formulas aside): only stderr is for a person.
            expectSafe({ ...r, stdout: '' }, label, mode);
            if (json) parseJson(r.stdout, c, label);
            continue;
          }
          if (json) {
            expectSafe({ ...r, stdout: '' }, label, mode);
            expectJsonSafe(r.stdout, label);
            parseJson(r.stdout, c, label);
            continue;
          }
          // CSV ends its rows with CRLF (RFC 4180); any other CR is a value's.
          expectSafe(
            format === 'csv' ? { ...r, stdout: r.stdout.replace(/\r\n/g, '\n') } : r,
            label,
            mode,
          );
          if (format !== 'default') continue;
          const where = (c.on === 'stderr' ? r.stderr : r.stdout).replace(SGR, '');
          if (c.error) {
            // One error line, the whole message visible: its line break became a space.
            expect(where, label).toContain(HOSTILE_SHOWN.replace(String.raw`\r\n\t`, ' '));
            expect(
              where
                .trim()
                .split('\n')
                .filter((l) => l.startsWith('error:')),
              label,
            ).toHaveLength(1);
          } else if (c.shows) {
            expect(where, label).toContain(c.shows);
          } else if (c.cut) {
            expect(where, label).toContain(`${HOSTILE_SHOWN.slice(0, 30)}`);
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
  }

  it('an error from the service: one line, piped, on a terminal and in colour', async () => {
    for (const mode of Object.keys(MODES) as Mode[]) {
      const argv = ['cobro', 'ver', '999999'];
      const label = `svc ${argv.join(' ')} (${mode})`;
      const r = await run(argv, { ...env, ...MODES[mode] });
      expect(r.code, `${label}\n${r.stderr}`).toBe(5);
      expectSafe(r, label, mode);
      const where = r.stderr.replace(SGR, '');
      expect(where, label).toContain(HOSTILE_SHOWN.replace(String.raw`\r\n\t`, ' '));
      expect(
        where
          .trim()
          .split('\n')
          .filter((l) => l.startsWith('error:')),
        label,
      ).toHaveLength(1);
    }
  });
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
