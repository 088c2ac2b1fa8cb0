// The look-up of `webhook ver <id>` and `webhook replay <id>`: the newest entries first,
// read back (at most RECENT of them), where most look-ups end and which costs the same
// whatever the journal's size; then lookUp: the file being written through its index
// (read whole: one generation), each previous one through its look-up file
// (journal-sorted.ts, a few positioned reads), else the whole journal read back.
import { JournalReader, lookUp, type JournalEntry, type Lookup } from './event-journal.js';

/** How many of the newest entries are read back before the index is asked. */
export const RECENT = 256;

/** The entry `id` names and its replays, with the reader whose skipped lines are to be reported. */
export function findInJournal(path: string, id: string): { found: Lookup; reader: JournalReader } {
  const recent = new JournalReader(path);
  // A replay is written after the entry it replays: seen before it, reading back.
  const replays: JournalEntry[] = [];
  let n = 0;
  for (const e of recent.events('newest')) {
    if (e.id === id)
      return { found: { entry: e, replays: replays.reverse(), matches: 1 }, reader: recent };
    if (e.replay_of === id) replays.push(e);
    if (++n >= RECENT) break;
  }
  const reader = new JournalReader(path);
  return { found: lookUp(reader, id), reader };
}
