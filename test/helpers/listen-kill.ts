// Rounds of a burst of signed events at `svc webhook listen` (the built CLI, as a
// process), killed with SIGKILL while the burst is being answered, then started again on
// the same journal: every event answered 2xx must be in the journal afterwards
// (acknowledged = durable). Shared by test/webhooks/listen-kill.test.ts (two rounds, in
// npm test) and test/load/listen-kill.load.test.ts (ten, in CI). Figures printed with a
// [kill] prefix; nothing is asserted on time.
import { join } from 'node:path';
import { expect } from 'vitest';
import { sampleBody } from '../../src/webhooks/events.js';
import { readJournal } from '../../src/webhooks/event-journal.js';
import { notificationHeaders } from '../../src/webhooks/signature.js';
import { tempDir } from './cli.js';
import {
  post,
  startListen,
  startReceiver,
  stopBoth,
  type ListenProc,
  type Receiver,
} from './receiver.js';

// A test secret, only ever used in these tests.
const SECRET = 'whsec_listen_kill_secret_0815';
export const BURST = 300;
/** The kill comes once this many events of the burst were answered 2xx. */
export const KILL_AFTER = 120;

/** `rounds` bursts on one journal, each killed after KILL_AFTER answers; then checks the journal. */
export async function killRounds(rounds: number): Promise<void> {
  const journal = join(tempDir('svc-listen-kill-'), 'webhooks.jsonl');
  let listen: ListenProc | undefined;
  let target: Receiver | undefined;
  const acked = new Set<number>();
  let unanswered = 0;
  let next = 1;
  try {
    target = await startReceiver();
    for (let round = 0; round < rounds; round++) {
      // Half the rounds forward to an app, half only verify and keep: both answer 2xx.
      const args = [
        '--secret-from-env',
        '--journal',
        journal,
        ...(round % 2 ? ['--forward-to', target.url] : []),
      ];
      listen = await startListen(args, { SVC_WEBHOOK_SECRET: SECRET, SVC_KEYRING: 'off' });
      const proc = listen.proc;
      let ok = 0;
      let killed = false;
      const sends = Array.from({ length: BURST }, () => {
        const id = next++;
        const bytes = Buffer.from(
          JSON.stringify({ ...sampleBody('payment.approved', { cobro_id: id }), ronda: round }),
        );
        return post(
          listen!.url,
          bytes,
          notificationHeaders(SECRET, 'payment.approved', bytes),
        ).then(
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
  } finally {
    await stopBoth(listen, target);
  }

  const { entries, skipped } = readJournal(journal);
  const journaled = new Set(entries.map((e) => e.cobro_id));
  const lost = [...acked].filter((id) => !journaled.has(id));
  console.log(
    `[kill] webhook listen: ${rounds} rounds of ${BURST} events, SIGKILL after ${KILL_AFTER} answers: ` +
      `${acked.size} answered 2xx, ${unanswered} without an answer, ${entries.length} journaled, ${skipped} torn lines, ${lost.length} answered 2xx but not journaled`,
  );
  expect(acked.size).toBeGreaterThanOrEqual(rounds * KILL_AFTER);
  expect(
    lost.slice(0, 20),
    `${lost.length} events answered 2xx are missing from the journal`,
  ).toEqual([]);
  // A line torn by a kill is ended on the next start: at most one per kill, never glued to the next.
  expect(skipped).toBeLessThanOrEqual(rounds);
  for (const e of entries) expect(e.verification.valid).toBe(true);
}
