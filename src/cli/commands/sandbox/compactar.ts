// svc sandbox compactar --data FILE: rewrites a stopped sandbox's data file as its
// current state only (keys, secret, records, notification events owed and settled),
// atomically; the superseded lines go. Refused while a sandbox holds the file.
import { existsSync } from 'node:fs';
import type { Context } from '../../context.js';
import type { OptionsOf } from '../../define.js';
import { ConfigError, UsageError } from '../../../errors.js';
import type { compactarOptions } from './index.js';

export async function run(
  ctx: Context,
  _args: string[],
  opts: OptionsOf<typeof compactarOptions>,
): Promise<void> {
  const file = opts.data ?? '';
  if (file.trim() === '')
    throw new UsageError(
      '--data necesita la ruta del archivo de datos a compactar (ej. svc sandbox compactar --data ./sandbox.jsonl)',
    );
  // Opening a missing file would create an empty sandbox: nothing to compact.
  if (!existsSync(file))
    throw new ConfigError(
      `${file} no existe; --data tiene que ser el archivo de datos de un svc sandbox`,
    );
  const { io } = ctx;
  const { Store } = await import('../../../sandbox/store.js');
  const { SandboxStartError } = await import('../../../sandbox/sandbox-error.js');
  let store;
  try {
    store = Store.open(file, {
      busyHint: 'detenelo antes de compactar',
      onNotice: (text) => io.err(`${io.c.yellow('aviso:')} ${text}`),
      compactAtBytes: Infinity,
    });
  } catch (err) {
    if (err instanceof SandboxStartError) throw new ConfigError(err.message);
    throw err;
  }
  let result;
  try {
    result = store.compact();
  } catch (err) {
    throw new ConfigError(
      `no se pudo compactar ${file} (${(err as Error).message}); quedó como estaba`,
    );
  } finally {
    store.close();
  }
  if (ctx.globals.json) {
    io.outRaw(
      JSON.stringify({ archivo: file, bytes_antes: result.before, bytes_despues: result.after }),
    );
  } else {
    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
    io.out(`${file} compactado: ${mb(result.before)} → ${mb(result.after)}`);
  }
}
