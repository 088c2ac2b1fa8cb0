// Attacks on exactly-once through the files, written once: a plan or a batch CSV applied
// at the same moment through copies, hard links, or from a second PID namespace (a
// container sharing the folder). Shared by test/cli (one trial each, in npm test) and
// test/load (many). Each trial returns what the service holds, for the caller to count.
import { execa } from 'execa';
import { execFileSync } from 'node:child_process';
import { copyFileSync, linkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { paidCobros, refundsPer, requestsCsv, requestsPer } from './batches.js';
import { BIN, ROOT, expectNoStack, ownFolders, tempDir } from './cli.js';
import { svc } from './inproc.js';
import { planFor, refundsOf } from './plans.js';
import type { Sandbox } from './sandbox.js';

/** Why svc cannot be run in a second PID namespace here (null: it can): `unshare --pid --fork` needs root on Linux. */
export const noPidNamespace = ((): string | null => {
  if (process.platform !== 'linux') return 'it needs Linux (unshare --pid --fork)';
  if (process.getuid?.() !== 0) return 'it needs root (unshare --pid --fork); CI runs as root';
  try {
    execFileSync('unshare', ['--pid', '--fork', 'true'], { stdio: 'pipe' });
    return null;
  } catch (err) {
    return `unshare --pid --fork is not allowed here (${String(
      (err as { stderr?: Buffer }).stderr ?? err,
    )
      .trim()
      .slice(0, 120)})`;
  }
})();

export type Attack = 'copias' | 'enlace duro' | 'otro espacio de pids';

/** Every attack, in the order the tests run them. */
export const ATTACKS: Attack[] = ['copias', 'enlace duro', 'otro espacio de pids'];

/**
 * Skips the test, as a reported skip with its reason (never a silent pass), when
 * `attack` cannot be mounted here: the second PID namespace needs unshare.
 * `skip` is the test context's.
 */
export function skipUnmountable(
  attack: Attack,
  skip: (condition: boolean, note?: string) => void,
): void {
  skip(
    attack === 'otro espacio de pids' && noPidNamespace !== null,
    `"otro espacio de pids" not run: ${noPidNamespace}`,
  );
}

/** `svc <argv>` as a process, in a PID namespace of its own when `ns`. */
async function run(sb: Sandbox, argv: string[], ns: boolean) {
  const cmd = ns ? ['unshare', '--pid', '--fork', 'node', BIN] : ['node', BIN];
  const r = await execa(cmd[0]!, [...cmd.slice(1), ...argv], {
    cwd: ROOT,
    env: { ...process.env, ...ownFolders(), ...sb.env, NO_COLOR: '1', SVC_KEYRING: 'off' },
    reject: false,
    timeout: 120_000,
  });
  expectNoStack(String(r.stderr));
  return { exitCode: r.exitCode ?? -1, stderr: String(r.stderr) };
}

/** The names `file` is applied through at once for `attack`, and whether each runs in another namespace. */
function pathsFor(file: string, attack: Attack): [string, boolean][] {
  if (attack === 'copias') {
    const copies = [1, 2].map((i) => join(tempDir('svc-copia-'), `copia-${i}${ext(file)}`));
    for (const c of copies) copyFileSync(file, c);
    return [[file, false], ...copies.map((c): [string, boolean] => [c, false])];
  }
  if (attack === 'enlace duro') {
    const link = join(tempDir('svc-enlace-'), `enlace${ext(file)}`);
    linkSync(file, link);
    return [
      [file, false],
      [link, false],
    ];
  }
  return [
    [file, false],
    [file, true],
  ];
}
const ext = (f: string) => f.slice(f.lastIndexOf('.'));

/** Every POST answered `ms` late, `count` times: the applies overlap whatever the machine's load. */
const slow = (sb: Sandbox, count: number, ms = 300) =>
  sb.fault({ method: 'POST', path: '/v1/cobros*', count, action: 'delay', delay_ms: ms });

/** One refund plan applied through `attack` at once: the request's refunds (1 expected). */
export async function singlePlanTrial(sb: Sandbox, attack: Attack): Promise<number> {
  const { id, file } = await planFor(sb, '40.00');
  const paths = pathsFor(file, attack);
  await slow(sb, paths.length);
  const runs = await Promise.all(
    paths.map(([p, ns]) => run(sb, ['devolver', '--aplicar', p, '--yes', '--json'], ns)),
  );
  await sb.clearFaults();
  expect(runs.filter((r) => r.exitCode === 0).length, runs.map((r) => r.stderr).join('\n')).toBe(1);
  for (const r of runs.filter((x) => x.exitCode !== 0)) expect(r.exitCode, r.stderr).toBe(2);
  return (await refundsOf(sb, id)).length;
}

/** A batch refund plan of `rows` rows applied through `attack` at once: the refunds of each row's request (1 each expected). */
export async function batchPlanTrial(sb: Sandbox, attack: Attack, rows = 3): Promise<number[]> {
  const ids = (await paidCobros(sb, rows)).map((c) => c.id);
  const dir = tempDir('svc-lote-');
  writeFileSync(
    join(dir, 'lote.csv'),
    `cobro,monto\n${ids.map((id) => `${id},10.00`).join('\n')}\n`,
  );
  const made = await svc(
    ['devolver', '--lote', join(dir, 'lote.csv'), '--plan', join(dir, 'lote.json')],
    { env: sb.env },
  );
  expect(made.exitCode, made.stderr).toBe(0);
  const paths = pathsFor(join(dir, 'lote.json'), attack);
  await slow(sb, rows * paths.length);
  const runs = await Promise.all(
    paths.map(([p, ns]) => run(sb, ['devolver', '--aplicar', p, '--yes', '--json'], ns)),
  );
  await sb.clearFaults();
  for (const r of runs) expect([0, 2], r.stderr).toContain(r.exitCode);
  return refundsPer(sb, ids);
}

let csvs = 0;
/** One batch CSV of `rows` requests run through `attack` at once: the requests of each referencia (1 each expected). */
export async function csvTrial(sb: Sandbox, attack: Attack, rows = 3): Promise<number[]> {
  const { path, refs } = requestsCsv(
    rows,
    `copias-${++csvs}-${Math.random().toString(36).slice(2, 7)}`,
  );
  const paths = pathsFor(path, attack);
  await slow(sb, rows * paths.length);
  const runs = await Promise.all(
    paths.map(([p, ns]) => run(sb, ['cobro', 'crear', '--lote', p, '--yes'], ns)),
  );
  await sb.clearFaults();
  // The same file run again skips what its ledger holds (exit 0); a copy finds its referencias taken (exit 2).
  for (const r of runs) {
    expect([0, 2], r.stderr).toContain(r.exitCode);
    if (r.exitCode === 2) expect(r.stderr).toMatch(/referencias? ya existen? en el servicio/);
  }
  return requestsPer(sb, refs);
}
