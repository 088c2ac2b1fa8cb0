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
    env: {
      PATH: process.env.PATH,
      NO_COLOR: '1',
      SVC_CONFIG_DIR: tempDir('svc-config-'),
      SVC_DATA_DIR: tempDir('svc-data-'),
    },
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
    const got = execFileSync(
      'sh',
      ['-c', `${command}\nprintf '%s|%s|%s' "$SVC_API_KEY" "$SVC_TZ" "$SVC_BASE_URL"`],
      { encoding: 'utf8' },
    );
    const [apiKey, tz, base] = got.split('|');
    expect(apiKey).toBe(key);
    expect(tz).toBe('Asia/Tokyo');
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});

describe('svc sandbox on a busy port', () => {
  it('says which port and how to pick another: exit 1, one line and its fix; under --json the error line', async () => {
    const { createServer } = await import('node:net');
    const held = createServer();
    await new Promise<void>((r) => held.listen(0, '127.0.0.1', r));
    const port = (held.address() as { port: number }).port;
    try {
      const { svc } = await import('../../helpers/inproc.js');
      const r = await svc(['sandbox', '--port', String(port)], {
        env: { SVC_DATA_DIR: tempDir('svc-data-') },
      });
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toBe(
        `error: el puerto ${port} de 127.0.0.1 ya está en uso (otro sandbox, u otro programa)\n→ elegí otro con --port ${port + 1}, o --port 0 para uno libre (el puerto elegido se muestra al arrancar)\n`,
      );
      const json = await svc(['sandbox', '--port', String(port), '--json'], {
        env: { SVC_DATA_DIR: tempDir('svc-data-') },
      });
      expect(json.exitCode).toBe(1);
      expect(JSON.parse(json.stderr)).toMatchObject({
        error: 'config',
        message: expect.stringContaining(`el puerto ${port}`),
      });
    } finally {
      held.close();
    }
  });
});
