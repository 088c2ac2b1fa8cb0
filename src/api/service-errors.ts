// Errors of the client library: a class per kind of answer of the service that is
// an error body, one for everything that kept us from getting a usable answer. Each
// carries the exit code svc gives it; what to do next is the CLI's to say
// (cli/hints.ts), so these messages name no command.
import { EXIT, SvcError } from '../errors.js';

/**
 * The service answered with an error body `{ error, message }`. Built by
 * serviceError(), never directly: the class says what kind of refusal it is and
 * the exit code svc gives it (src/errors.ts EXIT).
 */
export class ApiError extends SvcError {
  override name = 'ApiError';
  readonly exitCode: number = EXIT.refused;
  constructor(
    readonly http: number,
    readonly error: string,
    message: string,
    readonly body: unknown,
    suggestion?: string,
  ) {
    super(message, suggestion);
  }

  /** The service's own error code is the JSON name (its body is printed as sent). */
  get code(): string {
    return this.error;
  }
}

/** The key is missing, wrong or revoked (`unauthorized`, or a 401 without that code). */
export class UnauthorizedError extends ApiError {
  override readonly exitCode: number = EXIT.unauthorized;
}

/** The merchant cannot collect yet (`comercio_no_listo`). */
export class ComercioNoListoError extends ApiError {
  override readonly exitCode: number = EXIT.notReady;
}

/** No such record, or no such endpoint (`not_found`, or a 404 without that code). */
export class NotFoundError extends ApiError {
  override readonly exitCode: number = EXIT.notFound;
}

/**
 * Any other refusal (`create_failed`, `refund_failed`, a 4xx/5xx of its own): the request
 * was not done. To a write, only the refusals of refusedWrite() come as one; any other
 * answer to a write is a NetworkError('http_error'): its outcome is unknown.
 */
export class RefusedError extends ApiError {}

/**
 * The one factory of service errors, by error code first and HTTP status second: the
 * client throws what it returns, `svc api` takes its exit code from it.
 */
export function serviceError(
  http: number,
  error: string,
  message: string,
  body: unknown,
  suggestion?: string,
): ApiError {
  const Kind =
    error === 'unauthorized'
      ? UnauthorizedError
      : error === 'comercio_no_listo'
        ? ComercioNoListoError
        : error === 'not_found'
          ? NotFoundError
          : http === 401
            ? UnauthorizedError
            : http === 404
              ? NotFoundError
              : RefusedError;
  return new Kind(http, error, message, body, suggestion);
}

/**
 * Whether an answer to a write (a POST) says it was not done: only the refusals the
 * seed names (400 `create_failed`/`refund_failed`/`sync_failed`, 401, 403
 * `comercio_no_listo`, 404) and 429. Any other answer (a 5xx, with or without JSON, a
 * status or code the seed does not name) may come after the service wrote: its outcome
 * is unknown, as after a cut connection.
 */
export function refusedWrite(http: number, error: string | undefined): boolean {
  if (http === 401 || http === 404 || http === 429) return true;
  if (http === 400)
    return error === 'create_failed' || error === 'refund_failed' || error === 'sync_failed';
  if (http === 403) return error === 'comercio_no_listo';
  return false;
}

export type NetworkFailure =
  | 'connection_refused'
  | 'unknown_host'
  | 'tls'
  | 'proxy'
  | 'timeout'
  | 'connection_reset'
  | 'not_json'
  | 'empty_body'
  | 'bad_shape'
  | 'too_large'
  /** A write answered with something other than a refusal the seed names: its outcome is unknown. */
  | 'http_error'
  | 'other';

/**
 * No usable answer: the connection failed, timed out, or the reply was not the
 * service's JSON (an HTML page from a proxy, an empty body, a body of the wrong shape,
 * a body larger than the client reads).
 * `sent` is true when the request may have reached the service.
 */
export class NetworkError extends SvcError {
  override name = 'NetworkError';
  readonly exitCode: number = EXIT.network;
  constructor(
    readonly failure: NetworkFailure,
    message: string,
    readonly sent: boolean,
    readonly http?: number,
    /** The reply as received when it was not JSON (for `svc api`, which shows it). */
    readonly raw?: string,
    /** What to do about it, when svc knows (a certificate refused: which setting trusts a company's CA). */
    suggestion?: string,
  ) {
    super(message, suggestion);
  }

  get code(): string {
    return this.failure;
  }
}
