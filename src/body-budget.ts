// The bytes of request bodies a server lets itself hold at once, all requests
// together: `svc webhook listen` and `svc sandbox` take from one before reading a body
// and answer 503 (the sender retries) when it does not fit, so a flood of big bodies
// costs a bounded amount of memory whatever its size.

/**
 * Request bodies held in memory at once, all requests together. A request whose body
 * does not fit is answered 503 (the sender retries) before its body is read.
 */
export const BODIES_IN_FLIGHT_BYTES = 32 * 1024 * 1024;
/**
 * Bodies declared up to this size may use the last quarter of that budget, which
 * larger ones may not: real requests are small and still get in while big forged
 * bodies fill the rest.
 */
export const SMALL_BODY_BYTES = 64 * 1024;

/** Small bodies may use the whole of the limit, larger ones three quarters: the rest stays free for real requests. */
export class BodyBudget {
  private held = 0;
  constructor(readonly limit: number = BODIES_IN_FLIGHT_BYTES) {}

  take(bytes: number, small: boolean): boolean {
    if (this.held + bytes > (small ? this.limit : Math.floor((this.limit * 3) / 4))) return false;
    this.held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.held -= bytes;
  }
}
