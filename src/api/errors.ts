// Errors of the client library: one class for every answer of the service that is
// an error body, one for everything that kept us from getting a usable answer.
// Both carry a suggestion for the person at the terminal.

/** The service answered with an error body `{ error, message }`. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly http: number,
    readonly error: string,
    message: string,
    readonly body: unknown,
    readonly suggestion?: string,
  ) {
    super(message);
  }
}

export type NetworkFailure =
  | 'connection_refused'
  | 'unknown_host'
  | 'tls'
  | 'timeout'
  | 'connection_reset'
  | 'not_json'
  | 'empty_body'
  | 'bad_shape'
  | 'too_large'
  | 'http_error'
  | 'other';

/**
 * No usable answer: the connection failed, timed out, or the reply was not the
 * service's JSON (an HTML page from a proxy, an empty body, a body of the wrong shape,
 * a body larger than the client reads).
 * `sent` is true when the request may have reached the service.
 */
export class NetworkError extends Error {
  override name = 'NetworkError';
  constructor(
    readonly failure: NetworkFailure,
    message: string,
    readonly sent: boolean,
    readonly http?: number,
    /** The reply as received when it was not JSON (for `svc api`, which shows it). */
    readonly raw?: string,
  ) {
    super(message);
  }
}

export function suggestionFor(http: number, error: string): string | undefined {
  switch (error) {
    case 'unauthorized':
      return 'revisá la clave con `svc login` o la variable SVC_API_KEY';
    case 'comercio_no_listo':
      return 'completá los datos del comercio en el panel; `svc cuenta` muestra el estado';
    case 'not_found':
      return http === 404 ? 'revisá el id; `svc cobro listar` muestra los cobros' : undefined;
    default:
      return undefined;
  }
}
