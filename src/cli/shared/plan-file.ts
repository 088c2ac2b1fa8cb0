// The text of a plan given to `--aplicar`: a regular file (never a FIFO, a device or,
// at its last name, a link), of at most the size such a plan can have, read whole from
// the descriptor that was checked. Refusals are one line naming the file (exit 2).
import { closeSync, readSync } from 'node:fs';
import { openRegularFile } from '../../durable.js';
import { UsageError } from '../../errors.js';
import { printable } from '../../text.js';

/** Why a plan file could not be opened, in words. */
function openProblem(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no existe';
  if (code === 'ELOOP') return 'es un enlace simbólico';
  if (code === 'EACCES') return 'sin permiso de lectura';
  if (code === 'ENOTREG') return 'no es un archivo';
  return (err as Error).message;
}

/** Reads `path` for `--aplicar`; `what` names the kind of plan in the size refusal. */
export function readPlanText(path: string, maxBytes: number, what: string): string {
  let file: { fd: number; size: number };
  try {
    file = openRegularFile(path);
  } catch (err) {
    throw new UsageError(`--aplicar "${printable(path)}": ${openProblem(err)}`);
  }
  const { fd, size } = file;
  try {
    if (size > maxBytes)
      throw new UsageError(`--aplicar "${printable(path)}": ${size} bytes no es ${what}`);
    const buf = Buffer.alloc(size);
    let off = 0;
    while (off < size) {
      const n = readSync(fd, buf, off, size - off, off);
      if (n === 0) break;
      off += n;
    }
    return buf.subarray(0, off).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
