// Rows svc cannot take exactly (api/exact.ts), said to the person who reads a list: one
// line each on stderr (never with --json, whose stdout keeps the row as sent and whose
// stderr is for an error only), so the table stays the service's rows as sent.
import { inexactRows } from '../../api/exact.js';
import type { Context } from '../context.js';

/** Most rows named one by one; past it, how many more. */
const NAMED = 10;

/** One line per row svc cannot take exactly among those shown. */
export function sayInexact(ctx: Context, rows: Iterable<unknown>): void {
  if (ctx.globals.json) return;
  const found = inexactRows(rows);
  const { io } = ctx;
  for (const r of found.slice(0, NAMED))
    io.err(
      io.c.yellow(
        `aviso: ${r.name} tiene ${r.why}: se muestra como llegó y no entra en ningún total`,
      ),
    );
  if (found.length > NAMED)
    io.err(
      io.c.yellow(
        `aviso: y ${found.length - NAMED} filas más así (svc … --json las da como llegaron)`,
      ),
    );
}
