// Ten rounds of a burst of signed events at `svc webhook listen`, each killed with
// SIGKILL while the burst is being answered, on one journal: every event answered 2xx
// is in it afterwards (the two-round version is test/webhooks/listen-kill.test.ts; the
// rounds: test/helpers/listen-kill.ts).
import { describe, it } from 'vitest';
import { BURST, KILL_AFTER, killRounds } from '../helpers/listen-kill.js';

const ROUNDS = 10;

describe('webhook listen killed with SIGKILL during bursts, under load', () => {
  it(`${ROUNDS} bursts of ${BURST} events, SIGKILL after ${KILL_AFTER} answers each: every event answered 2xx is in the journal`, async () => {
    await killRounds(ROUNDS);
  });
});
