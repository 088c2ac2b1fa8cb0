// `--limit N` on a list shown without totals reads the list only until it has N rows
// to show, then closes the connection: against a service whose list never ends (it
// writes items until the client goes, or 50,000 of them and then cuts the connection
// mid-list), `cobro listar --limit 2` shows the two first and exits 0, and the service
// sees the client leave long before its end. A list with totals still reads it all.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svc } from '../helpers/inproc.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';

const MAX_ITEMS = 50_000;
let sb: InProcessSandbox;
let server: Server;
let url: string;
let sample: Record<string, unknown>;
/** Items each reply managed to write before the client left (or MAX_ITEMS). */
const written: number[] = [];

/** Writes `{"data":[` and items, a few at a time, until the client goes; cut at MAX_ITEMS. */
function endless(res: ServerResponse, item: (i: number) => unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"data":[');
  let i = 0;
  let gone = false;
  res.once('close', () => {
    gone = true;
    written.push(i);
  });
  const more = () => {
    if (gone) return;
    if (i >= MAX_ITEMS) {
      res.destroy();
      return;
    }
    let text = '';
    for (let k = 0; k < 50; k++, i++) text += `${i ? ',' : ''}${JSON.stringify(item(i))}`;
    if (res.write(text)) setImmediate(more);
    else res.once('drain', more);
  };
  more();
}

beforeAll(async () => {
  sb = await startSandbox();
  sample = (await sb.api('POST', '/v1/cobros', { concepto: 'Sin fin', monto: '10.00' })).body
    .data as Record<string, unknown>;
  server = createServer((req, res) => {
    if (req.url?.startsWith('/v1/cobros'))
      return endless(res, (i) => ({ ...sample, id: MAX_ITEMS - i, codigo: `C${i}` }));
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":"not_found","message":"no"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await sb?.stop();
});

describe('--limit reads no more of a list than it shows', () => {
  it('cobro listar --limit 2 on a list that never ends: two rows, exit 0, the rest unread', async () => {
    const env = { SVC_BASE_URL: url, SVC_API_KEY: 'svc_test_0123456789abcdef0123456789abcdef' };
    written.length = 0;
    const r = await svc(['cobro', 'listar', '--limit', '2', '--json'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { id: number }[]).map((c) => c.id)).toEqual([
      MAX_ITEMS,
      MAX_ITEMS - 1,
    ]);
    const piped = await svc(['cobro', 'listar', '--limit', '2'], { env });
    expect(piped.exitCode, piped.stderr).toBe(0);
    expect(piped.stdout.trim().split('\n')).toHaveLength(2);
    expect(piped.stderr).toBe('mostrando 2; hay más (svc no leyó el resto de la lista)\n');
    await new Promise((r) => setTimeout(r, 50));
    expect(written).toHaveLength(2);
    for (const n of written) expect(n).toBeLessThan(MAX_ITEMS);
  });
});
