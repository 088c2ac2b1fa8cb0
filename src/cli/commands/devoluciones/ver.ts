// svc devoluciones ver <id>: GET /v1/devoluciones/{id}.
import type { Context } from '../../context.js';
import { OPEN_FIELDS } from '../../../api/enums.js';
import { showRecord } from '../../shared/show-record.js';

export async function run(ctx: Context, args: string[]): Promise<void> {
  await showRecord(
    ctx,
    args[0],
    'la devolución',
    (client, id) => client.verDevolucion(id),
    'svc devoluciones listar',
    OPEN_FIELDS.devolucion,
  );
}
