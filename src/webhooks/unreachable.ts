// Why a notification could not be delivered, in the words a developer reads: the
// listener's forwarder (webhook listen) and the sandbox's sender (svc sandbox
// entregas, the dashboard) say it alike.

/** One failed attempt: the socket's error code, or no answer in `timeoutMs`. */
export function describeUnreachable(err: unknown, timedOut: boolean, timeoutMs: number): string {
  const e = err as
    | { code?: string; message?: string; cause?: { code?: string; message?: string } }
    | undefined;
  const code = e?.code ?? e?.cause?.code;
  if (
    timedOut ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  ) {
    return `sin respuesta en ${formatSeconds(timeoutMs)}`;
  }
  switch (code) {
    case 'ECONNREFUSED':
      return 'conexión rechazada (¿la app está corriendo en ese puerto?)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'no se encontró el host';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'la app cortó la conexión sin responder';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'no hay ruta al host';
    // A certificate the connection refused, in words.
    case 'CERT_HAS_EXPIRED':
      return 'el certificado de la app está vencido';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return 'el certificado de la app no es de ese nombre';
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
      return 'el certificado de la app es autofirmado';
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'el certificado de la app lo firmó una CA que svc no conoce';
    default:
      return (code ? `${code}: ` : '') + (e?.message ?? String(err)).split('\n')[0];
  }
}

export function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
