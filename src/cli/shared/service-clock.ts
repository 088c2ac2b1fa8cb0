// The service's "now", which date words (hoy, ayer, mañana, esta-semana, 7d, +3d, 24/12)
// are counted from: a sandbox on this machine whose clock was moved on (`svc sandbox
// reloj avanzar 8d`) is eight days ahead of this machine, and "mañana" means its
// tomorrow. Asked only when a word needs it, and only of a loopback address (where
// `svc sandbox` runs); a real service's clock is this machine's.
import { isLoopbackHost } from '../../domain/rules.js';
import type { Context } from '../context.js';

/** Whether a typed date depends on today (a word, a relative span, a day without its year). */
export function dependsOnToday(text: string): boolean {
  return !/^\s*\d{4}-\d{2}-\d{2}/.test(text) && !/^\s*\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}/.test(text);
}

/** Milliseconds since the epoch by the service's clock: the sandbox's when it is one, else Date.now(). */
export async function serviceNow(ctx: Context): Promise<number> {
  const r = await ctx.resolved();
  let host: string;
  try {
    host = new URL(r.baseUrl?.value ?? '').hostname;
  } catch {
    return Date.now();
  }
  if (!isLoopbackHost(host)) return Date.now();
  try {
    const { SandboxControl } = await import('./sandbox-control.js');
    const client = await ctx.clientFor(r.baseUrl!.value, r.apiKey?.value);
    const reloj = await new SandboxControl(client).reloj();
    return typeof reloj.adelanto_ms === 'number' ? Date.now() + reloj.adelanto_ms : Date.now();
  } catch {
    // Not a sandbox (no control plane there), or not answering: this machine's clock.
    return Date.now();
  }
}
