// The writes in doubt of single commands (svc devolver, svc cobro crear), per profile
// and mode: one small file per write, written durably (fsync, rename, folder fsync)
// before its POST and removed once its outcome is known. What is left is a write whose
// outcome nobody knows (an answer that was no refusal, a cut, a kill): the next command
// that could repeat it looks the service up first and says what it found, so a person
// who reruns a command after "puede haberse hecho o no" never pays twice.
// One file per write, never one shared file: two commands at once never rewrite each
// other's record, and no lock is needed.
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { dataDir } from '../../config/profiles.js';
import { readPrivateFile } from '../../config/private.js';
import { replaceFile } from '../../durable.js';
import { shown } from '../../text.js';
import type { Context } from '../context.js';

/** A refund sent to a payment request, and the refunds it had before. */
export interface RefundDoubt {
  tipo: 'devolucion';
  cobro_id: number;
  monto: string;
  /** Ids of the request's refunds before it was sent: a refund not among them is new. */
  antes: number[];
  /** When it was sent (ISO 8601, UTC). */
  desde: string;
  /** The service's address as shown (userinfo hidden). */
  servicio: string;
}

/** A payment request sent for creation. */
export interface RequestDoubt {
  tipo: 'cobro';
  monto: string;
  concepto: string;
  referencia: string | null;
  desde: string;
  servicio: string;
}

export type Doubt = RefundDoubt | RequestDoubt;

/** A doubt as found on disk: where it is, so it can be cleared. */
export interface Found<D extends Doubt = Doubt> {
  file: string;
  doubt: D;
}

/** The folder of one profile's writes in doubt in one mode (test and live never mix). */
export function doubtDir(env: NodeJS.ProcessEnv, profile: string, mode: string): string {
  return join(dataDir(env), 'en-duda', `${profile}.${mode}`);
}

export class DoubtBook {
  constructor(readonly dir: string) {}

  /** Every write in doubt of this profile and service; a file that cannot be read is skipped. */
  list(servicio: string): Found[] {
    let names: string[];
    try {
      names = readdirSync(this.dir).filter((n) => n.endsWith('.json'));
    } catch {
      return [];
    }
    const out: Found[] = [];
    for (const name of names.sort()) {
      const file = join(this.dir, name);
      try {
        const doubt = JSON.parse(
          readPrivateFile(file, 'un registro de escritura en duda') ?? 'null',
        ) as Doubt;
        if (doubt && typeof doubt === 'object' && doubt.servicio === servicio)
          out.push({ file, doubt });
      } catch {
        // A record cut by a kill before its rename never shows: rename is all or nothing.
      }
    }
    return out;
  }

  /** Records a write before it is sent; returns its file. */
  add(doubt: Doubt): string {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const stamp = doubt.desde.replace(/[^0-9]/g, '');
    const rand = process.getBuiltinModule('node:crypto').randomBytes(4).toString('hex');
    const file = join(this.dir, `${stamp}-${doubt.tipo}-${rand}.json`);
    replaceFile(file, `${JSON.stringify(doubt)}\n`);
    return file;
  }

  /** The write's outcome is known (made, refused, or found on the service). */
  clear(file: string): void {
    rmSync(file, { force: true });
  }
}

/** Records a write before it is sent; a record that cannot be written is said, and the write goes on. */
export function keepDoubt(ctx: Context, book: DoubtBook, doubt: Doubt): string | undefined {
  try {
    return book.add(doubt);
  } catch (err) {
    ctx.io.err(
      ctx.io.c.yellow(
        `aviso: no se pudo anotar el envío en ${shown(book.dir)} (${(err as Error).message}); si el resultado queda en duda, svc no lo revisará solo`,
      ),
    );
    return undefined;
  }
}
