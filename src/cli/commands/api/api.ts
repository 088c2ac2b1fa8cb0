// svc api [METHOD] <path> (GET when left out, or -X METHOD): a raw request with the profile's key, for support (like
// `gh api`). Prints the whole body as received (pretty JSON) and exits with the code
// its status maps to; GETs are retried like every GET, nothing else ever is. Any
// other method whose answer cannot be read may have been done: said so, exit 6.
import { readFile } from 'node:fs/promises';
import { NetworkError, refusedWrite, serviceError } from '../../../api/service-errors.js';
import type { Context } from '../../context.js';
import type { OptionsOf } from '../../define.js';
import { EXIT, OutcomeUnknownError, Reported, UsageError } from '../../../errors.js';
import type { apiOptions } from './index.js';
import { checkCommandFor, outcomeUnknown, unknownOutcomeReason } from '../../outcome.js';
import { printable } from '../../parse.js';
import { shown } from '../../../text.js';
import { readAll } from '../../stdin.js';
import { printJson } from '../../../output/format.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Exit code of an HTTP answer: the class the client would have thrown for it (api/service-errors.ts). */
export function exitCodeOf(status: number, body: unknown, method = 'GET', path = ''): number {
  if (status >= 200 && status < 300) return EXIT.ok;
  const error =
    typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  const code = typeof error === 'string' ? error : '';
  // A write answered with anything but a refusal the seed names may have been done.
  if (method !== 'GET' && !path.startsWith('/_sandbox/') && !refusedWrite(status, code))
    return EXIT.network;
  return serviceError(status, code, '', body).exitCode;
}

/**
 * `-f k=v` fields: values are strings; `k:=json` takes a raw JSON value
 * (numbers, true/false, null, objects). Later fields win.
 */
export function parseFields(fields: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const raw = /^([^=:]+):=(.*)$/s.exec(f);
    const plain = /^([^=]+)=(.*)$/s.exec(f);
    if (raw) {
      try {
        out[raw[1]!] = JSON.parse(raw[2]!);
      } catch {
        throw new UsageError(
          `--field ${printable(f)}: lo que sigue a := no es JSON (ej. tarjeta:=false, transaccion_id:=7)`,
        );
      }
    } else if (plain) {
      out[plain[1]!] = plain[2]!;
    } else {
      throw new UsageError(
        `--field "${printable(f)}" no tiene la forma clave=valor (o clave:=json)`,
      );
    }
  }
  return out;
}

export async function run(
  ctx: Context,
  args: string[],
  opts: OptionsOf<typeof apiOptions>,
): Promise<void> {
  const { io } = ctx;
  // `svc api /v1/cuenta` is a GET; `svc api POST /v1/…` and `-X POST` say the method.
  const [first, second] = args;
  const given = second !== undefined ? first : undefined;
  if (
    given !== undefined &&
    opts.method !== undefined &&
    given.toUpperCase() !== opts.method.toUpperCase()
  ) {
    throw new UsageError(
      `dos métodos: ${printable(given)} y -X ${printable(opts.method)}; decí uno`,
    );
  }
  const method = (opts.method ?? given ?? 'GET').toUpperCase();
  if (!(METHODS as readonly string[]).includes(method)) {
    throw new UsageError(
      `método "${printable(opts.method ?? given ?? '')}" no válido; usá ${METHODS.join(', ')}`,
    );
  }
  const path = second ?? first ?? '';
  if (second === undefined && (METHODS as readonly string[]).includes(path.toUpperCase())) {
    throw new UsageError(
      `falta la ruta después de ${path.toUpperCase()} (ej. svc api ${path.toUpperCase()} /v1/cobros)`,
    );
  }
  if (path === '') throw new UsageError('falta la ruta (ej. svc api /v1/cuenta)');
  if (!path.startsWith('/') || path.startsWith('//') || /[\s\u0000-\u001f\u007f]/.test(path)) {
    throw new UsageError(
      `la ruta "${printable(path)}" tiene que empezar con / y no tener espacios (ej. /v1/cobros/42)`,
    );
  }
  const fields = parseFields(opts.field ?? []);
  const inputFile = opts.input;
  const hasFields = Object.keys(fields).length > 0;
  if (inputFile !== undefined && hasFields)
    throw new UsageError('usá --field o --input, no los dos');
  const queryMethod = method === 'GET' || method === 'DELETE';
  if (inputFile !== undefined && queryMethod)
    throw new UsageError(`${method} no lleva cuerpo: usá --field para parámetros de consulta`);

  let body: string | undefined;
  let query: Record<string, string> | undefined;
  if (inputFile !== undefined) {
    const buf = inputFile === '-' ? await readAll(io.stdin) : await readBodyFile(inputFile);
    body = buf.toString('utf8');
    try {
      JSON.parse(body);
    } catch {
      throw new UsageError(
        `el cuerpo de ${inputFile === '-' ? 'stdin' : printable(inputFile)} no es JSON válido`,
      );
    }
  } else if (hasFields && queryMethod) {
    query = Object.fromEntries(
      Object.entries(fields).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
    );
  } else if (hasFields) {
    body = JSON.stringify(fields);
  } else if (method !== 'GET' && method !== 'DELETE') {
    body = '{}';
  }

  // A key is optional (GET /v1/salud is public), but when there is one it is checked
  // like everywhere else, and a live one shows the banner.
  const r = await ctx.resolved();
  const client = await ctx.client({ requireKey: r.apiKey !== undefined || r.liveKeyInKeyring });
  if (method !== 'GET') await ctx.guardChange(`${method} ${printable(path)}`);
  let res;
  try {
    res = await ctx.spin(`${method} ${path}…`, () =>
      client.request({ method, path, body, query, throwOnError: false, retry: method === 'GET' }),
    );
  } catch (err) {
    const unknown = method !== 'GET' && outcomeUnknown(err);
    const check = checkCommandFor(path, ctx.globals);
    if (err instanceof NetworkError && err.raw !== undefined) {
      // Not JSON: seeing it is the point of `svc api`. Piped, it goes out byte for
      // byte (as --json does); on a terminal each line is shown safely.
      if (io.stdoutTTY)
        io.out(
          err.raw
            .split('\n')
            .map((line) => shown(line.replace(/\r$/, '')))
            .join('\n'),
        );
      else io.outRaw(err.raw);
      io.err(io.c.red(`HTTP ${err.http ?? '?'}: la respuesta no es JSON`));
      if (unknown) {
        io.err(
          `${method} ${printable(path)} puede haberse hecho o no: no lo repitas sin verificar`,
        );
        io.err(`→ para verificar: ${check}`);
      }
      throw new Reported(EXIT.network);
    }
    if (unknown) {
      throw new OutcomeUnknownError(
        `${method} ${printable(path)} puede haberse hecho o no (${unknownOutcomeReason(err)}); no lo repitas sin verificar` +
          (ctx.globals.json ? `. Para verificar: ${check}` : ''),
        check,
      );
    }
    throw err;
  }
  printJson(io, res.data);
  const code = exitCodeOf(res.http, res.data, method, path);
  if (code !== EXIT.ok) {
    const e = res.data as { error?: unknown };
    io.err(
      io.c.red(`HTTP ${res.http}${typeof e?.error === 'string' ? ` ${shown(e.error, 80)}` : ''}`),
    );
    if (code === EXIT.network) {
      io.err(`${method} ${printable(path)} puede haberse hecho o no: no lo repitas sin verificar`);
      io.err(`→ para verificar: ${checkCommandFor(path, ctx.globals)}`);
    }
    throw new Reported(code);
  }
}

async function readBodyFile(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new UsageError(
      `no se pudo leer ${printable(file)}${code === 'ENOENT' ? ': no existe' : code ? ` (${code})` : ''}`,
    );
  }
}
