// The edges of the terminal guard (src/text.ts), each of which a mutation of the code
// passed unseen: a value exactly as long as the limit is whole; a cut never splits a
// surrogate pair (half an emoji would be an unsafe lone surrogate); a multi-line
// message is one line with its ends trimmed; svc's own colours pass the guard while
// a lone ESC is escaped.
import { describe, expect, it } from 'vitest';
import { jsonGuard, oneLine, printable, shown, terminalGuard } from '../../src/text.js';

describe('the terminal guard at its edges', () => {
  it('a value exactly as long as the limit is shown whole; one more is cut', () => {
    expect(shown('abcde', 5)).toBe('abcde');
    expect(shown('abcdef', 5)).toBe('abcde…');
    expect(printable('a'.repeat(60))).toBe('a'.repeat(60));
    expect(printable('a'.repeat(61))).toBe(`${'a'.repeat(60)}…`);
  });
  it('a cut never leaves half of a surrogate pair', () => {
    expect(shown('ab😀cd', 3)).toBe('ab…');
    expect(shown('ab😀cd', 4)).toBe('ab😀…');
    expect(printable('ab😀cd', 3)).toBe('ab…');
  });
  it('oneLine joins lines with one space and trims the ends', () => {
    expect(oneLine('  primera\r\n   segunda \n\n tercera  ')).toBe('primera segunda tercera');
    expect(oneLine('sin saltos')).toBe('sin saltos');
  });
  it("keeps svc's colours, line breaks and tabs; escapes a bare ESC and other controls", () => {
    expect(terminalGuard('\u001b[31mrojo\u001b[0m\tok\n')).toBe('\u001b[31mrojo\u001b[0m\tok\n');
    expect(terminalGuard('a\u001bb')).toBe('a\\u001bb');
    expect(terminalGuard('a\u001b[2Jb')).toBe('a\\u001b[2Jb');
    expect(terminalGuard('x\ry')).toBe('x\\ry');
    expect(terminalGuard('seguro')).toBe('seguro');
  });
});

describe('jsonGuard (--json on a terminal)', () => {
  it('writes C1, bidi, U+2028 and a lone CR as \\u escapes; keeps blanks and CRLF; safe text as is', () => {
    expect(jsonGuard('{"a":"x\u0085y\u202ez\u2028"}')).toBe('{"a":"x\\u0085y\\u202ez\\u2028"}');
    expect(jsonGuard('{"a":1}\r\n\t{"b":2}\n')).toBe('{"a":1}\r\n\t{"b":2}\n');
    expect(jsonGuard('a\rb\u0085')).toBe('a\\u000db\\u0085');
    expect(jsonGuard('{"ok":"sí"}')).toBe('{"ok":"sí"}');
    expect(JSON.parse(jsonGuard(JSON.stringify({ t: 'x\u009by' })))).toEqual({ t: 'x\u009by' });
  });
});
