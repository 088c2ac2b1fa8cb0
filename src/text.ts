// Making untrusted text safe for a terminal. A string from the service, a webhook body
// or the journal can hold escape sequences (set the window title, clear the screen,
// paint a fake green state, plant an OSC 8 link), C1 controls or bidi overrides that
// reorder what is shown. Every such string is rendered through this module before it
// is printed: tables, records, the listener's lines, journal replays, error lines.
//
// The rule (docs/salida-y-codigos.md): a value is printed as is unless it holds
// a character that is unsafe on a terminal, or begins with `"`. Then it is printed as
// a JSON string literal: between double quotes, `\` and `"` escaped, `\t` `\n` `\r`,
// every other unsafe character as `\uXXXX`. A quoted value on screen therefore always
// means "escaped" (JSON.parse of it gives back the exact value), never data that
// happens to look like an escape.

/**
 * Unsafe characters: controls (C0, DEL, C1: this covers ESC and with it every CSI,
 * OSC, DCS… sequence, whose visible rest then shows as text), format characters (bidi
 * embeddings, overrides and isolates U+202A–U+202E, U+2066–U+2069, marks U+200E/F,
 * U+061C, zero-width U+200B–U+200D, U+2060–U+2064, BOM U+FEFF, soft hyphen, tags…),
 * line/paragraph separators, lone surrogates, and the invisible Hangul fillers. A
 * zero-width joiner is kept only between emoji (👨‍👩‍👧), where it is not invisible.
 */
const UNSAFE_SOURCE =
  '(?<![\\p{Extended_Pictographic}\\p{Emoji_Modifier}\\u{FE0F}])\\u{200D}|\\u{200D}(?!\\p{Extended_Pictographic})' +
  '|[\\p{Cc}\\p{Zl}\\p{Zp}\\p{Cs}\\u{115F}\\u{1160}\\u{3164}\\u{FFA0}]|(?!\\u{200D})\\p{Cf}';
const UNSAFE = new RegExp(UNSAFE_SOURCE, 'u');
const UNSAFE_ALL = new RegExp(UNSAFE_SOURCE, 'gu');
/** What must be escaped inside quotes: the unsafe characters, `\` and `"`. */
const QUOTED_ALL = new RegExp(`${UNSAFE_SOURCE}|[\\\\"]`, 'gu');

const SHORT: Record<string, string> = {
  '\t': '\\t',
  '\n': '\\n',
  '\r': '\\r',
  '\\': '\\\\',
  '"': '\\"',
};

/** `\uXXXX` per UTF-16 unit (an astral tag character becomes its surrogate pair, as JSON writes it). */
function escapeChar(ch: string): string {
  return SHORT[ch] ?? unicodeEscape(ch);
}

function unicodeEscape(ch: string): string {
  let out = '';
  for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/** Whether `text` holds anything a terminal could act on or hide. */
export function isUnsafe(text: string): boolean {
  return UNSAFE.test(text);
}

/** At most `max` characters (never half a surrogate pair), "…" when cut. */
function clip(text: string, max: number | undefined): { text: string; cut: boolean } {
  if (max === undefined || text.length <= max) return { text, cut: false };
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return { text: text.slice(0, end), cut: true };
}

/**
 * The one way an untrusted value reaches a terminal: as is when safe, else as a
 * JSON string literal (see the module header). `max` shortens it first ("…" after).
 */
export function shown(text: string, max?: number): string {
  const c = clip(text, max);
  const body =
    UNSAFE.test(c.text) || c.text.startsWith('"')
      ? `"${c.text.replace(QUOTED_ALL, escapeChar)}"`
      : c.text;
  return c.cut ? `${body}…` : body;
}

/**
 * A value echoed inside a message that already puts it between quotes
 * (`--host "…" no es válido`): escaped as inside a JSON string, at most `max`
 * characters, then "…".
 */
export function printable(text: string, max = 60): string {
  const c = clip(text, max);
  const body = c.text.replace(QUOTED_ALL, escapeChar);
  return c.cut ? `${body}…` : body;
}

/**
 * An error message on one line: line breaks (and the blanks around them) become one
 * space; anything else unsafe makes the whole message quoted and escaped as `shown`
 * does. Unlike a value, a message that merely begins with `"` stays as written: svc's
 * own messages quote the values they echo (escaped with `printable`).
 */
export function oneLine(text: string): string {
  const flat = text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
  return UNSAFE.test(flat) ? `"${flat.replace(QUOTED_ALL, escapeChar)}"` : flat;
}

/**
 * The last net under every line written by IO.out/err: whatever a command forgot to
 * render with `shown` still cannot drive the terminal. Keeps line breaks, tabs and
 * the SGR colour sequences svc itself writes (`ESC [ digits ; m`); every other unsafe
 * character becomes `\uXXXX` (inside JSON text that is the same string, so a JSON
 * line passing here stays valid and means the same).
 */
export function terminalGuard(text: string): string {
  if (!UNSAFE.test(text)) return text;
  return text.replace(GUARD_ALL, (ch) =>
    ch === '\n' || ch === '\t' || ch.length > 2 ? ch : escapeChar(ch),
  );
}
/**
 * Text for a CSV cell, whoever reads it later (`cat` on a terminal, a spreadsheet):
 * every unsafe character (ESC, BEL, NUL, C1 controls, bidi overrides) written as its
 * escape, as the terminal guard does; line breaks and tabs, which a cell may hold,
 * stay.
 */
export function csvGuard(text: string): string {
  if (!UNSAFE.test(text)) return text;
  return text.replace(UNSAFE_ALL, (ch) =>
    ch === '\n' || ch === '\r' || ch === '\t' ? ch : escapeChar(ch),
  );
}

/**
 * JSON text for a terminal (`--json` when stdout is one): every unsafe character
 * written as its `\uXXXX` escape. JSON.stringify already escapes C0 controls; C1
 * controls, bidi and other format characters and U+2028/U+2029 it leaves raw, and a
 * terminal acts on them. Inside a JSON string the escape is the same value (jq reads
 * the same data); outside strings JSON text holds only blanks, which stay.
 */
export function jsonGuard(text: string): string {
  if (!UNSAFE.test(text)) return text;
  return text.replace(UNSAFE_ALL, (ch, at: number, whole: string) =>
    ch === '\n' || ch === '\t' || (ch === '\r' && whole[at + 1] === '\n') ? ch : unicodeEscape(ch),
  );
}

/** An SGR sequence first (kept whole), else one unsafe character. */
const GUARD_ALL = new RegExp(`\\u001b\\[[0-9;]{0,32}m|${UNSAFE_SOURCE}`, 'gu');

// Terminal columns. A grapheme (what a person sees as one character) takes two columns
// when it is East Asian wide or an emoji, none when it is only combining marks, else one.
const WIDE =
  /[\u1100-\u115f\u231a\u231b\u2329\u232a\u23e9-\u23ec\u23f0\u23f3\u25fd\u25fe\u2614\u2615\u2648-\u2653\u267f\u2693\u26a1\u26aa\u26ab\u26bd\u26be\u26c4\u26c5\u26ce\u26d4\u26ea\u26f2\u26f3\u26f5\u26fa\u26fd\u2705\u270a\u270b\u2728\u274c\u274e\u2753-\u2755\u2757\u2795-\u2797\u27b0\u27bf\u2b1b\u2b1c\u2b50\u2b55\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f680}-\u{1f6ff}\u{1f900}-\u{1f9ff}\u{1fa70}-\u{1faff}\u{20000}-\u{3fffd}]/u;
const ZERO = /^[\p{Mn}\p{Me}\u200b-\u200d\u2060\ufe00-\ufe0f]+$/u;
let segmenter: Intl.Segmenter | undefined;

function graphemes(text: string): string[] {
  // Plain ASCII (most cells) needs no segmenter.
  if (/^[\x20-\x7e]*$/.test(text)) return text.split('');
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

function graphemeWidth(g: string): number {
  if (WIDE.test(g)) return 2;
  return ZERO.test(g) ? 0 : 1;
}

/**
 * Text as a search that ignores accents and case compares it: Ibáñez, IBANEZ and
 * ibanez are one. The service's own search may not do this; svc does it on its side.
 */
export function folded(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

/** Columns a text takes on a terminal (no escape sequences in it). */
export function displayWidth(text: string): number {
  if (/^[\x20-\x7e]*$/.test(text)) return text.length;
  let w = 0;
  for (const g of graphemes(text)) w += graphemeWidth(g);
  return w;
}

/** The text shortened to at most `width` columns, ending in "…" when it was cut; never splits a grapheme. */
export function fitWidth(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return '';
  let out = '';
  let w = 0;
  for (const g of graphemes(text)) {
    const gw = graphemeWidth(g);
    if (w + gw > width - 1) break;
    out += g;
    w += gw;
  }
  return `${out}…`;
}

/**
 * A line of prose broken at spaces into lines of at most `width` columns, for the
 * notes svc prints under a table; a word wider than that stands on its own line.
 */
export function wrapWords(text: string, width: number): string[] {
  return wrapParts(text.split(' '), width, ' ');
}

/** Parts joined by `gap` on lines of at most `width` columns, broken only between parts. */
export function wrapParts(parts: readonly string[], width: number, gap: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const part of parts) {
    const longer = line ? `${line}${gap}${part}` : part;
    if (line && displayWidth(longer) > width) {
      lines.push(line);
      line = part;
    } else line = longer;
  }
  lines.push(line);
  return lines;
}

/** Where a command may go on to the next line: an option, a pipe, a redirection. */
const BREAKS_BEFORE = /^(-|\||>|>>|<|&&$)/;

/**
 * A shell command (`$ svc …`) on lines of at most `width` columns, as a shell reads
 * it: a line goes on after ` \` before an option (with its value) or a pipe, never
 * inside quotes; what cannot be broken runs past the width.
 */
export function shellLines(command: string, width: number, indent = '    '): string[] {
  const words: string[] = [];
  let word = '';
  let quote = '';
  for (const ch of command) {
    if (quote) quote = ch === quote ? '' : quote;
    else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === ' ') {
      if (word) words.push(word);
      word = '';
      continue;
    }
    word += ch;
  }
  if (word) words.push(word);
  const lines: string[] = [];
  let line = '';
  for (const [i, w] of words.entries()) {
    const breaks = i > 1 && BREAKS_BEFORE.test(w);
    // The option's value (or the pipe's command) goes with it: measure up to the next break.
    let group = w;
    for (let j = i + 1; breaks && j < words.length && !BREAKS_BEFORE.test(words[j]!); j++)
      group += ` ${words[j]}`;
    // `breaks` only from the third word on: the line before it is never empty.
    if (breaks && displayWidth(`${line} ${group}`) + 2 > width) {
      lines.push(`${line} \\`);
      line = `${indent}${w}`;
    } else line = line ? `${line} ${w}` : w;
  }
  lines.push(line);
  return lines;
}

/** A count with its noun in the singular or the plural: "1 evento", "4 eventos". */
export function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Why `text` is not JSON, in Spanish, from JSON.parse's error: "no es JSON válido (línea 3, columna 7)". */
export function notJson(err: unknown, text: string): string {
  const message = err instanceof Error ? err.message : '';
  const at = /position (\d+)/.exec(message);
  if (at) {
    const before = text.slice(0, Number(at[1]));
    return `no es JSON válido (línea ${before.split('\n').length}, columna ${before.length - before.lastIndexOf('\n')})`;
  }
  return /end of JSON input/i.test(message)
    ? 'no es JSON válido (termina antes de tiempo)'
    : 'no es JSON válido';
}
