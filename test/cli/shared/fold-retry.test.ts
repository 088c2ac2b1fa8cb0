// A list folded as it arrives (totals in one pass) and cut off part-way: the read is
// tried again and its items are counted from nothing, never twice. The service here
// cuts the first reply of /v1/liquidaciones after 3,000 of its 5,000 settlements.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svc } from '../../helpers/inproc.js';

const N = 5_000;
const item = (i: number) => ({
  id: i + 1,
  transaccion_id: i + 1,
  cobro_id: 1,
  bruto: '10.00',
  te_cobramos: '0.50',
  te_queda: '9.50',
  fecha_operacion: '2026-03-02 10:00:00',
  fecha_estimada: `2026-03-0${(i % 3) + 2} 12:00:00`,
  estado: 'estimado',
});

/** Integer cents as the service writes an amount. */
const cents = (c: number) => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`;

let server: Server;
let url: string;
let replies = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url !== '/v1/liquidaciones') {
      res.writeHead(404, { 'content-type': 'application/json' });
      return res.end('{"error":"not_found","message":"no"}');
    }
    const first = replies++ === 0;
    res.writeHead(200, { 'content-type': 'application/json' });
    const items = Array.from({ length: first ? 3_000 : N }, (_, i) => JSON.stringify(item(i)));
    if (first) {
      // Written, then the connection is cut mid-list.
      res.write(`{"data":[${items.join(',')},`, () => res.destroy());
      return;
    }
    res.end(`{"data":[${items.join(',')}]}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server?.close(r));
});

describe('a folded list read again after a cut', () => {
  it('liquidaciones --por-fecha: the totals of the 5,000 settlements once', async () => {
    const r = await svc(['liquidaciones', '--por-fecha', '--json'], {
      env: {
        SVC_BASE_URL: url,
        SVC_API_KEY: 'svc_test_0123456789abcdef0123456789abcdef',
        SVC_TZ: 'America/Argentina/Buenos_Aires',
      },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(replies).toBe(2);
    const per = [1667, 1667, 1666];
    expect(JSON.parse(r.stdout)).toEqual(
      ['2026-03-02', '2026-03-03', '2026-03-04'].map((fecha, k) => ({
        fecha,
        liquidaciones: per[k],
        bruto: cents(per[k]! * 1000),
        te_cobramos: cents(per[k]! * 50),
        te_queda: cents(per[k]! * 950),
      })),
    );
  });
});
