// The listener's options, what it reports per event and its counters: the types both
// the server (listen.ts) and one request's way through it (receive.ts) use, apart so
// neither imports the other for them.
import type { Network } from '../api/network.js';
import type { JournalEntry } from './event-journal.js';

export interface ListenOptions {
  secret: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Path the notifications arrive at (default "/"). */
  path?: string;
  /** Where events go unless a route says otherwise; none: verified, journaled, answered 200. */
  forwardTo?: string;
  /** Event name -> URL. */
  routes?: Record<string, string>;
  /** Only these events are forwarded; the rest are answered 200 and journaled as skipped. */
  events?: readonly string[];
  /** Extra headers for the target (not journaled). */
  headers?: readonly (readonly [string, string])[];
  toleranceSeconds?: number;
  forwardTimeoutMs?: number;
  /** The proxy and CA bundle forwarding goes out with (network.ts). */
  network?: Network;
  maxBodyBytes?: number;
  /** Request bodies held at once (default BODIES_IN_FLIGHT_BYTES). */
  maxBodiesBytes?: number;
  /** Size at which the file of rejected requests rotates (default REJECTED_MAX_BYTES). */
  rejectedMaxBytes?: number;
  /** What the journal keeps, in bytes (default JOURNAL_KEEP_BYTES): past it, its oldest file is dropped. */
  journalKeepBytes?: number;
  /** Journal file path; null or absent: no journal. */
  journal?: string | null;
  /** Same as `journal`. */
  journalPath?: string | null;
  /** Called once per received request that had a full body (and for 413s), after it was answered. */
  onEvent?: (record: ListenRecord) => void;
  /** A journal write failed, or something unexpected happened handling a request. */
  onError?: (err: Error) => void;
}

/** What onEvent receives: the journal entry of the event. */
export type ListenRecord = JournalEntry;

export interface ListenerStats {
  received: number;
  forwarded: number;
  failed: number;
  rejected: number;
  skipped: number;
  /** Answered 503 because the bodies held at once were at their limit. */
  busy: number;
  in_flight: number;
}
