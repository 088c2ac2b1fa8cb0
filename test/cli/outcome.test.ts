// What a failed request means to the person who ran it, decided in one place
// (src/api/service-errors.ts and src/cli/outcome.ts) and checked here call by call:
// which answer of the service is which refusal and exit code, which failures leave a
// write "puede haberse hecho o no" (exit 6) instead of "refused" (exit 1), the line an
// unexpected error prints, and the check commands printed to paste. The end-to-end
// flows that print them: test/cli/write-outcome.test.ts, test/cli/errors.test.ts.
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  ComercioNoListoError,
  NetworkError,
  NotFoundError,
  RefusedError,
  UnauthorizedError,
  refusedWrite,
  serviceError,
} from '../../src/api/service-errors.js';
import { EXIT, SvcError } from '../../src/errors.js';
import {
  carried,
  checkCommandFor,
  outcomeUnknown,
  refundCheck,
  shellWord,
  unexpected,
  unknownOutcomeReason,
} from '../../src/cli/outcome.js';

describe('serviceError: the error code decides the kind first, the HTTP status second', () => {
  const cases: [number, string, typeof ApiError, number][] = [
    [401, 'unauthorized', UnauthorizedError, EXIT.unauthorized],
    [403, 'unauthorized', UnauthorizedError, EXIT.unauthorized],
    [403, 'comercio_no_listo', ComercioNoListoError, EXIT.notReady],
    [400, 'comercio_no_listo', ComercioNoListoError, EXIT.notReady],
    [404, 'not_found', NotFoundError, EXIT.notFound],
    [400, 'not_found', NotFoundError, EXIT.notFound],
    // A code svc does not know: the status says what it is.
    [401, 'invalid_key', UnauthorizedError, EXIT.unauthorized],
    [404, 'gone', NotFoundError, EXIT.notFound],
    [400, 'create_failed', RefusedError, EXIT.refused],
    [403, 'forbidden', RefusedError, EXIT.refused],
    [500, 'internal', RefusedError, EXIT.refused],
  ];
  it.each(cases)('HTTP %i %s: %o, exit %i', (http, code, Kind, exit) => {
    const err = serviceError(http, code, 'mensaje', { error: code }, 'probá otra cosa');
    expect(err).toBeInstanceOf(Kind);
    expect(err).toBeInstanceOf(SvcError);
    expect(err.exitCode).toBe(exit);
    // What --json prints and scripts read: the service's own words, as sent.
    expect(err.name).toBe('ApiError');
    expect(err.code).toBe(code);
    expect([err.http, err.error, err.message, err.body, err.suggestion]).toEqual([
      http,
      code,
      'mensaje',
      { error: code },
      'probá otra cosa',
    ]);
  });

  it('a failure with no usable answer is exit 6, named by what failed', () => {
    const err = new NetworkError('timeout', 'sin respuesta en 30 s', true, 502, '<html>', 'x');
    expect(err).toBeInstanceOf(SvcError);
    expect([err.exitCode, err.name, err.code, err.sent, err.http, err.raw]).toEqual([
      EXIT.network,
      'NetworkError',
      'timeout',
      true,
      502,
      '<html>',
    ]);
  });
});

describe('refusedWrite: a write is "not done" only on the refusals the seed names, and 429', () => {
  it.each([
    [401, undefined],
    [404, 'not_found'],
    [404, undefined],
    [429, undefined],
    [400, 'create_failed'],
    [400, 'refund_failed'],
    [400, 'sync_failed'],
    [403, 'comercio_no_listo'],
  ])('HTTP %i %s: refused, safe to send again', (http, code) => {
    expect(refusedWrite(http, code)).toBe(true);
  });
  it.each([
    [400, undefined],
    [400, 'monto_invalido'],
    [403, undefined],
    [403, 'forbidden'],
    // A named code under another status than the seed's is not that refusal.
    [500, 'comercio_no_listo'],
    [409, 'refund_failed'],
    [422, 'create_failed'],
    [500, 'create_failed'],
    [502, undefined],
    [503, undefined],
    [200, undefined],
  ])('HTTP %i %s: may have been done', (http, code) => {
    expect(refusedWrite(http, code)).toBe(false);
  });
});

describe('outcomeUnknown: only a refusal or a request that never left is "not done"', () => {
  it('an answer of the service (any kind of refusal): known, not done', () => {
    for (const [http, code] of [
      [401, 'unauthorized'],
      [403, 'comercio_no_listo'],
      [404, 'not_found'],
      [400, 'refund_failed'],
    ] as const)
      expect(outcomeUnknown(serviceError(http, code, 'm', {})), code).toBe(false);
  });
  it('a request that surely never left: known; one that may have: unknown', () => {
    expect(outcomeUnknown(new NetworkError('connection_refused', 'm', false))).toBe(false);
    expect(outcomeUnknown(new NetworkError('connection_reset', 'm', true))).toBe(true);
    expect(outcomeUnknown(new NetworkError('http_error', 'm', true, 500))).toBe(true);
  });
  it('anything else (a bug, a thrown string): unknown, so nobody repeats a refund blind', () => {
    expect(outcomeUnknown(new TypeError('x is undefined'))).toBe(true);
    expect(outcomeUnknown('boom')).toBe(true);
    expect(outcomeUnknown(undefined)).toBe(true);
    // Named like a refusal but not one: still unknown unless it says it was not sent.
    expect(outcomeUnknown(Object.assign(new Error('m'), { name: 'NetworkError' }))).toBe(true);
  });
});

describe('check commands, pasted as printed', () => {
  it('shellWord leaves plain words alone and single-quotes the rest', () => {
    expect(shellWord('https://api.example.com:8443/v1')).toBe('https://api.example.com:8443/v1');
    expect(shellWord('a-b_c.d,e@f%g+h=i')).toBe('a-b_c.d,e@f%g+h=i');
    expect(shellWord('caja 2')).toBe("'caja 2'");
    expect(shellWord("it's")).toBe("'it'\\''s'");
    expect(shellWord('$(rm -rf ~)')).toBe("'$(rm -rf ~)'");
    expect(shellWord('')).toBe("''");
  });

  it('carried: the flags that were used, in one order, and none that were not', () => {
    expect(carried()).toBe('');
    expect(carried({ live: false })).toBe('');
    expect(carried({ profile: 'caja 2', live: true, baseUrl: 'https://x.example' })).toBe(
      " --profile 'caja 2' --live --base-url https://x.example",
    );
    expect(carried({ profile: '' })).toBe(" --profile ''");
    expect(carried({ baseUrl: 'http://127.0.0.1:9' })).toBe(' --base-url http://127.0.0.1:9');
  });

  it('each write path gets the command that shows its effect', () => {
    const flags = { profile: 'p' };
    expect(checkCommandFor('/v1/cobros/12/devoluciones')).toBe(
      'svc devoluciones listar --cobro 12  o  svc cobro ver 12',
    );
    expect(checkCommandFor('/v1/cobros/12/devoluciones/?x=1', flags)).toBe(refundCheck(12, flags));
    expect(refundCheck(12, flags)).toBe(
      'svc devoluciones listar --cobro 12 --profile p  o  svc cobro ver 12 --profile p',
    );
    expect(checkCommandFor('/v1/cobros/12/sync', flags)).toBe('svc cobro ver 12 --profile p');
    expect(checkCommandFor('/v1/cobros/12')).toBe('svc cobro ver 12');
    expect(checkCommandFor('/_sandbox/cobros/7/pagar')).toBe('svc cobro ver 7');
    expect(checkCommandFor('/v1/cobros', flags)).toBe('svc cobro listar --profile p');
    expect(checkCommandFor('/v1/cobros/?referencia=a')).toBe('svc cobro listar');
    // Anything else: read back the same path, its query left off.
    expect(checkCommandFor('/v1/webhooks/3?x=1', flags)).toBe(
      'svc api GET /v1/webhooks/3 --profile p',
    );
    expect(checkCommandFor('/v1/a b')).toBe("svc api GET '/v1/a b'");
    // Not a request's own path: a longer one is not mistaken for it.
    expect(checkCommandFor('/v1/cobros/12/devoluciones/3/x')).toBe(
      'svc api GET /v1/cobros/12/devoluciones/3/x',
    );
    expect(checkCommandFor('/v2/cobros/12')).toBe('svc api GET /v2/cobros/12');
    expect(checkCommandFor('/x/v1/cobros')).toBe('svc api GET /x/v1/cobros');
    expect(checkCommandFor('/x/v1/cobros/12/devoluciones')).toBe(
      'svc api GET /x/v1/cobros/12/devoluciones',
    );
    expect(checkCommandFor('/x/v1/cobros/12')).toBe('svc api GET /x/v1/cobros/12');
  });
});

describe('unexpected: one line for what nobody expected', () => {
  it('before any write was sent: exit 1, the message and where to see more', () => {
    const u = unexpected(new Error('x is undefined'), [
      { method: 'POST', path: '/v1/cobros', sent: false },
    ]);
    expect(u).toEqual({
      code: EXIT.refused,
      name: 'unexpected',
      line: 'error inesperado: x is undefined (corré con --debug para más detalle)',
    });
  });

  it('after a write was sent: exit 6, every sent write named, and how to check the last', () => {
    const u = unexpected(
      new Error('boom'),
      [
        { method: 'POST', path: '/v1/cobros', sent: true },
        { method: 'POST', path: '/v1/cobros/9/sync', sent: false },
        { method: 'POST', path: '/v1/cobros/4/devoluciones', sent: true },
      ],
      { profile: 'caja' },
    );
    expect(u).toEqual({
      code: EXIT.network,
      name: 'outcome_unknown',
      line: 'error inesperado después de enviar POST /v1/cobros, POST /v1/cobros/4/devoluciones: boom; puede haberse hecho o no: no lo repitas sin verificar',
      suggestion: `para verificar: ${refundCheck(4, { profile: 'caja' })}`,
    });
  });

  it('the message is one line with nothing that drives a terminal, and no credentials', () => {
    const line = (err: unknown) => unexpected(err).line;
    expect(line(new Error('  uno\n\tdos  '))).toBe(
      'error inesperado: uno dos (corré con --debug para más detalle)',
    );
    expect(line(new Error('a\u001b[2Jb\u0007c\u009bd\u202ee\u2066f\u007fg\u0000'))).toBe(
      'error inesperado: a?[2Jb?c?d?e?f?g? (corré con --debug para más detalle)',
    );
    expect(line(new Error('no llega a https://user:pw@proxy.example:8080/x'))).toBe(
      'error inesperado: no llega a https://***@proxy.example:8080/x (corré con --debug para más detalle)',
    );
  });

  it('an error with no message says its kind; a thrown value, itself; nothing, "sin detalle"', () => {
    expect(unexpected(new RangeError('')).line).toMatch(/^error inesperado: RangeError \(/);
    expect(unexpected('cadena lanzada').line).toMatch(/^error inesperado: cadena lanzada \(/);
    expect(unexpected('').line).toMatch(/^error inesperado: sin detalle \(/);
    expect(unexpected(new Error(' \n ')).line).toMatch(/^error inesperado: sin detalle \(/);
  });

  it('unknownOutcomeReason: a network failure in its own words, anything else as unexpected', () => {
    expect(unknownOutcomeReason(new NetworkError('timeout', 'sin respuesta en 30 s', true))).toBe(
      'sin respuesta en 30 s',
    );
    expect(unknownOutcomeReason(new Error('x\nis undefined'))).toBe(
      'error inesperado: x is undefined',
    );
  });
});
