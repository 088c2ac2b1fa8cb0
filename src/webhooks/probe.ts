// `svc webhook probar`: the cases a correct receiver of the service's notifications
// must handle, built from the same signer the service's notifications use, and the
// sender that delivers them. A correct receiver acknowledges (2xx) every genuine
// delivery, the same one twice (the service retries) and one whose body arrives
// slowly in pieces; it refuses (non-2xx) a wrong signature, a body changed after
// signing, a timestamp outside the tolerance either way, missing signature headers,
// and an X-Svc-Event header that does not name the body's event.
import { proxyAuthError, type Network } from '../api/network.js';
import { openRequest, type Opened } from '../api/transport.js';
import { EVENTOS } from '../api/enums.js';
import { sampleBody } from './events.js';
import { notificationHeaders, signatureHeader } from './signature.js';

export type Expect = '2xx' | 'rechazo';

export interface Delivery {
  headers: Record<string, string>;
  body: string;
  /** Sent in this many pieces, `pauseMs` apart (a slow network). */
  pieces?: number;
  pauseMs?: number;
}

export interface ProbeCase {
  name: string;
  expect: Expect;
  /** Delivered in order; every one must meet the expectation. */
  deliveries: Delivery[];
}

/** Every case, signed with `secret` at `now` (Unix seconds); `tolerance` is the receiver's, in seconds. */
export function probeCases(
  secret: string,
  now: number,
  tolerance: number,
  userAgent: string,
): ProbeCase[] {
  const signed = (body: string, event: string, ts = now): Delivery => ({
    headers: { 'user-agent': userAgent, ...notificationHeaders(secret, event, body, ts) },
    body,
  });
  const text = (event: (typeof EVENTOS)[number], cobro: number) =>
    JSON.stringify(sampleBody(event, { cobro_id: cobro }));
  const cases: ProbeCase[] = EVENTOS.map((event, i) => ({
    name: `válida: ${event}`,
    expect: '2xx',
    deliveries: [signed(text(event, 9001 + i), event)],
  }));

  const base = text('payment.approved', 9100);
  const other = signed(base, 'payment.approved');
  other.headers['X-Svc-Signature'] = signatureHeader(`${secret}-otro`, now, base);
  cases.push({ name: 'firma hecha con otro secreto', expect: 'rechazo', deliveries: [other] });

  const tampered = signed(base, 'payment.approved');
  tampered.body = base.replace('"monto":"', '"monto":"1');
  cases.push({
    name: 'cuerpo cambiado después de firmar',
    expect: 'rechazo',
    deliveries: [tampered],
  });

  const margin = tolerance + 60;
  cases.push({
    name: `timestamp viejo (${margin} s atrás)`,
    expect: 'rechazo',
    deliveries: [signed(base, 'payment.approved', now - margin)],
  });
  cases.push({
    name: `timestamp del futuro (${margin} s adelante)`,
    expect: 'rechazo',
    deliveries: [signed(base, 'payment.approved', now + margin)],
  });

  const bare = signed(base, 'payment.approved');
  delete bare.headers['X-Svc-Signature'];
  delete bare.headers['X-Svc-Timestamp'];
  cases.push({
    name: 'sin X-Svc-Signature ni X-Svc-Timestamp',
    expect: 'rechazo',
    deliveries: [bare],
  });

  const mismatch = signed(base, 'payment.approved');
  mismatch.headers['X-Svc-Event'] = 'payment.refunded';
  cases.push({
    name: 'X-Svc-Event distinto del evento del cuerpo',
    expect: 'rechazo',
    deliveries: [mismatch],
  });

  const twice = signed(text('payment.partially_paid', 9200), 'payment.partially_paid');
  cases.push({
    name: 'la misma entrega dos veces (reintento)',
    expect: '2xx',
    deliveries: [twice, twice],
  });

  cases.push({
    name: 'red lenta (el cuerpo llega en 4 partes)',
    expect: '2xx',
    deliveries: [
      { ...signed(text('payment.pending', 9300), 'payment.pending'), pieces: 4, pauseMs: 150 },
    ],
  });
  return cases;
}

export interface Sent {
  status: number | null;
  error?: string;
}

/** POSTs one delivery with node:http(s), in pieces when asked; never throws. */
export function deliver(
  url: URL,
  d: Delivery,
  timeoutMs: number,
  network?: Network,
): Promise<Sent> {
  return new Promise((resolve) => {
    const bytes = Buffer.from(d.body, 'utf8');
    let done = false;
    const finish = (s: Sent) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(s);
    };
    let opened: Opened;
    try {
      opened = openRequest(
        url,
        { method: 'POST', headers: { ...d.headers, 'content-length': String(bytes.length) } },
        network,
      );
    } catch (err) {
      resolve({ status: null, error: (err as Error).message });
      return;
    }
    const { req, proxy } = opened;
    const timer = setTimeout(() => {
      req.destroy();
      finish({ status: null, error: `sin respuesta en ${timeoutMs / 1000} s` });
    }, timeoutMs);
    req.once('error', (err: NodeJS.ErrnoException) =>
      finish({
        status: null,
        // A proxy's failure says so in words; the app's, its socket code.
        error: err.name === 'ProxyError' ? err.message : (err.code ?? err.message),
      }),
    );
    req.once('response', (res) => {
      res.resume();
      if (proxy && res.statusCode === 407) {
        finish({ status: null, error: proxyAuthError(proxy).message });
        return;
      }
      res.once('end', () => finish({ status: res.statusCode ?? null }));
      res.once('error', () => finish({ status: res.statusCode ?? null }));
    });
    const pieces = Math.max(1, d.pieces ?? 1);
    const size = Math.ceil(bytes.length / pieces);
    let i = 0;
    const next = () => {
      if (done) return;
      const chunk = bytes.subarray(i * size, (i + 1) * size);
      i++;
      if (i >= pieces) req.end(chunk);
      else {
        req.write(chunk);
        setTimeout(next, d.pauseMs ?? 0);
      }
    };
    next();
  });
}

/** Whether an answer meets a case's expectation. */
export function meets(expect: Expect, s: Sent): boolean {
  if (s.status === null) return false;
  const ok = s.status >= 200 && s.status < 300;
  return expect === '2xx' ? ok : !ok;
}
