// Shared body of the `ver` commands: check the id (before any request), fetch, print the record.
import type { Client } from '../../api/client.js';
import { NotFoundError } from '../../api/service-errors.js';
import type { Context } from '../context.js';
import { parseId } from '../parse.js';
import { printJson, printRecord } from '../../output/format.js';
import { pairsOf } from '../../output/resources.js';
import { inZone } from '../../domain/dates.js';

export async function showRecord<T extends Record<string, unknown>>(
  ctx: Context,
  rawId: string | undefined,
  what: string,
  fetch: (client: Client, id: number) => Promise<{ data: { data: T } }>,
  /** The list that shows the ids, named when the id is not found (`svc transacciones listar`). */
  list: string,
  /** The resource's open fields and the values svc knows (OPEN_FIELDS). */
  open: Readonly<Record<string, readonly string[]>>,
): Promise<void> {
  const id = parseId(rawId);
  const client = await ctx.client();
  const { data } = await ctx.spin(`leyendo ${what} ${id}…`, () =>
    withNotFoundHint(fetch(client, id), `revisá el id; \`${list}\` las muestra`),
  );
  if (ctx.globals.json) return printJson(ctx.io, data.data);
  printRecord(ctx.io, pairsOf(inZone(data.data, await ctx.zone()), open));
}

/** A 404 of `pending` carries `hint` (the list where such ids are found) instead of the one about cobros. */
export function withNotFoundHint<T>(pending: Promise<T>, hint: string): Promise<T> {
  return pending.catch((err: unknown) => {
    if (err instanceof NotFoundError && err.http === 404 && !err.suggestion)
      throw new NotFoundError(err.http, err.error, err.message, err.body, hint);
    throw err;
  });
}
