// svc transacciones ver <id>: GET /v1/transacciones/{id}.
import type { Context } from '../../context.js';
import { OPEN_FIELDS } from '../../../api/enums.js';
import { showRecord } from '../../shared/show-record.js';

export async function run(ctx: Context, args: string[]): Promise<void> {
  await showRecord(
    ctx,
    args[0],
    'la transacción',
    (client, id) => client.verTransaccion(id),
    'svc transacciones listar',
    OPEN_FIELDS.transaccion,
  );
}
