// svc cobro listar: GET /v1/cobros with estado and q; --desde, --hasta and --limit are applied here.
// When the service's search finds nothing for --q, svc searches again on its side
// ignoring accents and case (ibanez finds Ibáñez) and says that it did.
import type { Cobro } from '../../../api/schemas.js';
import { folded, printable } from '../../../text.js';
import type { Context } from '../../context.js';
import { inZone } from '../../../domain/dates.js';
import { parseOpenChoice } from '../../parse.js';
import { ESTADOS_COBRO } from '../../../api/enums.js';
import { printJsonItems, printTable } from '../../../output/format.js';
import { cobroColumns, cobroFields } from '../../../output/resources.js';
import { UsageError } from '../../../errors.js';
import { eachRow, firstRows, listFilter, readShown, sayLimited } from '../../shared/lists.js';
import { sayInexact } from '../../shared/inexact.js';
import type { OptionsOf } from '../../define.js';
import type { listarOptions } from './index.js';

const createdAt = (c: { created_at: string }) => c.created_at;

export async function run(
  ctx: Context,
  _args: string[],
  opts: OptionsOf<typeof listarOptions>,
): Promise<void> {
  const estado = parseOpenChoice(opts.estado, ESTADOS_COBRO, '--estado', (line) =>
    ctx.io.err(ctx.io.c.yellow(line)),
  );
  const q = opts.q;
  if (q !== undefined && (q.trim() === '' || q.length > 200 || /[\u0000-\u001f\u007f]/.test(q))) {
    throw new UsageError('--q debe tener entre 1 y 200 caracteres, sin caracteres de control');
  }
  const client = await ctx.client();
  const filter = await listFilter(ctx, client, opts);
  const { data: list } = await ctx.spin('buscando cobros…', () =>
    client.iterarCobros({ estado, q }, readShown(filter, createdAt)),
  );
  let { rows, count, cut } = firstRows(list, filter, createdAt);
  let widened: string | undefined;
  if (q !== undefined && count === 0) {
    const want = folded(q.trim());
    // A request of another shape matches (is held), so the list's check refuses it.
    const matches = (c: Cobro) =>
      [c.codigo, c.concepto, c.referencia ?? ''].some(
        (t) => typeof t !== 'string' || folded(t).includes(want),
      );
    // Every match is counted (no --limit on the reading); only the matches are held.
    const { data: all } = await ctx.spin('buscando sin acentos ni mayúsculas…', () =>
      client.iterarCobros(
        { estado },
        readShown({ ...filter, limit: undefined }, createdAt, matches),
      ),
    );
    cut = false;
    const like = function* (items: Iterable<Cobro>) {
      for (const c of items) if (matches(c)) yield c;
    };
    ({ rows, count } = firstRows(like(all), filter, createdAt));
    widened = `la búsqueda del servicio no encontró "${printable(q)}" (distingue acentos); svc buscó ignorando acentos y mayúsculas: ${count === 1 ? '1 cobro' : `${count} cobros`}`;
  }
  if (widened && !ctx.globals.json) ctx.io.err(ctx.io.c.yellow(widened));
  if (ctx.globals.json) return printJsonItems(ctx.io, rows);
  const filtered = [opts.estado, q, opts.desde, opts.hasta].some((v) => v !== undefined);
  const zone = await ctx.zone();
  await printTable(
    ctx.io,
    cobroColumns,
    eachRow(rows, (r) => inZone(r, zone)),
    filtered
      ? 'no hay cobros con esos filtros'
      : 'no hay cobros todavía: `svc cobro crear` crea uno',
    cobroFields,
  );
  sayInexact(ctx, rows);
  sayLimited(ctx, rows.length, count, '', cut);
}
