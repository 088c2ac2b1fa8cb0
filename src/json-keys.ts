// JSON that svc replays (the sandbox's data file, scenario files) must mean one thing.
// JSON.parse keeps the last of two equal keys without a word, so a hand-edited record
// with `"monto"` twice would start a sandbox from a value nobody can see in the file.
// These helpers find such a key; JSON.parse still does the parsing.
import { printable } from './text.js';

export interface DuplicateKey {
  /** Where the key sits, as a person writes it: cobros[0].pagos[1].medio */
  path: string;
  /** Lines (1-based) of the first and of the repeated occurrence. */
  lines: [number, number];
}

/**
 * Keys written in valid JSON `text`, counted as written (duplicates included): every
 * string token, skipped whole, that a colon follows. Outside strings a `"` only opens
 * one, so skipping strings whole keeps the count in step. indexOf, not a regex: this
 * runs on every line of a data file at start-up.
 */
function keysWritten(text: string): number {
  let n = 0;
  let open = text.indexOf('"');
  while (open !== -1) {
    let close = text.indexOf('"', open + 1);
    for (;;) {
      let slashes = 0;
      while (text.charCodeAt(close - 1 - slashes) === 92) slashes++;
      if (slashes % 2 === 0) break;
      close = text.indexOf('"', close + 1);
    }
    let next = close + 1;
    for (
      let c = text.charCodeAt(next);
      c === 32 || c === 9 || c === 10 || c === 13;
      c = text.charCodeAt(++next)
    );
    if (text.charCodeAt(next) === 58) n++;
    open = text.indexOf('"', next);
  }
  return n;
}

/** Distinct keys in a parsed value: equal to keysWritten exactly when no object repeats a key. Iterative: any depth. */
function keysParsed(value: unknown): number {
  let n = 0;
  const todo: unknown[] = [value];
  while (todo.length) {
    const v = todo.pop();
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) for (const x of v) todo.push(x);
    else
      for (const k in v) {
        n++;
        todo.push((v as Record<string, unknown>)[k]);
      }
  }
  return n;
}

/** How deep svc reads JSON it replays: its own files nest a few levels; 200,000 would exhaust the stack. */
export const MAX_NESTING = 64;

/** The line (1-based) where `text` nests arrays and objects deeper than `max`, outside strings; null when it does not. */
export function nestedTooDeep(text: string, max = MAX_NESTING): number | null {
  let depth = 0;
  let line = 1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) line++;
    else if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) return line;
    } else if (c === 125 || c === 93) depth--;
  }
  return null;
}

const IDENT = /^[A-Za-z_$][\w$]*$/;

function pathOf(parts: readonly (string | number)[]): string {
  return (
    parts
      .map((p, i) =>
        typeof p === 'number'
          ? `[${p}]`
          : IDENT.test(p)
            ? `${i ? '.' : ''}${p}`
            : `[${JSON.stringify(printable(p, 40))}]`,
      )
      .join('') || '(raíz)'
  );
}

type Frame =
  | { kind: 'object'; keys: Map<string, number>; key: string | null }
  | { kind: 'array'; index: number };

const TOKEN = /\s*(?:("(?:[^"\\]|\\.)*")|([{}[\]:,])|([^\s{}[\]:,"]+))/y;

/** Walks valid JSON token by token to name the first repeated key (the slow path, only when there is one). */
function locate(text: string): DuplicateKey | null {
  const stack: Frame[] = [];
  const path = (): (string | number)[] =>
    stack.map((f) => (f.kind === 'array' ? f.index : f.key!)).filter((p) => p !== null);
  let line = 1;
  let counted = 0;
  const lineAt = (pos: number): number => {
    for (let i = counted; i < pos; i++) if (text.charCodeAt(i) === 10) line++;
    counted = Math.max(counted, pos);
    return line;
  };
  let expectKey = false;
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const m = TOKEN.exec(text);
    if (!m) break;
    const top = stack[stack.length - 1];
    if (m[1] !== undefined && expectKey && top?.kind === 'object') {
      const key = JSON.parse(m[1]) as string;
      const at = lineAt(m.index + m[0].length - m[1].length);
      const first = top.keys.get(key);
      top.key = key;
      if (first !== undefined) return { path: pathOf(path()), lines: [first, at] };
      top.keys.set(key, at);
      expectKey = false;
      continue;
    }
    const p = m[2];
    if (p === '{') {
      stack.push({ kind: 'object', keys: new Map(), key: null });
      expectKey = true;
    } else if (p === '[') {
      stack.push({ kind: 'array', index: 0 });
    } else if (p === '}' || p === ']') {
      stack.pop();
    } else if (p === ',') {
      if (top?.kind === 'array') top.index++;
      else if (top?.kind === 'object') expectKey = true;
    }
  }
  return null;
}

/**
 * The first key an object of `value` (parsed from `text`) holds twice, or null.
 * Cheap when there is none: one regex pass over the text and one walk of the value.
 */
export function duplicateKey(text: string, value: unknown): DuplicateKey | null {
  return duplicateKeyOf(text, keysParsed(value));
}

/** duplicateKey when the caller already knows how many distinct keys the parsed value holds. */
export function duplicateKeyOf(text: string, parsedKeys: number): DuplicateKey | null {
  if (keysWritten(text) === parsedKeys) return null;
  return locate(text);
}
