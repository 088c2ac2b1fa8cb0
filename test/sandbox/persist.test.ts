// --data: state and keys survive restarts and `kill -9` at any moment; a torn last
// line is trimmed (its bytes kept aside: datafile.test.ts); a corrupt file stops the
// start naming file and line and is left untouched; one sandbox per file (a second is
// refused, a dead one's lock taken over). Sandboxes and `svc` in this process, but for
// what is about a process: the kill tests, a lock held by another process and the
// refusal the built CLI prints (npm run build first).
import { execa } from 'execa';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { startSandbox } from '../helpers/sandbox.js';
import { expectNoStack, svcSpawned, tempDir } from '../helpers/cli.js';
import { svc } from '../helpers/inproc.js';
import { startReceiver } from '../helpers/receiver.js';
import { eventually } from './helpers.js';
import { verify } from '../../src/webhooks/signature.js';

describe('--data', () => {
  it('keeps keys, secret and every resource across a restart; ids continue', async () => {
    const file = join(tempDir('svc-sb-'), 'state.jsonl');
    const a = await startSandbox({ dataFile: file });
    const c = await a.cobro({ monto: '100', referencia: 'persistente' });
    await a.api('POST', `/_sandbox/cobros/${c.id}/pagar`, { monto: '60', medio: 'debito' });
    await a.api('POST', `/v1/cobros/${c.id}/devoluciones`, { monto: '10' });
    await a.api('POST', '/_sandbox/webhook', { url: 'https://hooks.example/x' });
    const snapshot = await Promise.all(
      ['/v1/cobros', '/v1/transacciones', '/v1/devoluciones', '/v1/liquidaciones'].map((p) =>
        a.api('GET', p),
      ),
    );
    await a.close();

    const b = await startSandbox({ dataFile: file });
    try {
      expect([b.apiKey, b.apiKeyNoListo, b.webhookSecret]).toEqual([
        a.apiKey,
        a.apiKeyNoListo,
        a.webhookSecret,
      ]);
      const again = await Promise.all(
        ['/v1/cobros', '/v1/transacciones', '/v1/devoluciones', '/v1/liquidaciones'].map((p) =>
          b.api('GET', p),
        ),
      );
      // The payer link follows the sandbox to its new port; everything else is as it was.
      expect(b.baseUrl).not.toBe(a.baseUrl);
      const link = again[0]!.body.data[0].url as string;
      expect(link).toBe(`${b.baseUrl}/pagar/${c.codigo}`);
      expect((await fetch(link)).status).toBe(200);
      snapshot[0]!.body.data[0].url = link;
      expect(again.map((r) => r.body)).toEqual(snapshot.map((r) => r.body));
      expect((await b.api('GET', '/_sandbox/webhook')).body.data.url).toBe(
        'https://hooks.example/x',
      );
      const next = await b.cobro();
      expect(next.id).toBe(c.id + 1);
      // Refund rules still see what was refunded before the restart.
      const over = await b.api('POST', `/v1/cobros/${c.id}/devoluciones`, { monto: '50.01' });
      expect(over.body.message).toMatch(/queda por devolver \(50\.00\)/);
    } finally {
      await b.close();
    }
  });

  it('a data file written with the one-letter record fields of earlier versions opens as before', async () => {
    const file = join(tempDir('svc-sb-'), 'state.jsonl');
    const a = await startSandbox({ dataFile: file });
    const c = await a.cobro({ monto: '100' });
    await a.api('POST', `/_sandbox/cobros/${c.id}/pagar`, { monto: '60', medio: 'debito' });
    const before = (await a.api('GET', '/v1/transacciones')).body;
    await a.close();
    const today = readFileSync(file, 'utf8');
    const legacy = today.replace(
      /"(merchant|wire|seq|at)":/g,
      (_, k: string) =>
        `"${({ merchant: 'm', wire: 'd', seq: 'n', at: 't' } as Record<string, string>)[k]}":`,
    );
    expect(legacy).not.toBe(today);
    expect(legacy).not.toMatch(/"(merchant|wire|seq)":/);
    writeFileSync(file, legacy);
    const b = await startSandbox({ dataFile: file });
    try {
      expect((await b.api('GET', '/v1/transacciones')).body).toEqual(before);
      const over = await b.api('POST', `/v1/cobros/${c.id}/devoluciones`, { monto: '60.01' });
      expect(over.body.message).toMatch(/queda por devolver \(60\.00\)/);
      expect((await b.cobro()).id).toBe(c.id + 1);
    } finally {
      await b.close();
    }
  });

  it('a torn last line is dropped and the journal goes on cleanly', async () => {
    const file = join(tempDir('svc-sb-'), 'state.jsonl');
    const a = await startSandbox({ dataFile: file });
    await a.cobro();
    await a.close();
    const good = readFileSync(file, 'utf8');
    appendFileSync(file, '{"c":[["cobro",{"m":1,"d":{"id":2,"cod');
    const b = await startSandbox({ dataFile: file });
    try {
      expect(readFileSync(file, 'utf8')).toBe(good);
      expect((await b.api('GET', '/v1/cobros')).body.data.map((x: any) => x.id)).toEqual([1]);
      expect((await b.cobro()).id).toBe(2);
    } finally {
      await b.close();
    }
    const c = await startSandbox({ dataFile: file });
    expect((await c.api('GET', '/v1/cobros')).body.data.map((x: any) => x.id)).toEqual([2, 1]);
    await c.close();
  });

  it('a corrupt line stops the start, names file and line, and leaves the file untouched', async () => {
    const file = join(tempDir('svc-sb-'), 'state.jsonl');
    const a = await startSandbox({ dataFile: file });
    await a.cobro();
    await a.cobro();
    await a.close();
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[1] = lines[1]!.slice(0, 20) + '#' + lines[1]!.slice(21);
    const corrupt = lines.join('\n');
    writeFileSync(file, corrupt);
    await expect(startSandbox({ dataFile: file })).rejects.toThrow(
      new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, línea 2`),
    );
    expect(readFileSync(file, 'utf8')).toBe(corrupt);

    // The built CLI's exit and one line for a damaged file: datafile.test.ts.
    const r = await svc(['sandbox', '--port', '0', '--json', '--data', file]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('línea 2');
    expectNoStack(r.stderr);
    expect(readFileSync(file, 'utf8')).toBe(corrupt);

    const notOurs = join(tempDir('svc-sb-'), 'other.txt');
    writeFileSync(notOurs, 'hola\n');
    const r2 = await svc(['sandbox', '--port', '0', '--data', notOurs]);
    expect(r2.exitCode).toBe(1);
    expect(r2.stderr).toMatch(/línea 1/);
    expect(readFileSync(notOurs, 'utf8')).toBe('hola\n');
  });

  it('one sandbox per data file: a second is refused before reading it, the first goes on; the lock leaves with it', async () => {
    const file = join(tempDir('svc-sb-'), 'state.jsonl');
    const first = await startSandbox({ spawned: ['--data', file] });
    try {
      expect(
        (await first.api('POST', '/v1/cobros', { concepto: 'uno', monto: '1.00' })).status,
      ).toBe(201);
      const before = readFileSync(file, 'utf8');
      const r = await svcSpawned(['sandbox', '--port', '0', '--data', file]);
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe('');
      expectNoStack(r.stderr);
      expect(r.stderr.trim().split('\n')[0]).toMatch(
        new RegExp(
          `^error: .*state\\.jsonl ya lo usa otro svc sandbox \\(pid ${first.proc.pid}\\); detenelo o usá otro --data`,
        ),
      );
      await expect(startSandbox({ dataFile: file })).rejects.toThrow(`(pid ${first.proc.pid})`);
      // A script gets the same refusal as JSON on stderr.
      const j = await svc(['sandbox', '--port', '0', '--json', '--data', file]);
      expect(j.exitCode).toBe(1);
      expect(j.stdout).toBe('');
      expect(JSON.parse(j.stderr)).toEqual({
        error: 'config',
        message: expect.stringContaining(`ya lo usa otro svc sandbox (pid ${first.proc.pid})`),
      });
      expect(readFileSync(file, 'utf8')).toBe(before);
      expect(
        (await first.api('POST', '/v1/cobros', { concepto: 'dos', monto: '2.00' })).body.data.id,
      ).toBe(2);
    } finally {
      await first.stop();
    }
    expect(existsSync(`${file}.lock`)).toBe(false);
    const second = await startSandbox({ dataFile: file });
    try {
      expect(JSON.parse(readFileSync(`${file}.lock`, 'utf8')).pid).toBe(process.pid);
      expect((await second.api('GET', '/v1/cobros')).body.data.map((c: any) => c.id)).toEqual([
        2, 1,
      ]);
    } finally {
      await second.close();
    }
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('a lock left by a sandbox that no longer runs is taken over; a lock being written is respected', async () => {
    const file = join(tempDir('svc-sb-'), 'state.jsonl');
    const a = await startSandbox({ dataFile: file });
    await a.cobro();
    await a.close();
    const gone = (await execa('node', ['-e', 'process.stdout.write(String(process.pid))'])).stdout;
    writeFileSync(`${file}.lock`, `${gone}\n`);
    const b = await startSandbox({ dataFile: file });
    try {
      expect(JSON.parse(readFileSync(`${file}.lock`, 'utf8')).pid).toBe(process.pid);
      expect((await b.api('GET', '/v1/cobros')).body.data).toHaveLength(1);
    } finally {
      await b.close();
    }
    writeFileSync(`${file}.lock`, '');
    await expect(startSandbox({ dataFile: file })).rejects.toThrow(
      /ya lo usa otro svc sandbox; detenelo/,
    );
    expect(readFileSync(`${file}.lock`, 'utf8')).toBe('');
  });

  it('notifications still owed when the sandbox stops are sent after the restart; delivered and given-up ones are not', async () => {
    const file = join(tempDir('svc-sb-'), 'state.jsonl');
    const app = await startReceiver({ script: [500] });
    try {
      // One failed attempt, the retry a minute away: the sandbox stops before it.
      const a = await startSandbox({
        dataFile: file,
        webhookUrl: app.url,
        retrySchedule: [60_000],
      });
      const c = await a.cobro({ concepto: 'debe llegar', monto: '10.00' });
      await app.waitFor(1);
      const before = (await a.api('GET', '/_sandbox/eventos')).body.data;
      expect(before.map((e: any) => [e.body.event, e.body.cobro_id])).toEqual([
        ['payment.created', c.id],
      ]);
      await a.close();

      const b = await startSandbox({
        dataFile: file,
        webhookUrl: app.url,
        retrySchedule: [60_000],
      });
      try {
        const [first, again] = await app.waitFor(2);
        expect(again!.text).toBe(first!.text);
        expect(
          verify({
            secret: b.webhookSecret,
            timestamp: String(again!.headers['x-svc-timestamp']),
            signature: String(again!.headers['x-svc-signature']),
            body: again!.body,
          }).ok,
        ).toBe(true);
        // The event keeps its number and date across the restart.
        expect((await b.api('GET', '/_sandbox/eventos')).body.data).toEqual(before);
        await eventually(() => b.app.deps.store.pendingEvents.size === 0);
      } finally {
        await b.close();
      }
      expect(readFileSync(file, 'utf8')).toContain(`{"s":[${before[0].id}]}`);

      // Given up (no retries left) is settled too; the third start owes nothing.
      app.script.push(503);
      const c2 = await startSandbox({ dataFile: file, webhookUrl: app.url, retrySchedule: [] });
      try {
        await c2.cobro({ concepto: 'se abandona', monto: '1.00' });
        await app.waitFor(3);
        await eventually(() => c2.app.deps.store.pendingEvents.size === 0);
      } finally {
        await c2.close();
      }
      const d = await startSandbox({ dataFile: file, webhookUrl: app.url });
      try {
        expect(d.app.deps.store.pendingEvents.size).toBe(0);
        expect((await d.api('GET', '/_sandbox/eventos')).body.data).toHaveLength(2);
      } finally {
        await d.close();
      }
      expect(app.received).toHaveLength(3);
    } finally {
      await app.close();
    }
  });

  it('survives kill -9 in the middle of a stream of writes: every answered change is there', async () => {
    const file = join(tempDir('svc-sb-'), 'state.jsonl');
    const sb = await startSandbox({ spawned: ['--data', file] });
    const acknowledged: number[] = [];
    let stop = false;
    const writer = async () => {
      while (!stop) {
        try {
          const r = await sb.api('POST', '/v1/cobros', { concepto: 'carga', monto: '1.00' });
          if (r.status === 201) acknowledged.push(r.body.data.id);
        } catch {
          return; // the process is gone
        }
      }
    };
    const writers = [writer(), writer(), writer(), writer()];
    await vi
      .waitFor(
        () => {
          if (acknowledged.length < 50)
            throw new Error(
              `${acknowledged.length} of 50 writes answered 201 within 30 s: the sandbox stopped answering before the kill`,
            );
        },
        { timeout: 30_000, interval: 5 },
      )
      .catch((e: unknown) => {
        stop = true;
        sb.proc.kill('SIGKILL');
        throw e;
      });
    sb.proc.kill('SIGKILL');
    stop = true;
    await Promise.all(writers);
    await sb.proc.catch(() => {});

    // What the killed process left is read by another (this one), its lock taken over.
    const again = await startSandbox({ dataFile: file });
    try {
      expect(again.api_key).toBe(sb.api_key);
      const ids = new Set((await again.api('GET', '/v1/cobros')).body.data.map((c: any) => c.id));
      for (const id of acknowledged)
        expect(ids.has(id), `cobro ${id} was answered 201 but is gone`).toBe(true);
      const c = await again.api('POST', '/v1/cobros', { concepto: 'después', monto: '2' });
      expect(c.status).toBe(201);
    } finally {
      await again.close();
    }
  });

  it('SIGTERM finishes in-flight requests and exits 0', async () => {
    const sb = await startSandbox({ spawned: [] });
    await sb.api('POST', '/_sandbox/fallas', {
      path: '/v1/cuenta',
      action: 'delay',
      delay_ms: 3_000,
    });
    const pending = sb.api('GET', '/v1/cuenta');
    // In flight once the sandbox has taken the fault for it.
    await eventually(
      async () => (await sb.api('GET', '/_sandbox/fallas')).body.data.length === 0,
      15_000,
    );
    sb.proc.kill('SIGTERM');
    const r = await pending;
    expect(r.status).toBe(200);
    const result = await sb.proc;
    expect(result.exitCode).toBe(0);
  });
});
