// GET /v1/cobros?q= is answered from the store's search text (store.ts SearchText), not
// a walk over every request: it must find exactly what a walk would, newest first,
// across its pieces of 4096 requests, and after requests are made or change.
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../helpers/sandbox.js';

type Row = { id: number; codigo: string; concepto: string; referencia: string | null };

/** What the seed says `q` matches: the code, the concept or the referencia, any case. */
function walk(all: Row[], q: string): number[] {
  const t = q.trim().toLowerCase();
  return all
    .filter((c) =>
      [c.codigo, c.concepto, c.referencia ?? ''].some((f) => f.toLowerCase().includes(t)),
    )
    .map((c) => c.id);
}

describe('?q= of the payment requests', () => {
  it('finds what a walk over every request finds, newest first, before and after changes', async () => {
    const s = await startSandbox({ generate: 4500 });
    try {
      const tricky = [
        { concepto: 'Ñandú ÁRBOL', referencia: 'Caja-7' },
        { concepto: 'ΟΔΟΣ', referencia: null },
        { concepto: 'İstanbul', referencia: 'x' },
        { concepto: 'fin', referencia: 'PED-0000009' },
      ];
      for (const t of tricky)
        await s.cobro({
          concepto: t.concepto,
          monto: '10.00',
          ...(t.referencia ? { referencia: t.referencia } : {}),
        });
      const list = async (q?: string) =>
        (await s.list(
          `/v1/cobros${q === undefined ? '' : `?q=${encodeURIComponent(q)}`}`,
        )) as Row[];
      const all = await list();
      expect(all).toHaveLength(4504);
      const some = all[1234]!;
      const queries = [
        'PED-0000009',
        'ped-000000',
        'PED-00045',
        some.codigo,
        some.codigo.slice(3, 8).toLowerCase(),
        'cuota',
        'Técnico',
        'ñandú',
        'árbol',
        'οδος',
        'ος',
        'i̇stanbul',
        'caja-7',
        ' caja-7 ',
        'nada de esto',
        // Across two fields of one request: the end of a code and the start of its concept.
        `${all[0]!.codigo.slice(-2)}${all[0]!.concepto.slice(0, 2)}`,
        '0000',
      ];
      for (const q of queries)
        expect(
          (await list(q)).map((c) => c.id),
          q,
        ).toEqual(walk(all, q));

      // Made after a search, and one whose state changed: found, in their new state.
      const late = await s.cobro({
        concepto: 'Pedido tardío',
        monto: '5.00',
        referencia: 'PED-0000009-b',
      });
      await s.api('POST', `/_sandbox/cobros/${some.id}/pagar`, { medio: 'qr' }).catch(() => {});
      const after = await list();
      for (const q of ['PED-0000009', 'tardío', some.codigo])
        expect(
          (await list(q)).map((c) => c.id),
          q,
        ).toEqual(walk(after, q));
      expect((await list('tardío'))[0]!.id).toBe(late.id);
      expect((await list(some.codigo))[0]).toEqual(after.find((c) => c.id === some.id));
    } finally {
      await s.stop();
    }
  });
});
