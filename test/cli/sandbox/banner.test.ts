// What `svc sandbox` prints for a person: every line fits 80 columns, and the export
// command, one variable a line continued with \, pastes whole into a shell.
import { execFileSync, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { BIN, tempDir } from '../../helpers/cli.js';
import { displayWidth } from '../../../src/text.js';

/** The banner's lines on stdout, up to the last example command. */
async function banner(args: string[]): Promise<string[]> {
  const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', ...args], {
    env: { PATH: process.env.PATH, NO_COLOR: '1', SVC_CONFIG_DIR: tempDir('svc-config-'), SVC_DATA_DIR: tempDir('svc-data-') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  try {
    for await (const line of createInterface({ input: child.stdout })) {
      lines.push(line);
      if (line.includes('svc sandbox pagar')) break;
    }
  } finally {
    child.kill('SIGTERM');
  }
  return lines;
}

describe('svc sandbox, for a person', () => {
  it('every line fits 80 columns, and the export command pastes into sh as it is', async () => {
    const lines = await banner(['--tz', 'Asia/Tokyo']);
    expect(lines.length).toBeGreaterThan(12);
    for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(80);
    const from = lines.findIndex((l) => l.trimStart().startsWith('export '));
    const to = lines.findIndex((l, i) => i >= from && !l.endsWith('\\'));
    const command = lines.slice(from, to + 1).join('\n');
    const key = /svc_test_[0-9a-f]+/.exec(lines.find((l) => l.includes('clave test (listo)'))!)![0];
    const got = execFileSync('sh', ['-c', `${command}\nprintf '%s|%s|%s' "$SVC_API_KEY" "$SVC_TZ" "$SVC_BASE_URL"`], { encoding: 'utf8' });
    const [apiKey, tz, base] = got.split('|');
    expect(apiKey).toBe(key);
    expect(tz).toBe('Asia/Tokyo');
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});
