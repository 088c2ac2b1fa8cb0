// A reporter beside vitest's own: at the end of a run it lists every skipped test with
// the reason it could not run here (ctx.skip's note, or what skipBecause recorded for
// its file), so a skip never reads as a pass. With SVC_FAIL_ON_SKIP=1 (.ci/run) a skip
// whose line does not match SVC_EXPECTED_SKIPS (a regular expression) fails the run.
import { readFileSync, rmSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';

/** The reasons skipBecause recorded, by test file. */
function recorded(): Map<string, string[]> {
  const by = new Map<string, string[]>();
  const log = process.env.SVC_SKIP_REASONS;
  if (!log) return by;
  let text = '';
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    return by;
  }
  for (const line of text.split('\n').filter(Boolean)) {
    const { file, reason } = JSON.parse(line) as { file: string; reason: string };
    const list = by.get(file) ?? [];
    if (!list.includes(reason)) list.push(reason);
    by.set(file, list);
  }
  return by;
}

export default class SkipReport implements Reporter {
  private vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const config = this.vitest?.config;
    // A run narrowed by name (-t) leaves the rest out on purpose: not a skip to report.
    if (!config || config.testNamePattern) return;
    const reasons = recorded();
    const lines: string[] = [];
    for (const m of modules) {
      for (const t of m.children.allTests()) {
        const r = t.result();
        if (r.state !== 'skipped') continue;
        const why = r.note ?? reasons.get(m.moduleId)?.join('; ') ?? 'no reason given';
        lines.push(`${relative(config.root, m.moduleId)} > ${t.fullName}: ${why}`);
      }
    }
    const log = process.env.SVC_SKIP_REASONS;
    if (log) rmSync(log, { force: true });
    if (!lines.length) return;
    const say = (text: string) => process.stdout.write(`${text}\n`);
    say(`\n skipped, not passed (${lines.length}):`);
    for (const l of lines) say(`   ${l}`);
    if (process.env.SVC_FAIL_ON_SKIP !== '1') return;
    const pattern = process.env.SVC_EXPECTED_SKIPS;
    const expected = pattern ? new RegExp(pattern) : undefined;
    const unexpected = lines.filter((l) => !expected?.test(l));
    if (!unexpected.length) return;
    say(
      ` SVC_FAIL_ON_SKIP=1: ${unexpected.length} skipped test${unexpected.length > 1 ? 's' : ''} this machine was expected to run (make the tool available, or name it in SVC_EXPECTED_SKIPS)`,
    );
    process.exitCode = 1;
  }
}
