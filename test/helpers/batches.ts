// The batches' crash tests (refunds and payment requests), written once: run the built
// svc and SIGKILL it at a random point of its ledger, whatever the machine's speed.
import { execa } from 'execa';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { BIN, ROOT, tempDir } from './cli.js';
import type { Sandbox } from './sandbox.js';

/** A CSV of `n` payment requests, 10.00 each, referencias `<p>-1…n`: its path and referencias. */
export function requestsCsv(n: number, p: string): { path: string; refs: string[] } {
  const path = join(tempDir('svc-cobros-'), 'cobros.csv');
  const refs = Array.from({ length: n }, (_, i) => `${p}-${i + 1}`);
  writeFileSync(
    path,
    `concepto,monto,referencia\n${refs.map((r) => `Cuota,10.00,${r}`).join('\n')}\n`,
  );
  return { path, refs };
}

/**
 * The sandbox's answer to the next POSTs of payment requests, as `fault` says (an
 * `action` of /_sandbox/fallas and how many times); DELETE /_sandbox/fallas ends it.
 */
export async function faultRequestPosts(
  sb: Sandbox,
  fault: Record<string, unknown>,
): Promise<void> {
  const r = await sb.api('POST', '/_sandbox/fallas', {
    method: 'POST',
    path: '/v1/cobros',
    ...fault,
  });
  expect(r.status, r.text).toBe(201);
}

/** What --json wrote, one object a line (a batch's rows as they are done). */
export function jsonLines(text: string): any[] {
  return text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

/** The ledger's lines (an intent or an outcome each), as svc wrote them so far. */
export function ledgerLines(ledger: string): string[] {
  return existsSync(ledger) ? readFileSync(ledger, 'utf8').split('\n').filter(Boolean) : [];
}

/** A line of the ledger that is a row's outcome (not its intent, not the batch's first line). */
const isOutcomeLine = (l: string) => l.includes('"estado"') && !l.includes('"archivo"');

/** Ledger lines left unwritten at the latest kill point of a long batch (see killAtRandom). */
const KILL_SLACK_LINES = 16;

/**
 * Runs `svc <argv>` over a batch of `rows` rows and kills it with SIGKILL after 1 to
 * `maxLines` more lines of `ledger` (never as many as would end the batch); with
 * `inFlight`, only once the last line is an intent (its POST sent, its outcome not
 * written). At 20 s it is killed wherever it is. Says whether the kill landed
 * mid-batch: the process still running, the ledger grown, some row still without its
 * outcome. A kill after the batch ended tests nothing, so callers assert it.
 */
export async function killAtRandom(
  sb: Sandbox,
  argv: string[],
  ledger: string,
  opts: { rows: number; maxLines?: number; inFlight?: boolean },
): Promise<{ midBatch: boolean; why: string }> {
  const child = execa('node', [BIN, ...argv], {
    cwd: ROOT,
    env: { ...process.env, ...sb.env, SVC_CONFIG_DIR: tempDir('svc-config-'), SVC_KEYRING: 'off' },
    reject: false,
  });
  const before = ledgerLines(ledger);
  const left = opts.rows - before.filter(isOutcomeLine).length;
  // An intent and an outcome per row left: stop well short of the last outcome. The
  // ledger is looked at every 2 ms and a batch of up to 4 at once writes several lines
  // in between, so a target among the last few lines could be passed before the kill.
  const room = Math.max(
    1,
    Math.min(opts.maxLines ?? 8, 2 * left - 1 - Math.min(KILL_SLACK_LINES, left)),
  );
  const target = before.length + 1 + Math.floor(Math.random() * room);
  const deadline = Date.now() + 20_000;
  const reached = () => {
    const lines = ledgerLines(ledger);
    return (
      lines.length >= target && (!opts.inFlight || lines[lines.length - 1]!.includes('"intento"'))
    );
  };
  while (child.exitCode === null && !reached() && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 2));
  const running = child.exitCode === null;
  child.kill('SIGKILL');
  await child;
  const after = ledgerLines(ledger);
  const done = after.filter(isOutcomeLine).length;
  const why = `killed ${running ? 'while running' : 'after it exited'}, ledger ${before.length} -> ${after.length} lines, ${done} of ${opts.rows} rows with an outcome`;
  return { midBatch: running && after.length > before.length && done < opts.rows, why };
}

/** `n` payment requests of `monto`, paid in full, each with a referencia of its own. */
export async function paidCobros(
  sb: Sandbox,
  n: number,
  monto = '100.00',
): Promise<{ id: number; codigo: string; referencia: string }[]> {
  const out = [];
  for (let i = 0; i < n; i++) {
    const referencia = `lote-${Date.now()}-${i}-${Math.random().toString(36).slice(2, 7)}`;
    const c = (await sb.api('POST', '/v1/cobros', { concepto: 'Entrada', monto, referencia })).body
      .data as { id: number; codigo: string };
    const paid = await sb.api('POST', `/_sandbox/cobros/${c.id}/pagar`, {});
    if (paid.status !== 200)
      throw new Error(`the sandbox did not pay request ${c.id}: ${paid.status}`);
    out.push({ id: c.id, codigo: c.codigo, referencia });
  }
  return out;
}

/** How many refunds the service holds for each of `ids`. */
export async function refundsPer(sb: Sandbox, ids: number[]): Promise<number[]> {
  const all = (await sb.api('GET', '/v1/devoluciones')).body.data as { cobro_id: number }[];
  return ids.map((id) => all.filter((d) => d.cobro_id === id).length);
}

/** How many requests the service holds for each referencia. */
export async function requestsPer(sb: Sandbox, refs: string[]): Promise<number[]> {
  const all = (await sb.api('GET', '/v1/cobros')).body.data as { referencia: string | null }[];
  return refs.map((r) => all.filter((c) => c.referencia === r).length);
}
