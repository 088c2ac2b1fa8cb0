// `--mostrar-qr` of crear, sync and cobro ver: the QR payload appears a moment after creation,
// so wait for it with GETs (never a POST), then draw it. The drawing goes to stdout
// on a terminal and to stderr otherwise, so piped data and --json stay clean.
import type { Client } from '../../api/client.js';
import type { Cobro } from '../../api/schemas.js';
import { renderQr } from '../../output/terminal-qr.js';
import { shown } from '../../text.js';
import type { Context } from '../context.js';

const WAIT_MS = 15_000;
const STEP_MS = 750;

export async function showQr(
  ctx: Context,
  client: Client,
  cobro: Cobro,
  waitMs = WAIT_MS,
): Promise<Cobro> {
  const { io } = ctx;
  if (!cobro.medios.qr) {
    io.err(
      io.c.yellow(
        `el cobro ${cobro.id} no acepta pagos con QR (se creó con --no-qr): no hay QR para mostrar`,
      ),
    );
    return cobro;
  }
  let current = cobro;
  if (current.qr === null) {
    current = await ctx.spin('esperando el QR del cobro…', async () => {
      const deadline = Date.now() + waitMs;
      let c = current;
      while (
        c.qr === null &&
        ['PENDIENTE', 'EN_PROCESO'].includes(c.estado) &&
        Date.now() < deadline
      ) {
        await new Promise((r) => setTimeout(r, STEP_MS));
        c = (await client.verCobro(c.id)).data.data;
      }
      return c;
    });
  }
  if (current.qr === null) {
    io.err(
      io.c.yellow(
        `el QR del cobro ${cobro.id} todavía no está listo; probá en un rato con \`svc cobro ver ${cobro.id} --mostrar-qr\``,
      ),
    );
    return current;
  }
  const toStdout = io.stdoutTTY && !ctx.globals.json;
  const write = toStdout ? io.out : io.err;
  const lines = renderQr(current.qr, { color: toStdout ? io.color : false });
  write('');
  for (const line of lines) write(line);
  write(io.c.dim(`QR del cobro ${shown(current.codigo, 40)} (escanealo para pagar)`));
  return current;
}
