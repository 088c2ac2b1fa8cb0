// A batch of refunds approved at a terminal (a pty at 80 and 60 columns), in live mode
// through the live proxy: the banner first, then the rows (request, concept, amount,
// what is left) before the typed total; an amount typed that reads two ways says both
// readings and what to type; Ctrl-C at the question says nothing was refunded; after
// applying, what became of each row; Ctrl-C in the middle lets the row in flight finish
// and says what was done, what was not, and the command that goes on.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paidCobros, refundsPer } from '../../helpers/batches.js';
import { tempDir } from '../../helpers/cli.js';
import { svc } from '../../helpers/inproc.js';
import { LIVE_KEY, startLiveProxy, type LiveProxy } from '../../helpers/live-proxy.js';
import { startSandbox, type Sandbox } from '../../helpers/sandbox.js';
import { hasScript, svcTty, NO_SCRIPT } from '../../helpers/tty.js';
import { displayWidth } from '../../../src/text.js';
import { skipBecause } from '../../helpers/skips.js';

const NO_TTY = skipBecause(import.meta.url, !hasScript() && NO_SCRIPT);
let sb: Sandbox;
let proxy: LiveProxy;
let live: Record<string, string>;
beforeAll(async () => {
  sb = await startSandbox();
  proxy = await startLiveProxy(sb.base_url, sb.api_key);
  live = { ...sb.env, SVC_BASE_URL: proxy.baseUrl, SVC_API_KEY: LIVE_KEY };
});
afterAll(async () => {
  await proxy?.close();
  await sb?.stop();
});

/** `n` requests of 15000.00 paid in full, and a live plan refunding each whole: its path and ids. */
async function livePlan(n: number): Promise<{ plan: string; ids: number[] }> {
  const cobros = await paidCobros(sb, n, '15000.00');
  const dir = tempDir('svc-lote-tty-');
  const csv = join(dir, 'lote.csv');
  writeFileSync(csv, `cobro,monto\n${cobros.map((c) => `${c.id},total`).join('\n')}\n`);
  const plan = join(dir, 'lote.json');
  const made = await svc(['devolver', '--lote', csv, '--plan', plan], { env: live });
  expect(made.exitCode, made.stderr).toBe(0);
  return { plan, ids: cobros.map((c) => c.id) };
}

// At 60 columns the question goes on to a second line.
const TOTAL_PROMPT = /escribí el\s+total \(30000\.00\):/;

describe.skipIf(NO_TTY)('devolver --aplicar a batch at a terminal, live', () => {
  it('60 columns: banner, then the rows, then the question; 30.000 says it reads two ways and what to type', async () => {
    const { plan, ids } = await livePlan(2);
    const r = await svcTty(
      ['devolver', '--aplicar', plan],
      live,
      [[TOTAL_PROMPT, '30.000\r']],
      30_000,
      { cols: 60, rows: 30 },
    );
    expect(r.exitCode, r.screen).toBe(8);
    const banner = r.screen.indexOf('MODO LIVE');
    const head = r.screen.search(/LÍNEA +COBRO +CONCEPTO +MONTO +QUEDA/);
    const question = r.screen.search(TOTAL_PROMPT);
    expect(banner, r.screen).toBeGreaterThanOrEqual(0);
    expect(head, r.screen).toBeGreaterThan(banner);
    expect(question).toBeGreaterThan(head);
    for (const id of ids)
      expect(r.screen).toMatch(new RegExp(`\\n\\d+ +${id} +Entrada +15000\\.00 +0\\.00\\n`));
    const table = r.screen.slice(head, question).split('\n').slice(0, 3);
    for (const line of table) expect(displayWidth(line)).toBeLessThanOrEqual(60);
    expect(r.screen).toMatch(
      /no se devolvió nada: "30\.000" se lee de dos formas\s+\(30000\.00 o 30\.00\); para confirmar, escribí\s+30000\.00/,
    );
    expect(await refundsPer(sb, ids)).toEqual([0, 0]);
  });

  it('80 columns: Ctrl-C at the question says nothing was refunded (exit 130)', async () => {
    const { plan, ids } = await livePlan(2);
    const r = await svcTty(
      ['devolver', '--aplicar', plan],
      live,
      [[TOTAL_PROMPT, '\u0003']],
      30_000,
      { cols: 80, rows: 30 },
    );
    expect(r.exitCode, r.screen).toBe(130);
    expect(r.screen).toMatch(/cancelado: no se devolvió nada/);
    expect(await refundsPer(sb, ids)).toEqual([0, 0]);
  });

  it('80 columns: the typed total applies the batch and lists what became of each row', async () => {
    const { plan, ids } = await livePlan(2);
    const r = await svcTty(
      ['devolver', '--aplicar', plan],
      live,
      [[TOTAL_PROMPT, '30000,00\r']],
      30_000,
      { cols: 80, rows: 30 },
    );
    expect(r.exitCode, r.screen).toBe(0);
    expect(await refundsPer(sb, ids)).toEqual([1, 1]);
    const after = r.screen.slice(r.screen.search(/LÍNEA +COBRO +MONTO +ESTADO +DETALLE/));
    for (const id of ids)
      expect(after).toMatch(new RegExp(`\\n\\d+ +${id} +15000\\.00 +hecha +devolución \\d+\\n`));
  });

  it('60 columns: Ctrl-C in the middle finishes the row in flight, says what was done and what was not, and the same command goes on', async () => {
    const { plan, ids } = await livePlan(3);
    // The second row's refund answers late: Ctrl-C lands while it is in flight.
    await sb.api('POST', '/_sandbox/fallas', {
      method: 'POST',
      path: `/v1/cobros/${ids[1]}/devoluciones`,
      action: 'delay',
      delay_ms: 1500,
    });
    try {
      const r = await svcTty(
        ['devolver', '--aplicar', plan],
        live,
        [
          [/escribí el\s+total \(45000\.00\):/, '45000.00\r'],
          [/1\/3 filas/, '\u0003'],
        ],
        30_000,
        { cols: 60, rows: 30 },
      );
      expect(r.exitCode, r.screen).toBe(130);
      // The error line is broken at spaces to fit 60 columns: read as one.
      expect(r.screen.replace(/\s+/g, ' ')).toContain(
        `interrumpido: 2 devoluciones hechas ahora, 1 fila sin devolver; el mismo comando sigue donde quedó: svc devolver --aplicar ${plan}`,
      );
      expect(await refundsPer(sb, ids)).toEqual([1, 1, 0]);
    } finally {
      await sb.api('DELETE', '/_sandbox/fallas');
    }
    const rest = await svcTty(
      ['devolver', '--aplicar', plan],
      live,
      [[/escribí el\s+total \(15000\.00\):/, '15000.00\r']],
      30_000,
      { cols: 60, rows: 30 },
    );
    expect(rest.exitCode, rest.screen).toBe(0);
    // What this run did, the two rows of the run before said apart.
    expect(rest.screen).toMatch(
      /1 devolución hecha, 0 rechazadas; 2 filas ya estaban hechas\s+de antes/,
    );
    expect(await refundsPer(sb, ids)).toEqual([1, 1, 1]);
  });
});
