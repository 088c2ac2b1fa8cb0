// The defaults a person sees in help and gets when a flag is left out, written once.
// Import-free, so the commands' metadata can build help text from them without loading
// the sandbox or the listener. The runtime modules keep their own constant of the same
// value (they are libraries too); test/cli/layout.test.ts fails if the two drift.

export const DEFAULTS = {
  /** Where `svc sandbox` and `svc webhook listen` listen: this machine only. */
  host: '127.0.0.1',
  sandboxPort: 4010,
  listenPort: 4242,
  listenPath: '/',
  /** Accepted age of X-Svc-Timestamp, both ways (webhooks/signature.ts DEFAULT_TOLERANCE_SECONDS). */
  toleranceSeconds: 300,
  /** Longest wait for the app's answer (webhooks/forwarder.ts DEFAULT_FORWARD_TIMEOUT_MS). */
  forwardTimeoutSeconds: 10,
  /** Waits between notification retries of the sandbox (sandbox/dispatcher.ts DEFAULT_RETRY_SCHEDULE). */
  retryScheduleMs: [1_000, 4_000, 16_000, 64_000, 256_000] as readonly number[],
  /** Until a new payment request's cvu and qr are ready (sandbox/index.ts DEFAULT_READY_DELAY_MS). */
  readyDelayMs: 1500,
  /**
   * Items per page of the sandbox's /v1 lists (`svc sandbox --por-pagina`; 0: whole lists).
   * Paged by default, as a real service may page, so every client meets pages.
   */
  sandboxPageSize: 100,
  /** Time zone of the sandbox's dates (sandbox/time.ts DEFAULT_TZ). */
  timeZone: 'America/Argentina/Buenos_Aires',
  /** Amount of a `webhook trigger` sample and of the payment request `--sandbox` creates. */
  triggerMonto: '1500.00',
} as const;

/** Where `svc webhook listen` answers by default: what `svc webhook trigger` sends to without --forward-to. */
export const LOCAL_LISTENER_URL = `http://${DEFAULTS.host}:${DEFAULTS.listenPort}${DEFAULTS.listenPath}`;
