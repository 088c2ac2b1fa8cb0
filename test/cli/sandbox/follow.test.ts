// `svc sandbox log --follow` and `svc sandbox entregas --follow` follow the sandbox's
// live stream (GET /_sandbox/stream) instead of asking again and again: one listing,
// one stream, whatever the number of lines; the same abort listeners at the end as
// after the first line (a follow of hours never gathers them, nor Node's
// MaxListenersExceededWarning); Ctrl-C ends with exit 0, a sandbox that stops with 6.
// In-process through main(), so the Ctrl-C signal is this test's own.
import { getEventListeners } from 'node:events';
import { PassThrough, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/main.js';
import { tempDir } from '../../helpers/cli.js';
import { startReceiver } from '../../helpers/receiver.js';
import { startSandbox, type Sandbox } from '../../helpers/sandbox.js';

class Sink extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

/** `svc args…` in this process, until `stop` is aborted (Ctrl-C) or the command ends by itself. */
function follow(args: string[], env: Record<string, string>) {
  const stdout = new Sink();
  const stderr = new Sink();
  const stdin = new PassThrough();
  stdin.end();
  const ctrlC = new AbortController();
  const done = main(args, {
    stdout,
    stderr,
    stdin,
    signal: ctrlC.signal,
    env: {
      SVC_CONFIG_DIR: tempDir('svc-config-'),
      SVC_DATA_DIR: tempDir('svc-data-'),
      NO_COLOR: '1',
      SVC_KEYRING: 'off',
      ...env,
    } as NodeJS.ProcessEnv,
  });
  /** Waits (at most 20 s, checking every 20 ms) for stdout to show `what`. */
  const until = async (what: RegExp, label: string) => {
    for (const deadline = Date.now() + 20_000; !what.test(stdout.text);) {
      if (Date.now() > deadline)
        throw new Error(
          `${label} not printed within 20 s; stdout:\n${stdout.text}\nstderr:\n${stderr.text}`,
        );
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return {
    stdout,
    stderr,
    ctrlC,
    done,
    until,
    listeners: () => getEventListeners(ctrlC.signal, 'abort').length,
  };
}

const warnings: string[] = [];
const onWarning = (w: Error) => warnings.push(w.name);
let sb: Sandbox;
beforeAll(async () => {
  process.on('warning', onWarning);
  sb = await startSandbox();
});
afterAll(async () => {
  process.off('warning', onWarning);
  await sb?.stop();
});

describe('--follow reads the sandbox stream', () => {
  it('sandbox log --follow: 15 requests, each printed as it comes, from one listing and one stream; no listener gathers', async () => {
    const f = follow(['sandbox', 'log', '--follow', '--json'], sb.env);
    await sb.api('GET', '/v1/cobros/77700');
    await f.until(/"path":"\/v1\/cobros\/77700"/, 'the first request');
    const atFirst = f.listeners();
    for (let i = 1; i <= 15; i++) {
      await sb.api('GET', `/v1/cobros/777${String(i).padStart(2, '0')}`);
      await f.until(
        new RegExp(`"path":"/v1/cobros/777${String(i).padStart(2, '0')}"`),
        `request ${i}`,
      );
    }
    expect(f.listeners(), 'abort listeners on the Ctrl-C signal after 15 more lines').toBe(atFirst);
    f.ctrlC.abort();
    expect(await f.done).toBe(0);
    expect(f.stderr.text).toBe('');
    // Each request printed once, in order.
    const paths = f.stdout.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).path as string)
      .filter((p) => p.startsWith('/v1/cobros/777'));
    expect(paths).toEqual(
      Array.from({ length: 16 }, (_, i) => `/v1/cobros/777${String(i).padStart(2, '0')}`),
    );
    // What the follow asked the sandbox: the listing once, never again.
    // (The stream's own line is logged once it closes, which may be after this read.)
    const asked = (
      (await sb.api('GET', '/_sandbox/log')).body.data as { method: string; path: string }[]
    ).filter((l) => l.path === '/_sandbox/log');
    expect(asked.map((l) => `${l.method} ${l.path}`)).toEqual(['GET /_sandbox/log']);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('sandbox entregas --follow: each notification attempt as it happens', async () => {
    const app = await startReceiver();
    try {
      expect((await sb.api('POST', '/_sandbox/webhook', { url: app.url })).status).toBe(200);
      const f = follow(['sandbox', 'entregas', '--follow', '--json'], sb.env);
      const ids: number[] = [];
      for (let i = 0; i < 3; i++) {
        const id = (
          await sb.api('POST', '/v1/cobros', { concepto: `Seguido ${i}`, monto: '10.00' })
        ).body.data.id as number;
        ids.push(id);
        await f.until(new RegExp(`"cobro_id":${id},`), `the attempt for request ${id}`);
      }
      f.ctrlC.abort();
      expect(await f.done).toBe(0);
      const attempts = f.stdout.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { cobro_id: number; event: string; status: number });
      for (const id of ids)
        expect(attempts.filter((a) => a.cobro_id === id)).toMatchObject([
          { event: 'payment.created', status: 200 },
        ]);
    } finally {
      await sb.api('POST', '/_sandbox/webhook', { url: null });
      await app.close();
    }
  });

  it('a sandbox that stops ends the follow: exit 6, one line', async () => {
    const other = await startSandbox({ argv: [] });
    const f = follow(['sandbox', 'log', '--follow'], other.env);
    await other.api('GET', '/v1/cobros/1');
    await f.until(/\/v1\/cobros\/1 /, 'the request');
    await other.stop();
    expect(await f.done).toBe(6);
    expect(f.stderr.text).toMatch(/^error: el sandbox (se detuvo|dejó de responder.*)$/m);
    expect(f.stderr.text.trim().split('\n')).toHaveLength(1);
  });
});
