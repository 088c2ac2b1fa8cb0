// Load: `svc webhook listen` (the built CLI, as a process) takes 2,000 signed
// notifications from 50 concurrent senders while the app behind it (--forward-to)
// fails 20 % of its answers at random: 500, 503 or a cut connection. The senders
// behave like the service: a non-2xx answer (or no answer) is retried with the same
// signed bytes, a few ms later, up to 10 attempts. What is checked, per attempt and
// per event (every event is in the journal, every failure was
// answered non-2xx, every success reached the target exactly once):
//   1. every attempt the app failed (500, 503, cut) was answered non-2xx to the
//      sender: the app's status relayed, 502 for a cut; none was answered 2xx;
//   2. every attempt answered 2xx was answered 2xx by the app, to that very attempt,
//      with the same status;
//   3. every event reached the app with a 2xx exactly once, with the bytes and
//      signature that were sent; no attempt reached the app twice;
//   4. after SIGINT the listener exits 0 and its journal holds exactly one entry per
//      attempt: every event's bytes, a valid signature, and outcome / status /
//      answered matching what the app did and the sender saw; --json printed one
//      line per attempt, the same entries.
// Each attempt carries a header X-Svc-Test-Attempt "<event>.<attempt>" (the listener
// forwards and journals X-Svc-* headers), which keys what the app did, what the
// sender saw and the journal entry. The app's answer to each attempt comes from a
// seeded PRNG (SVC_LOAD_SEED, printed), drawn per event, so a failing run is
// reproduced by its seed whatever the order the requests arrive in.
// Figures printed with a [load] prefix; nothing is asserted on time.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EVENTOS } from '../../src/api/enums.js';
// mulberry32: the same seed, the same answers on every run.
import { random } from '../../src/sandbox/generate.js';
import { sampleBody } from '../../src/webhooks/events.js';
import { entryBody, readJournal, type JournalEntry } from '../../src/webhooks/event-journal.js';
import { notificationHeaders } from '../../src/webhooks/signature.js';
import { expectNoStack, tempDir } from '../helpers/cli.js';
import {
  post,
  startListen,
  startReceiver,
  type ListenProc,
  type Receiver,
  stopBoth,
} from '../helpers/receiver.js';
import { pool } from '../helpers/fixtures.js';

// A test secret, only ever used in this test.
const SECRET = 'whsec_listen_load_secret_4711';
const EVENTS = 2_000;
const SENDERS = 50;
const MAX_ATTEMPTS = 10;
const FAILURE_RATE = 0.2;
const SEED =
  Number.isSafeInteger(Number(process.env.SVC_LOAD_SEED)) && process.env.SVC_LOAD_SEED
    ? Number(process.env.SVC_LOAD_SEED) >>> 0
    : 20_261_123;
const ATTEMPT_HEADER = 'x-svc-test-attempt';

type Failure = 500 | 503 | 'cut';
type Answer = { ok: true; status: 200 | 202 | 204 } | { ok: false; kind: Failure };

/**
 * What the app answers to attempts 1..MAX_ATTEMPTS of event i: 20 % failures (500,
 * 503, cut in equal parts), else 200 (mostly), 202 or 204. Drawn per event so the
 * plan does not depend on arrival order. The last attempt always succeeds (ten
 * failures in a row have probability 1e-7), so every event can be delivered.
 */
function plan(seed: number, i: number): Answer[] {
  const rnd = random(seed ^ Math.imul(i + 1, 0x9e3779b1));
  return Array.from({ length: MAX_ATTEMPTS }, (_, a): Answer => {
    const fail = rnd() < FAILURE_RATE;
    const pick = rnd();
    if (fail && a < MAX_ATTEMPTS - 1)
      return { ok: false, kind: pick < 1 / 3 ? 500 : pick < 2 / 3 ? 503 : 'cut' };
    return { ok: true, status: pick < 0.8 ? 200 : pick < 0.9 ? 202 : 204 };
  });
}

/** What the app did with one attempt. */
interface AppSaw {
  event: number;
  answer: Answer;
  times: number;
  body: Buffer;
  signature: string | undefined;
  contentType: string | undefined;
}

/** What the sender saw for one attempt: the status, or a connection error. */
type SenderSaw = { status: number } | { error: string };

let listen: ListenProc | undefined;
let target: Receiver | undefined;
afterEach(async () => {
  await stopBoth(listen, target);
  [listen, target] = [undefined, undefined];
});

describe('webhook listen under load, the app failing 20 % at random', () => {
  it(`${EVENTS} signed events from ${SENDERS} concurrent senders: every failure answered non-2xx, every event delivered exactly once and journaled`, async () => {
    const plans = Array.from({ length: EVENTS }, (_, i) => plan(SEED, i));
    const bodies = Array.from({ length: EVENTS }, (_, i) => {
      const event = EVENTOS[i % EVENTOS.length]!;
      const body = {
        ...sampleBody(event, {
          cobro_id: 10_000 + i,
          monto: `${1 + (i % 997)}.${String(i % 100).padStart(2, '0')}`,
        }),
        entrega: `carga-${SEED}-${i}`,
      };
      return { event, bytes: Buffer.from(JSON.stringify(body)) };
    });
    expect(new Set(bodies.map((b) => b.bytes.toString())).size).toBe(EVENTS);

    // The app: answers each attempt as planned and records what it got.
    const app = new Map<string, AppSaw>();
    const strays: string[] = [];
    target = await startReceiver();
    target.answer = (r) => {
      const id = String(r.headers[ATTEMPT_HEADER] ?? '');
      const m = /^(\d+)\.(\d+)$/.exec(id);
      const i = m ? Number(m[1]) : -1;
      const a = m ? Number(m[2]) : -1;
      if (!m || i >= EVENTS || a < 1 || a > MAX_ATTEMPTS) {
        strays.push(`${r.method} ${r.url} ${ATTEMPT_HEADER}=${id}`);
        return { status: 400, body: 'sin intento' };
      }
      const answer = plans[i]![a - 1]!;
      const seen = app.get(id);
      if (seen) seen.times++;
      else {
        const sig = r.headers['x-svc-signature'];
        const ct = r.headers['content-type'];
        app.set(id, {
          event: i,
          answer,
          times: 1,
          body: r.body,
          signature: Array.isArray(sig) ? sig[0] : sig,
          contentType: Array.isArray(ct) ? ct[0] : ct,
        });
      }
      if (!answer.ok)
        return answer.kind === 'cut'
          ? 'cut'
          : { status: answer.kind, body: `falla ${answer.kind}` };
      return { status: answer.status, body: answer.status === 204 ? '' : 'ok' };
    };

    const journal = join(tempDir('svc-listen-load-'), 'webhooks.jsonl');
    listen = await startListen(
      ['--secret-from-env', '--forward-to', target.url, '--journal', journal, '--json'],
      { SVC_WEBHOOK_SECRET: SECRET, SVC_KEYRING: 'off' },
    );

    // The senders: the service's retry loop, 50 at a time.
    const sender = new Map<string, SenderSaw>();
    const signed = new Map<number, Record<string, string>>();
    const delivered = new Map<number, string>();
    const started = performance.now();
    await pool(bodies, SENDERS, async ({ event, bytes }, i) => {
      const headers = notificationHeaders(SECRET, event, bytes);
      signed.set(i, headers);
      for (let a = 1; a <= MAX_ATTEMPTS; a++) {
        const id = `${i}.${a}`;
        let saw: SenderSaw;
        try {
          saw = {
            status: (await post(listen!.url, bytes, { ...headers, 'X-Svc-Test-Attempt': id }))
              .status,
          };
        } catch (err) {
          saw = { error: (err as Error).message };
        }
        sender.set(id, saw);
        if ('status' in saw && saw.status >= 200 && saw.status < 300) {
          delivered.set(i, id);
          return;
        }
        await new Promise((r) => setTimeout(r, 2));
      }
    });
    const elapsed = (performance.now() - started) / 1000;
    const attempts = sender.size;

    const failuresByKind = { 500: 0, 503: 0, cut: 0 } as Record<string, number>;
    for (const s of app.values()) if (!s.answer.ok) failuresByKind[String(s.answer.kind)]!++;
    const appFailures = failuresByKind['500']! + failuresByKind['503']! + failuresByKind['cut']!;
    const neverReached = [...sender.keys()].filter((id) => !app.has(id)).length;
    const planned = plans.reduce((n, p) => n + p.findIndex((a) => a.ok) + 1, 0);
    console.log(
      `[load] webhook listen: ${EVENTS} events from ${SENDERS} senders, seed ${SEED}: ${attempts} attempts (${planned} planned), ` +
        `app failures ${appFailures} (${((100 * appFailures) / Math.max(1, app.size)).toFixed(1)} %: 500 x${failuresByKind['500']}, 503 x${failuresByKind['503']}, cut x${failuresByKind['cut']}), ` +
        `${neverReached} attempts never reached the app; ${elapsed.toFixed(1)} s, ${Math.round(EVENTS / elapsed)} events/s, ${Math.round(attempts / elapsed)} attempts/s`,
    );

    // Nothing reached the app without an attempt id; no sender connection was dropped
    // (a failure must be answered, non-2xx, for the service to retry knowingly).
    expect(strays, 'requests at the app without a known attempt id').toEqual([]);
    const dropped = [...sender]
      .filter(([, s]) => 'error' in s)
      .map(([id, s]) => `${id}: ${(s as { error: string }).error}`);
    expect(
      dropped.slice(0, 20),
      `${dropped.length} attempts got no answer from the listener`,
    ).toEqual([]);

    // 1. Every failure of the app was answered non-2xx: its status relayed, 502 for a cut.
    const wrongFailures: string[] = [];
    for (const [id, s] of app) {
      if (s.answer.ok) continue;
      const saw = sender.get(id);
      const want = s.answer.kind === 'cut' ? 502 : s.answer.kind;
      if (!saw || !('status' in saw) || saw.status !== want)
        wrongFailures.push(
          `${id}: app ${s.answer.kind}, sender got ${JSON.stringify(saw)}, expected ${want}`,
        );
    }
    expect(
      wrongFailures.slice(0, 20),
      `${wrongFailures.length} failures of the app not answered as such`,
    ).toEqual([]);

    // 2. Every 2xx the sender got is the app's 2xx to that very attempt; every other
    //    answer is a failure the app gave, or a 502 for an attempt it never saw.
    const wrongAnswers: string[] = [];
    for (const [id, saw] of sender) {
      if (!('status' in saw)) continue;
      const s = app.get(id);
      if (saw.status >= 200 && saw.status < 300) {
        if (!s || !s.answer.ok || s.answer.status !== saw.status)
          wrongAnswers.push(
            `${id}: sender got ${saw.status}, app ${s ? JSON.stringify(s.answer) : 'never saw it'}`,
          );
      } else if (!s ? saw.status !== 502 : s.answer.ok) {
        wrongAnswers.push(
          `${id}: sender got ${saw.status}, app ${s ? JSON.stringify(s.answer) : 'never saw it'}`,
        );
      }
    }
    expect(
      wrongAnswers.slice(0, 20),
      `${wrongAnswers.length} answers the app did not give`,
    ).toEqual([]);

    // 3. Every event reached the app with a 2xx exactly once, with the bytes and
    //    signature sent; no attempt reached it twice.
    const twice = [...app].filter(([, s]) => s.times > 1).map(([id, s]) => `${id} x${s.times}`);
    expect(twice.slice(0, 20), `${twice.length} attempts forwarded more than once`).toEqual([]);
    const successes = new Map<number, string[]>();
    const wrongBytes: string[] = [];
    for (const [id, s] of app) {
      const sent = bodies[s.event]!.bytes;
      if (!s.body.equals(sent))
        wrongBytes.push(`${id}: ${s.body.length} bytes at the app, ${sent.length} sent`);
      if (
        s.signature !== signed.get(s.event)?.['X-Svc-Signature'] ||
        s.contentType !== 'application/json'
      ) {
        wrongBytes.push(`${id}: signature ${s.signature}, content-type ${s.contentType}`);
      }
      if (s.answer.ok) successes.set(s.event, [...(successes.get(s.event) ?? []), id]);
    }
    expect(wrongBytes.slice(0, 20), `${wrongBytes.length} attempts altered on the way`).toEqual([]);
    const notOnce = bodies.flatMap((_, i) =>
      (successes.get(i)?.length ?? 0) === 1
        ? []
        : [
            `event ${i}: 2xx at the app ${successes.get(i)?.length ?? 0} times (${successes.get(i)?.join(', ') ?? ''})`,
          ],
    );
    expect(notOnce.slice(0, 20), `${notOnce.length} events not delivered exactly once`).toEqual([]);
    expect(delivered.size).toBe(EVENTS);
    for (const [i, id] of delivered) expect(successes.get(i), `event ${i}`).toEqual([id]);

    // 4. One --json line per attempt; SIGINT: exit 0; the journal, one entry per attempt.
    await listen.waitLines(attempts, 60_000);
    const listenLines = listen.lines;
    const { exitCode, stderr } = await listen.stop('SIGINT');
    listen = undefined;
    expect(exitCode, stderr).toBe(0);
    expectNoStack(stderr);
    expect(
      stderr.split('\n').filter((l) => l.startsWith('error:')),
      'errors reported by the listener',
    ).toEqual([]);
    const stats = /(\d+) recibidas, (\d+) reenviadas, (\d+) fallidas/.exec(stderr);
    expect(stats, stderr).not.toBeNull();
    expect(stats!.slice(1).map(Number)).toEqual([attempts, EVENTS, attempts - EVENTS]);

    const { entries, skipped } = readJournal(journal);
    expect(skipped).toBe(0);
    expect(entries).toHaveLength(attempts);
    const byAttempt = new Map<string, JournalEntry>();
    const wrongEntries: string[] = [];
    for (const e of entries) {
      const id = e.headers[ATTEMPT_HEADER] ?? '';
      if (byAttempt.has(id)) wrongEntries.push(`${id}: journaled twice`);
      byAttempt.set(id, e);
      const saw = sender.get(id);
      if (!saw || !('status' in saw)) {
        wrongEntries.push(`${id}: journaled, never sent`);
        continue;
      }
      const i = Number(id.split('.')[0]);
      const s = app.get(id);
      const ok = saw.status >= 200 && saw.status < 300;
      const want = ok
        ? { outcome: 'forwarded', status: saw.status, answered: saw.status }
        : !s || s.answer.ok || s.answer.kind === 'cut'
          ? { outcome: 'unreachable', status: null, answered: 502 }
          : { outcome: 'target_error', status: s.answer.kind, answered: s.answer.kind };
      const got = { outcome: e.outcome, status: e.status, answered: e.answered };
      if (JSON.stringify(got) !== JSON.stringify(want))
        wrongEntries.push(
          `${id}: journal ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`,
        );
      if (!entryBody(e).equals(bodies[i]!.bytes))
        wrongEntries.push(`${id}: journaled body is not the one sent`);
      if (!e.verification.valid || e.target !== target.url || e.event !== bodies[i]!.event) {
        wrongEntries.push(
          `${id}: verification ${JSON.stringify(e.verification)}, target ${e.target}, event ${e.event}`,
        );
      }
    }
    expect(wrongEntries.slice(0, 20), `${wrongEntries.length} journal entries wrong`).toEqual([]);
    const unjournaled = [...sender.keys()].filter((id) => !byAttempt.has(id));
    expect(unjournaled.slice(0, 20), `${unjournaled.length} attempts not in the journal`).toEqual(
      [],
    );
    const forwardedEvents = new Set(
      entries
        .filter((e) => e.outcome === 'forwarded')
        .map((e) => e.headers[ATTEMPT_HEADER]!.split('.')[0]),
    );
    expect(forwardedEvents.size).toBe(EVENTS);

    const printed = listenLines.map((l) => JSON.parse(l) as JournalEntry);
    expect(printed).toHaveLength(attempts);
    expect(new Set(printed.map((p) => p.id))).toEqual(new Set(entries.map((e) => e.id)));
    const journaled = new Map(entries.map((e) => [e.id, e]));
    const differ = printed
      .filter((p) => JSON.stringify(p) !== JSON.stringify(journaled.get(p.id)))
      .map((p) => p.id);
    expect(
      differ.slice(0, 20),
      `${differ.length} --json lines differ from their journal entry`,
    ).toEqual([]);
  }, 180_000);
});
