// The Node versions svc declares (package.json "engines") are the ones its suite runs
// on: this Node, and the majors .ci/run runs the whole suite on again.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
};
const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');

/** The declared range: caret ranges joined by `||` (the only form used here). */
const ranges = pkg.engines.node.split('||').map((r) => {
  const m = /^\s*\^(\d+)\.(\d+)\.(\d+)\s*$/.exec(r);
  if (!m) throw new Error(`engines.node: "${r.trim()}" is not a caret range`);
  return m.slice(1).map(Number) as [number, number, number];
});

function satisfies(version: string): boolean {
  const [major, minor, patch] = version.replace(/^v/, '').split('.').map(Number) as [
    number,
    number,
    number,
  ];
  return ranges.some(([M, m, p]) => major === M && (minor > m || (minor === m && patch >= p)));
}

describe('declared Node versions', () => {
  it('are caret ranges, one per major', () => {
    expect(new Set(ranges.map(([M]) => M)).size).toBe(ranges.length);
  });

  it(`include the Node running this suite (${process.version})`, () => {
    expect(
      satisfies(process.version),
      `${process.version} is outside engines.node "${pkg.engines.node}"`,
    ).toBe(true);
  });

  it('are exactly the majors CI runs the suite on', () => {
    const others = /for major in ([\d ]+); do/.exec(ci)?.[1]?.trim().split(/\s+/).map(Number);
    expect(others, '.ci/run names the other Node majors it runs').toBeDefined();
    // 20 is the CI machine's own Node, on which `npm test` runs first.
    expect(ranges.map(([M]) => M)).toEqual([20, ...others!]);
  });

  it('rejects versions outside the range', () => {
    expect(satisfies('v20.18.3')).toBe(false);
    expect(satisfies('v21.7.0')).toBe(false);
    expect(satisfies('v27.0.0')).toBe(false);
    expect(satisfies('v24.0.0')).toBe(true);
    expect(satisfies('v26.0.0')).toBe(true);
  });
});
