// The one terminal sanitizer (src/text.ts): what is unsafe, how it is shown, and that
// the shown form can never be mistaken for data (a quoted value is a JSON string).
import { describe, expect, it } from 'vitest';
import {
  isUnsafe,
  notJson,
  oneLine,
  printable,
  shown,
  terminalGuard,
  wrapWords,
} from '../../src/text.js';

const UNSAFE: [string, string, string][] = [
  ['ESC (CSI clear screen)', 'a\u001b[2Jb', String.raw`"a\u001b[2Jb"`],
  ['OSC title with BEL', '\u001b]0;t\u0007', String.raw`"\u001b]0;t\u0007"`],
  [
    'OSC 8 link with ST',
    '\u001b]8;;https://x/\u001b\\y',
    String.raw`"\u001b]8;;https://x/\u001b\\y"`,
  ],
  ['DCS', '\u001bPq#0\u001b\\', String.raw`"\u001bPq#0\u001b\\"`],
  ['NUL', 'a\u0000', String.raw`"a\u0000"`],
  ['DEL', 'a\u007f', String.raw`"a\u007f"`],
  ['C1 CSI', '\u009b2J', String.raw`"\u009b2J"`],
  ['C1 NEL', 'a\u0085b', String.raw`"a\u0085b"`],
  ['tab, CR, LF', 'a\tb\r\nc', String.raw`"a\tb\r\nc"`],
  ...['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'].map(
    (ch): [string, string, string] => [
      `bidi U+${ch.charCodeAt(0).toString(16)}`,
      `x${ch}y`,
      `"x\\u${ch.charCodeAt(0).toString(16)}y"`,
    ],
  ),
  ['LRM', 'a\u200eb', String.raw`"a\u200eb"`],
  ['ALM', 'a\u061cb', String.raw`"a\u061cb"`],
  ['zero-width space', 'PA\u200bGADA', String.raw`"PA\u200bGADA"`],
  ['zero-width joiner between letters', 'PA\u200dGADA', String.raw`"PA\u200dGADA"`],
  ['word joiner', 'a\u2060b', String.raw`"a\u2060b"`],
  ['BOM', '\ufeffa', String.raw`"\ufeffa"`],
  ['soft hyphen', 'a\u00adb', String.raw`"a\u00adb"`],
  ['line separator', 'a\u2028b', String.raw`"a\u2028b"`],
  ['Hangul filler', 'a\u3164b', String.raw`"a\u3164b"`],
  ['tag character', 'a\u{E0041}', String.raw`"a\udb40\udc41"`],
  ['lone surrogate', 'a\ud800', String.raw`"a\ud800"`],
];

describe('shown', () => {
  it.each(UNSAFE)(
    '%s: quoted, escaped, and JSON.parse gives the value back',
    (_name, value, expected) => {
      expect(isUnsafe(value)).toBe(true);
      expect(shown(value)).toBe(expected);
      expect(JSON.parse(shown(value))).toBe(value);
    },
  );

  it.each([
    ['plain', 'Pedido 1042'],
    ['accents and ñ', 'Año: cañería Ñandú'],
    ['backslash', String.raw`C:\pedidos\x1b`],
    ['a quote inside', 'Pedido "urgente"'],
    ['emoji with variation selector', 'Gracias ❤️'],
    ['emoji ZWJ sequence', 'familia 👨‍👩‍👧 y 👍🏽‍♂️'],
    ['CJK and RTL letters', '注文 طلب'],
  ])('%s: as is', (_name, value) => {
    expect(isUnsafe(value)).toBe(false);
    expect(shown(value)).toBe(value);
  });

  it('a value that begins with a quote is quoted, so a quoted value always means "escaped"', () => {
    expect(shown(String.raw`"a\u001b"`)).toBe(String.raw`"\"a\\u001b\""`);
    expect(shown('\u001b')).toBe(String.raw`"\u001b"`);
    expect(shown(String.raw`"a\u001b"`)).not.toBe(shown('a\u001b'));
  });

  it('max shortens before escaping, never in half an escape or a surrogate pair', () => {
    expect(shown('x'.repeat(100), 10)).toBe(`${'x'.repeat(10)}…`);
    expect(shown('abc\u001b[2Jdef', 4)).toBe(String.raw`"abc\u001b"…`);
    expect(shown('ab😀', 3)).toBe('ab…');
  });
});

describe('printable, oneLine, terminalGuard', () => {
  it('printable escapes for use between quotes, quotes and backslashes included', () => {
    expect(printable('a\u001b[31m"b"\\')).toBe(String.raw`a\u001b[31m\"b\"\\`);
    expect(printable('x'.repeat(70))).toBe(`${'x'.repeat(60)}…`);
  });

  it('oneLine: line breaks become a space; unsafe makes the whole message quoted; our own quotes stay', () => {
    expect(oneLine('uno\n  dos\r\ntres')).toBe('uno dos tres');
    expect(oneLine('uno\u001b[2J\ndos')).toBe(String.raw`"uno\u001b[2J dos"`);
    expect(oneLine('"42" no es válido')).toBe('"42" no es válido');
  });

  it('terminalGuard keeps SGR colours, line breaks and tabs; escapes every other unsafe character', () => {
    expect(terminalGuard('\u001b[1mok\u001b[22m\n\tx')).toBe('\u001b[1mok\u001b[22m\n\tx');
    expect(terminalGuard('a\u001b]0;t\u0007\u001b[2J\u202e\r')).toBe(
      String.raw`a\u001b]0;t\u0007\u001b[2J\u202e\r`,
    );
    // Inside JSON text the escapes mean the same string.
    const json = JSON.stringify({ v: 'x\u202e\u0085y' });
    expect(JSON.parse(terminalGuard(json))).toEqual({ v: 'x\u202e\u0085y' });
  });
});

describe('wrapWords', () => {
  it('breaks prose at spaces within the width, a longer word alone, nothing lost', () => {
    const note =
      'sin lugar para FECHA, MONTO, FIRMA, RESULTADO, STATUS, LATENCIA (--json las trae)';
    const lines = wrapWords(note, 40);
    expect(lines).toEqual([
      'sin lugar para FECHA, MONTO, FIRMA,',
      'RESULTADO, STATUS, LATENCIA (--json las',
      'trae)',
    ]);
    expect(lines.join(' ')).toBe(note);
    expect(wrapWords(note, Infinity)).toEqual([note]);
    expect(wrapWords('a /una/ruta/muy/larga/que/no/entra b', 10)).toEqual([
      'a',
      '/una/ruta/muy/larga/que/no/entra',
      'b',
    ]);
    expect(wrapWords('cerámica ñandú', 8)).toEqual(['cerámica', 'ñandú']);
  });
});

describe('notJson: why a file is not JSON, in Spanish', () => {
  const why = (text: string) => {
    try {
      JSON.parse(text);
    } catch (err) {
      return notJson(err, text);
    }
    throw new Error('parsed');
  };
  it("names the line and column of the first bad character, never JSON.parse's English", () => {
    expect(why('{bad')).toBe('no es JSON válido (línea 1, columna 2)');
    expect(why('{\n  "a": 1,\n  b\n}')).toBe('no es JSON válido (línea 3, columna 3)');
    expect(why('{"a":')).toBe('no es JSON válido (termina antes de tiempo)');
  });
});
