// A service that pages its lists (the seed shows no paging, so a real one may): svc reads
// every page it is pointed to on the same origin, so totals, what is left to refund and
// `caso` are of the whole list. Where the reply says more follows and svc cannot read it,
// it gives no figure: test/cli/list-signs.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cobro, Liquidacion } from '../../src/api/schemas.js';
import { svc } from '../helpers/inproc.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';

const cents = (s: string) => BigInt(s.replace('.', ''));
const sum = (xs: string[]) => {
  const c = xs.reduce((s, x) => s + cents(x), 0n);
  return `${c / 100n}.${String(c % 100n).padStart(2, '0')}`;
};

let sb: InProcessSandbox;
let first: Cobro;

/** Every page of a list, read as the pages point (`next`), and how many pages there were. */
async function allPages<T>(path: string): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let url: string | null = path;
  let pages = 0;
  while (url !== null && pages < 100) {
    const r = await sb.api('GET', url.replace(sb.base_url, ''));
    expect(r.status).toBe(200);
    items.push(...(r.body.data as T[]));
    url = r.body.next as string | null;
    pages++;
  }
  return { items, pages };
}

beforeAll(async () => {
  // Two items a page: five payments and four refunds make lists of three to five pages.
  sb = await startSandbox({ pageSize: 2 });
  const pay = async (monto: string) => {
    const c = (await sb.api('POST', '/v1/cobros', { concepto: `Orden ${monto}`, monto })).body
      .data as Cobro;
    expect((await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, { medio: 'qr' })).status).toBe(
      200,
    );
    return c;
  };
  first = await pay('1000.00');
  const later = [
    await pay('200.00'),
    await pay('300.00'),
    await pay('400.00'),
    await pay('500.00'),
  ];
  // The first request's refund is the oldest: on the last page of the refunds.
  expect(
    (await sb.api('POST', `/v1/cobros/${first.id}/devoluciones`, { monto: '500.00' })).status,
  ).toBe(201);
  for (const c of later.slice(0, 3))
    expect(
      (await sb.api('POST', `/v1/cobros/${c.id}/devoluciones`, { monto: '10.00' })).status,
    ).toBe(201);
});
afterAll(() => sb?.stop());

describe('a paged service: svc reads every page', () => {
  it('the sandbox pages: has_more, next and Link rel="next" on every page but the last', async () => {
    const r = await sb.api('GET', '/v1/liquidaciones');
    expect(r.body.data).toHaveLength(2);
    expect(r.body.has_more).toBe(true);
    expect(r.headers.get('link')).toBe(`<${r.body.next}>; rel="next"`);
    const { items, pages } = await allPages<Liquidacion>('/v1/liquidaciones');
    expect([items.length, pages]).toEqual([5, 3]);
  });

  it('svc sandbox --por-pagina N pages as the option does', async () => {
    const own = await startSandbox({ argv: ['--por-pagina', '1'] });
    try {
      await own.cobro();
      await own.cobro();
      const r = await own.api('GET', '/v1/cobros');
      expect([r.body.data.length, r.body.has_more]).toEqual([1, true]);
    } finally {
      await own.stop();
    }
  });

  it('liquidaciones: the totals are the sum over all pages, --limit cuts rows only', async () => {
    const { items } = await allPages<Liquidacion>('/v1/liquidaciones');
    const bruto = sum(items.map((l) => l.bruto));
    const queda = sum(items.map((l) => l.te_queda));
    expect(bruto).toBe('2400.00');
    const r = await svc(['liquidaciones'], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`total\tbruto ${bruto}\t`);
    expect(r.stderr).toContain(`te_queda ${queda}\t(5 liquidaciones)`);
    expect(r.stdout.trim().split('\n')).toHaveLength(5);
    const limited = await svc(['liquidaciones', '--limit', '1', '--json'], { env: sb.env });
    expect((JSON.parse(limited.stdout) as Liquidacion[]).map((l) => l.id)).toEqual([
      Math.max(...items.map((l) => l.id)),
    ]);
    const porFecha = await svc(['liquidaciones', '--por-fecha', '--json'], { env: sb.env });
    expect(sum((JSON.parse(porFecha.stdout) as { bruto: string }[]).map((d) => d.bruto))).toBe(
      bruto,
    );
  });

  it('caso of a paid request shows its transaction and refund from the last pages', async () => {
    const r = await svc(['caso', String(first.id), '--json'], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const caso = JSON.parse(r.stdout);
    expect(caso.transacciones.map((t: { monto: string }) => t.monto)).toEqual(['1000.00']);
    expect(caso.devoluciones.map((d: { monto: string }) => d.monto)).toEqual(['500.00']);
    expect(caso.liquidaciones).toHaveLength(1);
  });

  it('devolver --total --dry-run counts a refund on page 2', async () => {
    const r = await svc(['devolver', String(first.id), '--total', '--dry-run'], { env: sb.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = r.stdout + r.stderr;
    expect(out).toMatch(/ya devuelto\s+500\.00 \(1 devolución\)/);
    expect(out).toMatch(/a devolver:\s+500\.00/);
  });

  it('--cobro and --limit keep their meaning across pages', async () => {
    const r = await svc(['transacciones', 'listar', '--cobro', String(first.id), '--json'], {
      env: sb.env,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).map((t: { cobro_id: number }) => t.cobro_id)).toEqual([first.id]);
    const limited = await svc(['cobro', 'listar', '--limit', '3'], { env: sb.env });
    expect(limited.stdout.trim().split('\n')).toHaveLength(3);
    expect(limited.stderr).toMatch(/^mostrando 3; hay más \(svc no leyó el resto de la lista\)$/m);
  });
});

describe('pages are the default of the sandbox', () => {
  it('svc sandbox pages 100 at a time unless told; --por-pagina 0 gives whole lists', async () => {
    const paged = await startSandbox({ argv: [] });
    const whole = await startSandbox({ argv: ['--por-pagina', '0'] });
    try {
      for (const own of [paged, whole]) for (let i = 0; i < 101; i++) await own.cobro();
      const one = await paged.api('GET', '/v1/cobros');
      expect([one.body.data.length, one.body.has_more]).toEqual([100, true]);
      const two = await paged.api(
        'GET',
        new URL(one.body.next).pathname + new URL(one.body.next).search,
      );
      expect([two.body.data.length, two.body.has_more, two.body.next]).toEqual([1, false, null]);
      expect(two.body.data[0].id).toBe(1);
      const all = await whole.api('GET', '/v1/cobros');
      expect(all.body.data).toHaveLength(101);
      expect('has_more' in all.body).toBe(false);
      expect(all.headers.get('link')).toBeNull();
    } finally {
      await paged.stop();
      await whole.stop();
    }
  });

  it('a request made while a client pages does not push one it read onto the next page', async () => {
    const own = await startSandbox({ pageSize: 2 });
    try {
      for (let i = 0; i < 5; i++) await own.cobro();
      const one = await own.api('GET', '/v1/cobros');
      expect(one.body.data.map((c: { id: number }) => c.id)).toEqual([5, 4]);
      await own.cobro();
      // `next` says where the page after starts: after the last id shown.
      const rest = await own.list(new URL(one.body.next).pathname + new URL(one.body.next).search);
      expect(rest.map((c: { id: number }) => c.id)).toEqual([3, 2, 1]);
    } finally {
      await own.stop();
    }
  });

  it('a test sandbox pages by default too', async () => {
    const own = await startSandbox();
    try {
      for (let i = 0; i < 101; i++) await own.cobro();
      const r = await own.api('GET', '/v1/cobros');
      expect([r.body.data.length, r.body.has_more]).toEqual([100, true]);
    } finally {
      await own.stop();
    }
  });

  it('every page of each list, filtered or not, is the whole list cut in order', async () => {
    // The dashboard's calls (X-Svc-Panel) get whole lists: it shows and counts them itself.
    const panel = { 'X-Svc-Panel': '1' };
    for (const path of [
      '/v1/cobros',
      '/v1/cobros?estado=pagado',
      '/v1/cobros?q=orden',
      '/v1/transacciones',
      '/v1/transacciones?medio=qr',
      '/v1/devoluciones',
      '/v1/liquidaciones',
    ]) {
      const whole = await sb.raw('GET', path, { headers: panel });
      expect('has_more' in whole.body, path).toBe(false);
      const { items, pages } = await allPages<{ id: number }>(path);
      expect(
        items.map((i) => i.id),
        path,
      ).toEqual(whole.body.data.map((i: { id: number }) => i.id));
      expect(pages, path).toBe(Math.max(1, Math.ceil(items.length / 2)));
    }
  });
});
