// What the sandbox's own tests share: a notification receiver that records raw bodies
// and headers, a bounded wait, and the fields of each resource. Their sandbox is
// startSandbox() of test/helpers/sandbox.ts.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Statuses to answer, in order; then 200. A status of 0 means: never answer. */
  script: number[];
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function receiver(script: number[] = []): Promise<Receiver> {
  const received: Received[] = [];
  const waiters: (() => void)[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      for (const w of waiters.splice(0)) w();
      const status = r.script.length ? r.script.shift()! : 200;
      if (status === 0) return; // hang: the sender's timeout decides
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const r: Receiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    script,
    async waitFor(n, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      while (received.length < n) {
        if (Date.now() > until) throw new Error(`expected ${n} notifications, got ${received.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return r;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until check() is truthy (polling), or fails after timeoutMs. */
export async function eventually<T>(check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > until) throw new Error('condition not met in time');
    await sleep(25);
  }
}

export const COBRO_FIELDS = [
  'id',
  'codigo',
  'concepto',
  'monto',
  'monto_cobrado',
  'estado',
  'url',
  'cvu',
  'qr',
  'referencia',
  'medios',
  'vencimiento',
  'success_url',
  'error_url',
  'created_at',
  'updated_at',
];
export const TRANSACCION_FIELDS = ['id', 'cobro_id', 'medio', 'monto', 'te_cobramos', 'te_queda', 'estado', 'codigo', 'fecha', 'acreditacion'];
export const DEVOLUCION_FIELDS = ['id', 'cobro_id', 'monto', 'tipo', 'estado', 'created_at'];
export const LIQUIDACION_FIELDS = ['id', 'transaccion_id', 'cobro_id', 'bruto', 'te_cobramos', 'te_queda', 'fecha_operacion', 'fecha_estimada', 'estado'];
export const EVENT_FIELDS = ['event', 'cobro_id', 'codigo', 'estado', 'monto', 'monto_cobrado', 'transaccion_id'];
export const LOCAL = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
