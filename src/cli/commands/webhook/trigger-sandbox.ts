// svc webhook trigger <event> --sandbox: the real state change in `svc sandbox` that
// emits the event (create, pay, reject, refund…), through the sandbox's control plane,
// then the sandbox's first attempt to deliver it.
import { maskTarget } from '../../../api/address.js';
import type { Evento } from '../../../api/enums.js';
import type { Cobro } from '../../../api/schemas.js';
import { DEFAULTS } from '../../../defaults.js';
import { UsageError } from '../../../errors.js';
import { formatCents, parseAmount, percentOf, sumAmounts } from '../../../domain/money.js';
import { printJson } from '../../../output/format.js';
import type { Context } from '../../context.js';
import {
  SandboxControl,
  type Entrega,
  type PayerAction,
  type PayerBody,
} from '../../shared/sandbox-control.js';
import { field } from '../../shared/webhook.js';

/** How long to wait for the sandbox's first delivery attempt, and how often to look. */
const DELIVERY_WAIT_MS = 5_000;
const DELIVERY_POLL_MS = 100;

export interface SandboxTrigger {
  cobroId: number | undefined;
  monto: string | undefined;
  forwardTo: string | undefined;
}

export async function viaSandbox(ctx: Context, event: Evento, o: SandboxTrigger): Promise<void> {
  const { io } = ctx;
  const c = io.c;
  const client = await ctx.client();
  const control = new SandboxControl(client);
  await control.ensureSandbox('--sandbox');
  if (o.forwardTo) {
    await control.setWebhookUrl(o.forwardTo);
    io.err(`${c.dim('·')} el sandbox ahora envía las notificaciones a ${maskTarget(o.forwardTo)}`);
  }
  const step = (text: string) => io.err(`${c.dim('·')} ${text}`);
  const hook = await control.webhookUrl();
  const lastEntrega = (await control.entregas()).reduce((max, e) => Math.max(max, e.id), 0);

  let cobro: Cobro;
  if (o.cobroId === undefined) {
    cobro = (
      await client.crearCobro({
        concepto: `Prueba de svc webhook trigger ${event}`,
        monto: o.monto ?? DEFAULTS.triggerMonto,
      })
    ).data.data;
    step(`cobro ${cobro.id} creado (${cobro.monto}) → payment.created`);
  } else {
    if (event === 'payment.created')
      throw new UsageError(
        'payment.created se envía al crear un cobro: sin --cobro, el trigger crea uno',
      );
    cobro = (await client.verCobro(o.cobroId)).data.data;
  }
  const id = cobro.id;
  const move = async (action: PayerAction, body: PayerBody, emits: string) => {
    cobro = await control.act(id, action, body);
    step(`${action} cobro ${id} → ${cobro.estado} (${emits})`);
  };
  const left = () => parseAmount(cobro.monto) - parseAmount(cobro.monto_cobrado);
  const payAll = async () => {
    if (
      cobro.estado === 'PENDIENTE' ||
      cobro.estado === 'EN_PROCESO' ||
      cobro.estado === 'PAGADA_PARCIALMENTE'
    ) {
      await move('pagar', { monto: formatCents(left()) }, 'payment.approved');
    }
  };
  const refundable = async (): Promise<bigint> => {
    const devoluciones = (await client.listarDevoluciones()).data.data.filter(
      (d) => d.cobro_id === id,
    );
    return parseAmount(cobro.monto_cobrado) - sumAmounts(devoluciones.map((d) => d.monto));
  };
  switch (event) {
    case 'payment.created':
      break;
    case 'payment.pending':
      await move('iniciar', {}, 'payment.pending');
      break;
    case 'payment.approved':
      await move('pagar', {}, 'payment.approved');
      break;
    case 'payment.partially_paid': {
      const half = percentOf(left(), '50');
      if (half <= 0n)
        throw new UsageError(
          `al cobro ${id} le falta ${formatCents(left())}: no alcanza para un pago parcial`,
        );
      await move('pagar', { monto: formatCents(half) }, 'payment.partially_paid');
      break;
    }
    case 'payment.rejected':
      await move('rechazar', {}, 'payment.rejected');
      break;
    case 'payment.refunded':
    case 'payment.partially_refunded': {
      await payAll();
      const total = await refundable();
      const amount = event === 'payment.refunded' ? total : percentOf(total, '50');
      if (amount <= 0n) throw new UsageError(`el cobro ${id} no tiene saldo para devolver`);
      const dev = (await client.devolver(id, { monto: formatCents(amount) })).data.data;
      step(`devolución de ${dev.monto} en cobro ${id} → ${dev.estado} (${event})`);
      break;
    }
  }
  // The sandbox sends asynchronously: show the delivery once it is attempted.
  const delivered = hook ? await waitDelivery(control, event, id, lastEntrega) : undefined;
  if (ctx.globals.json) {
    printJson(io, { event, cobro_id: id, estado: cobro.estado, entrega: delivered ?? null });
    return;
  }
  if (!delivered) {
    io.out(
      `${event} (cobro ${id}): ${hook ? `el sandbox todavía no lo entregó a ${hook}` : 'el sandbox no tiene URL de notificaciones'}`,
    );
    if (!hook)
      io.err(
        c.dim(
          '→ repetí con --forward-to URL: el sandbox la guarda y se la entrega ahí (sin reiniciarlo)',
        ),
      );
    return;
  }
  const paint = delivered.ok ? c.green : c.red;
  io.out(
    `${event} (cobro ${id}) --> ${field(maskTarget(delivered.url), 200)}  ${paint(delivered.status === null ? field(delivered.error, 200, 'sin respuesta') : field(delivered.status, 20))}` +
      (delivered.ok ? '' : c.dim(' (el sandbox reintenta)')),
  );
}

/** The first delivery attempt of this event for this cobro after entrega `afterId`, within DELIVERY_WAIT_MS. */
async function waitDelivery(
  control: SandboxControl,
  event: string,
  cobroId: number,
  afterId: number,
): Promise<Entrega | undefined> {
  const deadline = Date.now() + DELIVERY_WAIT_MS;
  for (;;) {
    const mine = (await control.entregas()).find(
      (e) => e.id > afterId && e.event === event && e.cobro_id === cobroId,
    );
    if (mine) return mine;
    if (Date.now() > deadline) return undefined;
    await new Promise((r) => setTimeout(r, DELIVERY_POLL_MS));
  }
}
