// svc devolver planes [CARPETA]: the approver's queue. Every refund plan in a folder
// (one refund or a batch): who prepared it, why, how much, for which request or how
// many rows, and whether it was applied and by whom. Files that are not plans are
// passed over; nothing is sent and nothing is checked against the service.
import { closeSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openRegularFile } from '../../../durable.js';
import { UsageError } from '../../../errors.js';
import { printJson, printTable, type Column } from '../../../output/format.js';
import { printable } from '../../../text.js';
import type { Context } from '../../context.js';

interface PlanEntry {
  archivo: string;
  tipo: 'devolucion' | 'lote';
  /** The request (one refund) or how many rows (a batch). */
  para: string;
  monto: string;
  preparado_por: string | null;
  motivo: string | null;
  creado: string;
  aplicado: boolean;
  aplicado_por: string | null;
}

/** Plans larger than this are not refund plans svc writes (a batch of 10,000 rows is ~3 MB). */
const MAX_BYTES = 8 * 1024 * 1024;

/**
 * The text of `file` when it is a regular file of at most MAX_BYTES, its size when it is
 * larger (a FIFO or a link to /dev/zero is passed over, never read).
 */
function regularText(file: string): string | { size: number } {
  // A link is followed here (a folder of links to plans is listed), unlike --aplicar.
  const { fd, size } = openRegularFile(file, true);
  try {
    return size <= MAX_BYTES ? readFileSync(fd, 'utf8') : { size };
  } finally {
    closeSync(fd);
  }
}

/** A plan's line, the size of a file too large to read here, or undefined (not a plan). */
function entryOf(file: string, name: string): PlanEntry | { size: number } | undefined {
  try {
    const text = regularText(file);
    if (typeof text !== 'string') return text;
    const p = JSON.parse(text) as Record<string, any>;
    if (typeof p?.digest !== 'string' || typeof p.creado !== 'string') return undefined;
    const aplicado = p.aplicado && typeof p.aplicado === 'object' ? p.aplicado : null;
    const common = {
      archivo: name,
      preparado_por: typeof p.preparado_por === 'string' ? p.preparado_por : null,
      motivo: typeof p.motivo === 'string' ? p.motivo : null,
      creado: p.creado,
      aplicado: aplicado !== null,
      aplicado_por: typeof aplicado?.aplicado_por === 'string' ? aplicado.aplicado_por : null,
    };
    if (p.tipo === 'lote' && Array.isArray(p.filas) && typeof p.total === 'string') {
      return { ...common, tipo: 'lote', para: `${p.filas.length} filas`, monto: p.total };
    }
    if (
      (p.version === 1 || p.version === 2) &&
      Number.isSafeInteger(p.cobro?.id) &&
      typeof p.monto === 'string'
    ) {
      return { ...common, tipo: 'devolucion', para: `cobro ${p.cobro.id}`, monto: p.monto };
    }
  } catch {
    // Not JSON, unreadable: not a plan.
  }
  return undefined;
}

export async function listPlans(ctx: Context, args: string[]): Promise<void> {
  if (args.length > 1) throw new UsageError('svc devolver planes toma una sola carpeta');
  const dir = args[0] ?? '.';
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      `svc devolver planes "${printable(dir)}": ${code === 'ENOENT' ? 'no existe' : code === 'ENOTDIR' ? 'no es una carpeta' : (err as Error).message}`,
    );
  }
  const plans: PlanEntry[] = [];
  for (const n of names) {
    const entry = entryOf(join(dir, n), n);
    if (entry === undefined) continue;
    if ('archivo' in entry) plans.push(entry);
    else
      // Never passed over in silence: a batch of some 30,000 rows makes a plan this large.
      ctx.io.err(
        `aviso: ${printable(n)} no se lista: tiene ${(entry.size / 2 ** 20).toFixed(1)} MiB y aquí se leen hasta 8 MiB; si es un plan, svc devolver --aplicar lo muestra entero antes de preguntar`,
      );
  }
  if (ctx.globals.json) return printJson(ctx.io, plans);
  const columns: Column<PlanEntry>[] = [
    { header: 'ARCHIVO', value: (p) => p.archivo, shrink: true },
    { header: 'PARA', value: (p) => p.para },
    { header: 'MONTO', value: (p) => p.monto, align: 'right' },
    { header: 'PREPARÓ', value: (p) => p.preparado_por ?? '?' },
    { header: 'MOTIVO', value: (p) => p.motivo ?? '', shrink: true, drop: 1 },
    { header: 'APLICADO', value: (p) => (p.aplicado ? `sí, por ${p.aplicado_por ?? '?'}` : 'no') },
  ];
  await printTable(ctx.io, columns, plans, `ningún plan de devolución en ${printable(dir)}`);
}
