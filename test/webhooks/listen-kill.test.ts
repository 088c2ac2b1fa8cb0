// Durability of `svc webhook listen` (the built CLI, as a process): an event answered
// 2xx is on disk. Several rounds on the same journal: a burst of signed events from
// many senders at once, the listener killed with SIGKILL while the burst is being
// answered, started again. Every event that was answered 2xx must be in the journal
// afterwards (acknowledged = durable); events that got no answer may or may not be.
// Figures printed with a [kill] prefix; nothing is asserted on time.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sampleBody } from '../../src/webhooks/events.js';
import { readJournal } from '../../src/webhooks/journal.js';
import { notificationHeaders } from '../../src/webhooks/signature.js';
import { tempDir } from '../helpers/cli.js';
import { post, startListen, startReceiver, type ListenProc, type Receiver, stopBoth } from '../helpers/receiver.js';

// A test secret, only ever used in this test.
const SECRET = 'whsec_listen_kill_secret_0815';
const ROUNDS = 5;
const BURST = 300;
/** The kill comes once this many events of the burst were answered 2xx. */
const KILL_AFTER = 120;

let listen: ListenProc | undefined;
let target: Receiver | undefined;
afterEach(async () => {
  await stopBoth(listen, target);
  [listen, target] = [undefined, undefined];
});

describe('webhook listen killed with SIGKILL during bursts', () => {
  it(`${ROUNDS} bursts of ${BURST} events, SIGKILL after ${KILL_AFTER} answers each: every event answered 2xx is in the journal`, async () => {
    const journal = join(tempDir('svc-listen-kill-'), 'webhooks.jsonl');
    target = await startReceiver();
    const acked = new Set<number>();
    let unanswered = 0;
    let next = 1;
    for (let round = 0; round < ROUNDS; round++) {
      // Half the rounds forward to an app, half only verify and keep: both answer 2xx.
      const args = ['--secret-from-env', '--journal', journal, ...(round % 2 ? ['--forward-to', target.url] : [])];
      listen = await startListen(args, { SVC_WEBHOOK_SECRET: SECRET, SVC_KEYRING: 'off' });
      const proc = listen.proc;
      let ok = 0;
      let killed = false;
      const sends = Array.from({ length: BURST }, () => {
        const id = next++;
        const bytes = Buffer.from(JSON.stringify({ ...sampleBody('payment.approved', { cobro_id: id }), ronda: round }));
        return post(listen!.url, bytes, notificationHeaders(SECRET, 'payment.approved', bytes)).then(
          (r) => {
            if (r.status >= 200 && r.status < 300) {
              acked.add(id);
              if (++ok === KILL_AFTER && !killed) {
                killed = true;
                proc.kill('SIGKILL');
              }
            } else unanswered++;
          },
          () => unanswered++,
        );
      });
      await Promise.all(sends);
      if (!killed) proc.kill('SIGKILL');
      await proc;
      listen = undefined;
    }

    const { entries, skipped } = readJournal(journal);
    const journaled = new Set(entries.map((e) => e.cobro_id));
    const lost = [...acked].filter((id) => !journaled.has(id));
    console.log(
      `[kill] webhook listen: ${ROUNDS} rounds of ${BURST} events, SIGKILL after ${KILL_AFTER} answers: ` +
        `${acked.size} answered 2xx, ${unanswered} without an answer, ${entries.length} journaled, ${skipped} torn lines, ${lost.length} answered 2xx but not journaled`,
    );
    expect(acked.size).toBeGreaterThanOrEqual(ROUNDS * KILL_AFTER);
    expect(lost.slice(0, 20), `${lost.length} events answered 2xx are missing from the journal`).toEqual([]);
    // A line torn by a kill is ended on the next start: at most one per kill, never glued to the next.
    expect(skipped).toBeLessThanOrEqual(ROUNDS);
    for (const e of entries) expect(e.verification.valid).toBe(true);
  }, 120_000);
});
