// Signing and verifying notifications: HMAC-SHA256, lowercase hex, over
// `<timestamp>.<raw body bytes>`, header `sha256=<hex>`. verify() calls sign(), so
// the two cannot drift; the sandbox signs with the same function the CLI verifies with.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_PREFIX = 'sha256=';
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type Body = string | Uint8Array;

/** Lowercase hex HMAC-SHA256 of `<timestamp>.<body>` with the signing secret. */
export function sign(secret: string, timestamp: string | number, body: Body): string {
  const hmac = createHmac('sha256', secret);
  hmac.update(`${timestamp}.`);
  hmac.update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
  return hmac.digest('hex');
}

/** The value of X-Svc-Signature for a body. */
export function signatureHeader(secret: string, timestamp: string | number, body: Body): string {
  return SIGNATURE_PREFIX + sign(secret, timestamp, body);
}

export type VerifyFailure =
  | 'missing_signature'
  | 'missing_timestamp'
  | 'malformed_signature'
  | 'timestamp_not_integer'
  | 'timestamp_too_old'
  | 'timestamp_in_future'
  | 'signature_mismatch';

export type VerifyResult = { ok: true } | { ok: false; reason: VerifyFailure; message: string };

export interface VerifyInput {
  secret: string;
  /** X-Svc-Timestamp as received (undefined when the header is absent). */
  timestamp: string | undefined | null;
  /** X-Svc-Signature as received (undefined when the header is absent). */
  signature: string | undefined | null;
  /** The raw body bytes, exactly as received. */
  body: Body;
  /** Accepted age in seconds, both ways; 0 turns the check off. */
  toleranceSeconds?: number;
  /** Current Unix time in seconds (for tests). */
  now?: number;
}

const HEX64 = /^[0-9a-f]{64}$/;
const INTEGER = /^[0-9]{1,15}$/;

/** Verifies a notification. Never throws on any input; says why when it fails. */
export function verify(input: VerifyInput): VerifyResult {
  const { secret, timestamp, signature, body } = input;
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (signature === undefined || signature === null || signature === '') {
    return fail('missing_signature', 'falta el header X-Svc-Signature');
  }
  if (timestamp === undefined || timestamp === null || timestamp === '') {
    return fail('missing_timestamp', 'falta el header X-Svc-Timestamp');
  }
  const sig = signature.trim();
  if (!sig.startsWith(SIGNATURE_PREFIX) || !HEX64.test(sig.slice(SIGNATURE_PREFIX.length))) {
    return fail(
      'malformed_signature',
      'X-Svc-Signature mal formado: se espera sha256=<64 dígitos hex en minúscula>',
    );
  }
  const ts = timestamp.trim();
  if (!INTEGER.test(ts)) {
    return fail('timestamp_not_integer', `X-Svc-Timestamp no es un entero: "${printable(ts)}"`);
  }
  if (tolerance > 0) {
    const now = input.now ?? Math.floor(Date.now() / 1000);
    const age = now - Number(ts);
    if (age > tolerance) {
      return fail(
        'timestamp_too_old',
        `timestamp demasiado viejo: ${age} s, la tolerancia es ${tolerance} s`,
      );
    }
    if (-age > tolerance) {
      return fail(
        'timestamp_in_future',
        `timestamp ${-age} s en el futuro, la tolerancia es ${tolerance} s`,
      );
    }
  }
  const expected = Buffer.from(sign(secret, ts, body), 'hex');
  const given = Buffer.from(sig.slice(SIGNATURE_PREFIX.length), 'hex');
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    return fail(
      'signature_mismatch',
      'la firma no coincide: el cuerpo fue modificado o el secreto es otro',
    );
  }
  return { ok: true };
}

function fail(reason: VerifyFailure, message: string): VerifyResult {
  return { ok: false, reason, message };
}

function printable(text: string): string {
  const clean = text.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 40 ? `${clean.slice(0, 40)}…` : clean;
}

/** Headers the service sends with a notification, in the order of the interface. */
export function notificationHeaders(
  secret: string,
  event: string,
  body: Body,
  timestamp: number | string = Math.floor(Date.now() / 1000),
): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'X-Svc-Event': event,
    'X-Svc-Timestamp': String(timestamp),
    'X-Svc-Signature': signatureHeader(secret, timestamp, body),
  };
}
