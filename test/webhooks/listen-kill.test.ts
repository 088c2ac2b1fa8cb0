// Durability of `svc webhook listen` (the built CLI, as a process): an event answered
// 2xx is on disk. Two rounds on the same journal (one keeping, one forwarding to an
// app): a burst of signed events from many senders at once, the listener killed with
// SIGKILL while the burst is being answered, started again. Every event that was
// answered 2xx must be in the journal afterwards (acknowledged = durable); events that
// got no answer may or may not be. test/load/listen-kill.load.test.ts runs ten rounds,
// on every Node in CI (.ci/run). The rounds: test/helpers/listen-kill.ts.
import { describe, it } from 'vitest';
import { BURST, KILL_AFTER, killRounds } from '../helpers/listen-kill.js';

const ROUNDS = 2;

describe('webhook listen killed with SIGKILL during bursts', () => {
  it(`${ROUNDS} bursts of ${BURST} events, SIGKILL after ${KILL_AFTER} answers each: every event answered 2xx is in the journal`, async () => {
    await killRounds(ROUNDS);
  }, 120_000);
});
