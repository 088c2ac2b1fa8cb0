// Parsing a raw HTTP request as a developer copies it from a log or a proxy dump,
// for `svc webhook verify --request FILE`: an optional request line, headers (names
// case-insensitive), a blank line, then the body bytes exactly. CRLF or LF line ends.
// The body is never decoded: the signature is over the bytes.

export interface RawRequest {
  method: string | null;
  target: string | null;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  /** Things a person should know (Content-Length disagreeing with the body…). */
  warnings: string[];
}

export class RawRequestError extends Error {
  override name = 'RawRequestError';
}

const REQUEST_LINE = /^([A-Z]{3,10}) (\S+)(?: HTTP\/\d(?:\.\d)?)?$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Index and length of the first blank line (CRLF CRLF, LF LF, or mixed), or undefined. */
function headerEnd(buf: Buffer, from: number): { at: number; length: number } | undefined {
  for (let i = from; i < buf.length; i++) {
    if (buf[i] !== 0x0a) continue;
    // i is the end of a line; the next line is blank if it is "\n" or "\r\n".
    if (buf[i + 1] === 0x0a) return { at: i + 1, length: 1 };
    if (buf[i + 1] === 0x0d && buf[i + 2] === 0x0a) return { at: i + 1, length: 2 };
  }
  return undefined;
}

export function parseRawRequest(input: Uint8Array): RawRequest {
  const buf = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  // Blank lines before the request (pasted with a leading newline) are not part of it.
  let start = 0;
  while (
    start < buf.length &&
    (buf[start] === 0x0a || buf[start] === 0x0d || buf[start] === 0x20 || buf[start] === 0x09)
  )
    start++;
  const end = headerEnd(buf, start);
  const head = buf.subarray(start, end ? end.at : buf.length).toString('latin1');
  let body = end ? buf.subarray(end.at + end.length) : Buffer.alloc(0);
  const lines = head.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  if (lines.length === 0)
    throw new RawRequestError(
      'el archivo está vacío: se espera un pedido HTTP (headers, una línea en blanco y el cuerpo)',
    );

  let method: string | null = null;
  let target: string | null = null;
  const first = REQUEST_LINE.exec(lines[0]!);
  if (first) {
    method = first[1]!;
    target = first[2]!;
    lines.shift();
  }
  const headers: Record<string, string> = {};
  let last: string | undefined;
  for (const [i, line] of lines.entries()) {
    if (/^[ \t]/.test(line) && last) {
      // obsolete folding: a continuation of the previous header
      headers[last] = `${headers[last]} ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    if (!HEADER_NAME.test(name)) {
      const hint = end ? '' : ' (¿falta la línea en blanco entre los headers y el cuerpo?)';
      throw new RawRequestError(
        `línea ${i + 1 + (first ? 1 : 0)} no es un header "Nombre: valor": "${shorten(line)}"${hint}`,
      );
    }
    const key = name.toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[key] = key in headers ? `${headers[key]}, ${value}` : value;
    last = key;
  }

  const warnings: string[] = [];
  if (/\bchunked\b/i.test(headers['transfer-encoding'] ?? '')) {
    body = dechunk(body);
  } else if (headers['content-length'] !== undefined) {
    const declared = /^\d{1,10}$/.test(headers['content-length'])
      ? Number(headers['content-length'])
      : NaN;
    if (Number.isNaN(declared)) {
      warnings.push(
        `Content-Length "${shorten(headers['content-length'])}" no es un número; se usa el cuerpo entero`,
      );
    } else if (body.length > declared) {
      // Editors and log viewers add a final newline: the request itself says where the body ends.
      warnings.push(
        `el cuerpo tiene ${body.length} bytes y Content-Length dice ${declared}: se usan los primeros ${declared}`,
      );
      body = body.subarray(0, declared);
    } else if (body.length < declared) {
      warnings.push(
        `el cuerpo tiene ${body.length} bytes pero Content-Length dice ${declared}: ¿está cortado?`,
      );
    }
  }
  return { method, target, headers, body: Buffer.from(body), warnings };
}

/** Decodes a chunked body (chunk extensions and trailers ignored). */
function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let pos = 0;
  for (;;) {
    const nl = data.indexOf(0x0a, pos);
    if (nl < 0)
      throw new RawRequestError('cuerpo chunked mal formado: falta el tamaño de un bloque');
    const sizeText = data
      .subarray(pos, nl)
      .toString('latin1')
      .replace(/\r$/, '')
      .split(';')[0]!
      .trim();
    if (!/^[0-9a-fA-F]{1,8}$/.test(sizeText))
      throw new RawRequestError(`cuerpo chunked mal formado: tamaño "${shorten(sizeText)}"`);
    const size = parseInt(sizeText, 16);
    if (size === 0) return Buffer.concat(parts);
    const from = nl + 1;
    if (from + size > data.length) throw new RawRequestError('cuerpo chunked cortado');
    parts.push(data.subarray(from, from + size));
    pos = from + size;
    if (data[pos] === 0x0d) pos++;
    if (data[pos] === 0x0a) pos++;
  }
}

function shorten(text: string): string {
  const clean = text.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 60 ? `${clean.slice(0, 60)}…` : clean;
}
