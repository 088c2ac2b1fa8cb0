// Bad input: every flag with a value (and every id) of the commands that call the
// service gets wrong values — empty, 10,000 characters, control characters, wrong
// enums, non-integers, negatives, huge ids. Each is refused with exit 2 and one short
// line, and no request reaches the service (the sandbox's request log is unchanged).
// Also: what the service says is shown safely (control characters neutralised).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcSpawned, type SvcResult } from '../helpers/cli.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
import { expectOneErrorLine, lines, pool } from '../helpers/fixtures.js';
import { svc } from '../helpers/inproc.js';

let sb: InProcessSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(async () => {
  await sb?.close();
});

const LONG = 'x'.repeat(10_000);
const LONG_DIGITS = '9'.repeat(10_000);
const HUGE_ID = '99999999999999999999';
/** Control characters a value can carry in argv (NUL cannot). */
const CTRL = ['a\u001b[2Jb', 'a\u0007', 'a\nb', 'a\rb', 'a\u007fb'];

const BAD_INTS = [
  '',
  ' ',
  '0',
  '-1',
  '1.5',
  '1e3',
  '0x10',
  '+5',
  '４２',
  '42abc',
  'NaN',
  'Infinity',
  HUGE_ID,
  LONG_DIGITS,
  '4\n2',
  '\u001b[31m4',
];
// Any case and surrounding blanks are the same value (`--estado pagada`); these are not.
const badEnum = (good: string) => [
  '',
  ' ',
  `${good}S`,
  `${good},${good}`,
  'NOPE',
  LONG,
  `${good}\u0007`,
  `\u001b[31m${good}`,
];
// --estado and --medio are read openly (a service may add values): a word svc does not
// know is sent as typed (test/api/open-reading.test.ts); blanks, typos of a known value,
// controls and 10,000 characters are still refused before any request.
const badOpenEnum = (good: string) =>
  badEnum(good).filter((v) => v !== 'NOPE' && v !== `${good},${good}`);

interface Case {
  args: string[];
  label: string;
}

function cases(
  prefix: string[],
  flag: string | null,
  values: string[],
  suffix: string[] = [],
): Case[] {
  return values.map((v) => ({
    args: flag ? [...prefix, flag, v, ...suffix] : [...prefix, v, ...suffix],
    label: `svc ${prefix.join(' ')} ${flag ?? '<id>'} ${JSON.stringify(v.length > 30 ? `${v.slice(0, 12)}…(${v.length})` : v)}`,
  }));
}

/**
 * Runs every case; each must be a usage error; then no request reached /v1/. The
 * matrix runs in-process through main(); with `spawnFirst` (once in this file) its first
 * case runs through the built binary, which proves the refusal reaches a real process's
 * stderr and exit code the same.
 */
async function expectAllRefused(list: Case[], spawnFirst = false): Promise<void> {
  const before = await sb.apiLog();
  const results = await pool(list, 4, (c, i) =>
    i === 0 && spawnFirst ? svcSpawned(c.args, { env: sb.env }) : svc(c.args, { env: sb.env }),
  );
  const failures: string[] = [];
  list.forEach((c, i) => {
    try {
      expectOneErrorLine(results[i] as SvcResult, 2, /^error: \S/, c.label);
    } catch (err) {
      failures.push(
        `${c.label}: ${(err as Error).message.split('\n').slice(0, 6).join(' | ').slice(0, 400)}`,
      );
    }
  });
  const after = await sb.apiLog();
  const reached = after.slice(before.length).map((e) => `${e.method} ${e.path}`);
  expect(failures, failures.join('\n')).toEqual([]);
  expect(reached, 'requests that reached the service').toEqual([]);
}

describe('read commands: wrong values are refused before any request (exit 2, one line)', () => {
  it('ids of cobro ver, transacciones ver, devoluciones ver', async () => {
    await expectAllRefused(
      [
        ...cases(['cobro', 'ver'], null, BAD_INTS),
        ...cases(['transacciones', 'ver'], null, ['', '-1', '1.5', HUGE_ID, LONG, 'a\u001b[2Jb']),
        ...cases(['devoluciones', 'ver'], null, ['', '0', 'abc', HUGE_ID, LONG_DIGITS, 'a\u0007']),
      ],
      true,
    );
  });

  it('cobro listar --estado, --limit; transacciones listar --medio, --estado', async () => {
    await expectAllRefused([
      ...cases(['cobro', 'listar'], '--estado', badOpenEnum('PAGADA')),
      ...cases(['cobro', 'listar'], '--limit', BAD_INTS),
      ...cases(['transacciones', 'listar'], '--medio', badOpenEnum('qr')),
      ...cases(['transacciones', 'listar'], '--estado', badOpenEnum('ACREDITADO')),
    ]);
  });

  it('cobro listar --q: empty, blank, 10,000 characters', async () => {
    await expectAllRefused(cases(['cobro', 'listar'], '--q', ['', '   ', LONG]));
  });

  it('cobro listar --q with control characters is refused, not sent to the service', async () => {
    await expectAllRefused(cases(['cobro', 'listar'], '--q', CTRL));
  });

  it('global --base-url and --profile on a read command', async () => {
    await expectAllRefused([
      ...cases(['cuenta'], '--base-url', [
        '',
        ' ',
        'ftp://example.com',
        'http://example.com',
        'not a url',
        'https://',
        `https://${LONG}.com`,
        'https://exa mple.com',
        'https://a\u0007b.com',
        'javascript:alert(1)',
      ]),
      ...cases(['cuenta'], '--profile', ['', '../../etc/passwd', LONG, 'a b', 'a\u001b[31mb', '-']),
    ]);
  });
});

describe('write commands: wrong values are refused before any request (exit 2, one line)', () => {
  it('cobro crear --monto, --concepto, --referencia', async () => {
    const ok = ['--concepto', 'Pedido'];
    await expectAllRefused([
      ...cases(['cobro', 'crear', ...ok], '--monto', [
        '',
        '-1',
        '0',
        '0.00',
        '1.001',
        '1,5',
        '1e3',
        'NaN',
        '１',
        ' 1 0',
        '1000000000.00',
        '1\u0007',
      ]),
      ...cases(['cobro', 'crear', '--monto', '10'], '--concepto', ['', '   ', LONG, ...CTRL]),
      ...cases(['cobro', 'crear', ...ok, '--monto', '10'], '--referencia', [
        LONG,
        'r\u0007',
        'r\nx',
      ]),
    ]);
  });

  it('cobro crear --vencimiento, --success-url, --error-url', async () => {
    const ok = ['cobro', 'crear', '--concepto', 'Pedido', '--monto', '10'];
    await expectAllRefused([
      ...cases(ok, '--vencimiento', [
        '',
        'pasado mañana',
        '2026-13-45',
        '2020-01-01',
        '+0d',
        '+-3d',
        LONG,
        '2026-12-24\u0007',
      ]),
      ...cases(ok, '--success-url', [
        '',
        'http://example.com',
        'javascript:alert(1)',
        'https://',
        `https://${LONG}.com`,
        'https://a\u0007b.com',
      ]),
      ...cases(ok, '--error-url', ['', 'ftp://example.com', 'not a url']),
    ]);
  });

  it('devolver <id>, --monto, --transaccion; sync <id>', async () => {
    await expectAllRefused([
      ...cases(['devolver'], null, ['', '0', '-1', HUGE_ID, LONG, 'a\u0007'], ['--total']),
      ...cases(['devolver', '1'], '--monto', ['', '-1', '0', '1.001', '1,5', 'abc']),
      ...cases(['devolver', '1', '--monto', '1'], '--transaccion', ['', '0', '-3', 'abc', HUGE_ID]),
      ...cases(['sync'], null, ['', '0', HUGE_ID, 'a\u001b[2Jb']),
    ]);
  });
});

describe('very long amounts', () => {
  it('a 10,000-character --monto (cobro crear, devolver) is refused with one short line, not echoed whole', async () => {
    await expectAllRefused([
      ...cases(['cobro', 'crear', '--concepto', 'Pedido'], '--monto', [
        LONG_DIGITS,
        LONG,
        `1.${LONG_DIGITS}`,
      ]),
      ...cases(['devolver', '1'], '--monto', [LONG_DIGITS, LONG]),
    ]);
  });
});

describe('what the service says is shown safely', () => {
  it('a service error message with escapes and newlines comes out as one line without control characters', async () => {
    await sb.clearFaults();
    await sb.fault({
      method: 'GET',
      path: '/v1/cuenta',
      count: 5,
      action: 'respond',
      status: 400,
      body: { error: 'bad_request', message: 'uno\u001b[2J\u001b]0;titulo\u0007\ndos\r\ntres' },
    });
    const r = await svcSpawned(['cuenta'], { env: sb.env });
    await sb.clearFaults();
    // Shown whole and visibly: quoted, each control as \uXXXX (src/text.ts), the line break as one space.
    expectOneErrorLine(
      r,
      1,
      /^error: bad_request \(HTTP 400\): "uno\\u001b\[2J\\u001b\]0;titulo\\u0007 dos tres"$/,
      'hostile service message',
    );
    expect(r.stderr.replace(/\n/g, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(lines(r.stderr)).toHaveLength(1);
  });
});
