// Signed notifications: one queue per payment request, so a request's events arrive
// in the order they happened; an event that is not answered 2xx within the timeout
// is retried on the schedule (exponential by default), then given up. Every attempt
// is recorded for GET /_sandbox/entregas. Delivered and given-up events are reported
// (onSettled) so the store stops keeping them pending; the rest are handed in again
// after a restart. An event can be sent again on demand (resend): a new series of
// attempts on the request's queue, recorded like any other, the event unchanged.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { notificationHeaders } from '../webhooks/signature.js';
import { describeUnreachable } from '../webhooks/unreachable.js';
import { DEFAULTS } from '../defaults.js';
import type { Clock } from './time.js';
import { Latest, type StoredEvent } from './store.js';

/** Waits after attempt 1, 2, …: 1 s, 4 s, 16 s, 64 s, 256 s — six attempts in about 5.7 minutes. */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = DEFAULTS.retryScheduleMs;
export const ATTEMPT_TIMEOUT_MS = 10_000;

export interface Entrega {
  id: number;
  /** The event's number, as GET /_sandbox/eventos lists it (what POST /_sandbox/eventos/{id}/reenviar takes). */
  evento_id: number;
  event: string;
  cobro_id: number;
  url: string;
  intento: number;
  /** HTTP status of the answer, null when there was none. */
  status: number | null;
  ok: boolean;
  /** Why the attempt failed without a status (timeout, connection refused…). */
  error: string | null;
  latencia_ms: number;
  fecha: string;
  /** Milliseconds until the next attempt, null when this was the last one. */
  proximo_intento_ms: number | null;
  /** An attempt of a resend asked for by hand, not of the event's first delivery. */
  reenvio: boolean;
}

interface Job {
  seq: number;
  merchant: number;
  event: string;
  cobroId: number;
  body: string;
  attempt: number;
  resend: boolean;
}

export interface DispatcherOptions {
  clock: Clock;
  secret: string;
  /** The merchant's current notification URL (null: nothing is sent). */
  urlFor(m: number): string | null;
  retrySchedule?: readonly number[];
  timeoutMs?: number;
  /** Event `n` was delivered, given up, or has nowhere to go: it is not to be sent again. */
  onSettled?(n: number): void;
  /** Each attempt, as it is recorded (the dashboard's live stream). */
  onAttempt?(m: number, entrega: Entrega): void;
}

export class Dispatcher {
  private readonly queues = new Map<number, Job[]>();
  /** Waits before a retry: due on the sandbox's clock, so moving the clock on sends what falls due. */
  private readonly timers = new Map<NodeJS.Timeout, { due: number; resolve: () => void }>();
  private readonly inflight = new Set<() => void>();
  private readonly entregas = new Latest<Entrega>();
  private nextEntrega = 1;
  private closed = false;
  private idleWaiters: (() => void)[] = [];
  readonly schedule: readonly number[];
  readonly timeoutMs: number;

  constructor(private readonly opts: DispatcherOptions) {
    this.schedule = opts.retrySchedule ?? DEFAULT_RETRY_SCHEDULE;
    this.timeoutMs = opts.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  }

  /** Queues events (new ones, or pending ones after a restart), oldest first. */
  emit(events: StoredEvent[]): void {
    for (const e of events) {
      if (this.closed) return;
      if (!this.opts.urlFor(e.merchant)) {
        this.settle(e.seq);
        continue;
      }
      this.enqueue(e, false);
    }
  }

  /**
   * Sends an event again, behind what its request still has queued: a new series of
   * attempts (retried on the schedule like any other), marked `reenvio`. False when
   * the merchant has no notification URL (nothing is queued).
   */
  resend(e: StoredEvent): boolean {
    if (this.closed || !this.opts.urlFor(e.merchant)) return false;
    this.enqueue(e, true);
    return true;
  }

  private enqueue(e: StoredEvent, resend: boolean): void {
    const job: Job = {
      seq: e.seq,
      merchant: e.merchant,
      event: e.body.event,
      cobroId: e.body.cobro_id,
      body: JSON.stringify(e.body),
      attempt: 0,
      resend,
    };
    const queue = this.queues.get(job.cobroId);
    if (queue) {
      queue.push(job);
    } else {
      this.queues.set(job.cobroId, [job]);
      void this.run(job.cobroId);
    }
  }

  /** Attempts for the merchant, oldest first. */
  listEntregas(m: number): Entrega[] {
    return this.entregas.of(m);
  }

  /** Resolves when no event is waiting or being sent. */
  idle(): Promise<void> {
    if (this.queues.size === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /** Stops: pending retries are dropped, attempts in flight are cut. */
  close(): void {
    this.closed = true;
    for (const t of this.timers.keys()) clearTimeout(t);
    this.timers.clear();
    for (const abort of this.inflight) abort();
    this.queues.clear();
    this.wakeIdle();
  }

  private async run(cobroId: number): Promise<void> {
    const queue = this.queues.get(cobroId)!;
    while (queue.length && !this.closed) {
      const job = queue[0]!;
      const url = this.opts.urlFor(job.merchant);
      if (!url) {
        queue.shift();
        this.settle(job.seq);
        continue;
      }
      job.attempt++;
      const outcome = await this.send(url, job);
      if (this.closed) return;
      const last = job.attempt > this.schedule.length;
      const wait = outcome.ok || last ? null : this.schedule[job.attempt - 1]!;
      const entrega: Entrega = {
        id: this.nextEntrega++,
        evento_id: job.seq,
        event: job.event,
        cobro_id: job.cobroId,
        url,
        intento: job.attempt,
        status: outcome.status,
        ok: outcome.ok,
        error: outcome.error,
        latencia_ms: outcome.latencyMs,
        fecha: this.opts.clock.local(this.opts.clock.now()),
        proximo_intento_ms: wait,
        reenvio: job.resend,
      };
      this.entregas.push(job.merchant, entrega);
      this.opts.onAttempt?.(job.merchant, entrega);
      if (wait === null) {
        queue.shift();
        this.settle(job.seq);
        continue;
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => {
          this.timers.delete(t);
          resolve();
        }, wait);
        this.timers.set(t, { due: this.opts.clock.now() + wait, resolve });
      });
    }
    if (this.queues.get(cobroId) === queue) this.queues.delete(cobroId);
    if (this.queues.size === 0) this.wakeIdle();
  }

  /** The clock was moved on: every retry now due goes out at once, earliest first. How many. */
  wake(): number {
    const now = this.opts.clock.now();
    const due = [...this.timers.entries()]
      .filter(([, w]) => w.due <= now)
      .sort((a, b) => a[1].due - b[1].due);
    for (const [t, w] of due) {
      clearTimeout(t);
      this.timers.delete(t);
      w.resolve();
    }
    return due.length;
  }

  private settle(n: number): void {
    this.opts.onSettled?.(n);
  }

  private wakeIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private send(
    url: string,
    job: Job,
  ): Promise<{ ok: boolean; status: number | null; error: string | null; latencyMs: number }> {
    const started = performance.now();
    const latency = () => Math.round((performance.now() - started) * 10) / 10;
    const headers = notificationHeaders(
      this.opts.secret,
      job.event,
      job.body,
      Math.floor(this.opts.clock.wall() / 1000),
    );
    return new Promise((resolve) => {
      let settled = false;
      const finish = (status: number | null, error: string | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.inflight.delete(abort);
        resolve({
          ok: status !== null && status >= 200 && status < 300,
          status,
          error,
          latencyMs: latency(),
        });
      };
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        resolve({ ok: false, status: null, error: 'URL inválida', latencyMs: 0 });
        return;
      }
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      const req = send(target, {
        method: 'POST',
        agent: false,
        headers: {
          ...headers,
          'Content-Length': String(Buffer.byteLength(job.body)),
          'User-Agent': 'svc-sandbox',
        },
      });
      const abort = () => {
        req.destroy();
        finish(null, 'el sandbox se detuvo');
      };
      this.inflight.add(abort);
      const timer = setTimeout(() => {
        req.destroy();
        finish(null, describeUnreachable(null, true, this.timeoutMs));
      }, this.timeoutMs);
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => finish(res.statusCode ?? null, null));
        res.on('error', () => finish(res.statusCode ?? null, null));
      });
      req.on('error', (err: NodeJS.ErrnoException) =>
        finish(null, describeUnreachable(err, false, this.timeoutMs)),
      );
      req.end(job.body);
    });
  }
}
