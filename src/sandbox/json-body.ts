// A request body as the sandbox reads it: JSON in UTF-8, and only text every client
// can read back. Bytes that are not UTF-8, a charset other than UTF-8, and strings
// with an unpaired surrogate (valid JSON escapes, yet no text: jq and strict parsers
// fail on the whole list that holds one) are refused with the endpoint's 400 naming
// the field, before a handler sees the body, so nothing of them is ever stored.
import { SandboxError } from './sandbox-error.js';
import { clip } from './handlers/validate.js';

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });
const LENIENT_UTF8 = new TextDecoder('utf-8');
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** Put where bytes were not UTF-8, to find the field they were in (a noncharacter: no client sends it as text). */
const MARK = '\uffff';

/** undefined for an empty body; the endpoint's 400 for a wrong content type or charset, bytes that are not UTF-8, bad JSON or a lone surrogate. */
export function parseBody(
  raw: Buffer | null,
  contentType: string | undefined,
  code: string,
): unknown {
  if (raw === null || raw.length === 0) return undefined;
  const bad = (message: string) => new SandboxError(400, code, message);
  const [type, ...params] = (contentType ?? '').split(';');
  if (type!.trim().toLowerCase() !== 'application/json') {
    throw bad(
      `body: el Content-Type debe ser application/json${contentType ? `, llegó "${contentType.slice(0, 60)}"` : ' (falta el header)'}`,
    );
  }
  for (const p of params) {
    const [name, value = ''] = p.split('=');
    if (name!.trim().toLowerCase() !== 'charset') continue;
    const charset = value
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8')
      throw bad(`body: el charset debe ser utf-8, llegó "${charset.slice(0, 40)}"`);
  }
  let text: string;
  try {
    text = STRICT_UTF8.decode(raw);
  } catch {
    throw bad(`${whereNotUtf8(raw)}: no es UTF-8 válido`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw bad(`body: no es JSON válido (${(err as Error).message.slice(0, 120)})`);
  }
  const lone = findString(value, (s) => LONE_SURROGATE.test(s));
  if (lone !== undefined)
    throw bad(`${lone}: tiene un surrogate sin par (\\ud800-\\udfff sin su pareja): no es texto`);
  return value;
}

/** The field whose string held the first bytes that are not UTF-8; "body" when they are elsewhere (or JSON does not parse). */
function whereNotUtf8(raw: Buffer): string {
  const text = markInvalid(raw);
  try {
    return findString(JSON.parse(text), (s) => s.includes(MARK)) ?? 'body';
  } catch {
    return 'body';
  }
}

/** The body decoded with MARK in place of each byte that does not start or continue a UTF-8 sequence. */
function markInvalid(buf: Buffer): string {
  let out = '';
  let start = 0;
  let i = 0;
  while (i < buf.length) {
    const n = sequenceAt(buf, i);
    if (n > 0) {
      i += n;
      continue;
    }
    out += LENIENT_UTF8.decode(buf.subarray(start, i)) + MARK;
    start = ++i;
  }
  return out + LENIENT_UTF8.decode(buf.subarray(start));
}

/** Bytes of the well-formed UTF-8 sequence at `i` (RFC 3629: no overlongs, no surrogates, up to U+10FFFF), 0 when there is none. */
function sequenceAt(b: Buffer, i: number): number {
  const b0 = b[i]!;
  if (b0 < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) =>
    i + k < b.length && b[i + k]! >= lo && b[i + k]! <= hi;
  if (b0 >= 0xc2 && b0 <= 0xdf) return cont(1) ? 2 : 0;
  if (b0 >= 0xe0 && b0 <= 0xef) {
    const second = b0 === 0xe0 ? cont(1, 0xa0) : b0 === 0xed ? cont(1, 0x80, 0x9f) : cont(1);
    return second && cont(2) ? 3 : 0;
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    const second = b0 === 0xf0 ? cont(1, 0x90) : b0 === 0xf4 ? cont(1, 0x80, 0x8f) : cont(1);
    return second && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

/**
 * The path (`concepto`, `pagos[1].medio`) of the first string, key or value, that
 * `test` accepts; undefined when none does.
 */
function findString(value: unknown, test: (s: string) => boolean, path = ''): string | undefined {
  if (typeof value === 'string') return test(value) ? path || 'body' : undefined;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const found = findString(v, test, `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      // A field's name is echoed shown safe: what cannot be shown is "?".
      const here = `${path ? `${path}.` : ''}${clip(k.replace(/[\ud800-\udfff\uffff]/g, '?'))}`;
      if (test(k)) return here;
      const found = findString(v, test, here);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
