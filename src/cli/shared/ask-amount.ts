// An amount asked at a prompt (cobro crear, devolver): typed as people write it
// (1500,50 · 1.500,50 · 1500.50, money.ts parseTypedAmount), asked again while it is
// not one, and said back in the API's notation when it was typed another way.
import {
  AmountError,
  formatCents,
  isAmount,
  parseTypedAmount,
  type Cents,
} from '../../domain/money.js';
import { prompt, promptStreams, type Context } from '../context.js';

/** `check` adds the command's own limit (what is left to refund): a reason, or undefined when it fits. */
export async function askAmount(
  ctx: Context,
  message: string,
  check?: (cents: Cents) => string | undefined,
): Promise<Cents> {
  const { input } = await import('@inquirer/prompts');
  const problem = (typed: string): string | undefined => {
    try {
      const cents = parseTypedAmount(typed);
      return check?.(cents);
    } catch (err) {
      if (err instanceof AmountError) return err.message;
      throw err;
    }
  };
  const typed = (
    await prompt(() =>
      input({ message, validate: (v) => problem(v) ?? true }, promptStreams(ctx.io)),
    )
  ).trim();
  const cents = parseTypedAmount(typed);
  if (!isAmount(typed)) ctx.io.err(ctx.io.c.dim(`${typed} → ${formatCents(cents)}`));
  return cents;
}
