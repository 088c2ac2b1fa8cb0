// The sandbox's live updates (GET /_sandbox/stream, which the dashboard reads): one
// server-sent-events stream per open page, pushed to as things happen instead of polled. Three kinds of
// message: `evento` (a notification the store emitted: a new request, a payment, a
// refund…, only to its merchant), `entrega` (a delivery attempt, only to its
// merchant) and `log` (a request the sandbox answered, to everyone, as
// GET /_sandbox/log shows them). Never keys, secrets, headers or bodies of requests.
import type { ServerResponse } from 'node:http';
import { SandboxError } from './sandbox-error.js';
import type { Reply } from './types.js';

/**
 * Open streams at most per merchant (a page holds one); past it that merchant's next
 * one is 429. Per merchant, so a key that opens streams without end (the not-ready
 * merchant's, printed beside the main one) never locks another merchant's dashboard out;
 * the sandbox's merchants are few and fixed, so the total stays bounded too.
 */
export const MAX_STREAMS = 64;
/** A comment line this often keeps proxies and idle timers from closing a quiet stream. */
const HEARTBEAT_MS = 15_000;
/** A page that stops reading is dropped once this much waits unsent. */
const MAX_BUFFERED = 1024 * 1024;

export type StreamKind = 'evento' | 'entrega' | 'log';

interface Subscriber {
  merchant: number;
  write(text: string): void;
  end(): void;
}

/** A reply that app.ts hands the response to, instead of writing a body. */
export interface StreamReply extends Reply {
  stream(res: ServerResponse): Promise<void>;
}

export function isStreamReply(reply: Reply): reply is StreamReply {
  return typeof (reply as Partial<StreamReply>).stream === 'function';
}

const EVENT_STREAM = 'text/event-stream; charset=utf-8';

export class Hub {
  private readonly subs = new Set<Subscriber>();
  /** Open streams by merchant. */
  private readonly open = new Map<number, number>();
  private nextId = 1;

  /** Sends a message to the streams of `merchant` (null: to every stream). */
  publish(kind: StreamKind, data: unknown, merchant: number | null): void {
    if (this.subs.size === 0) return;
    const text = `id: ${this.nextId++}\nevent: ${kind}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const s of this.subs) if (merchant === null || s.merchant === merchant) s.write(text);
  }

  get size(): number {
    return this.subs.size;
  }

  /** The reply of GET /_sandbox/stream for a merchant; 429 past MAX_STREAMS of that merchant. */
  reply(merchant: number): StreamReply {
    if ((this.open.get(merchant) ?? 0) >= MAX_STREAMS) {
      throw new SandboxError(
        429,
        'too_many_streams',
        `como mucho ${MAX_STREAMS} transmisiones en vivo a la vez por clave; cerrá una pestaña del panel`,
      );
    }
    return {
      status: 200,
      body: '',
      contentType: EVENT_STREAM,
      stream: (res) => this.serve(merchant, res),
    };
  }

  /** Ends every stream (the sandbox is stopping). */
  close(): void {
    for (const s of [...this.subs]) s.end();
  }

  private serve(merchant: number, res: ServerResponse): Promise<void> {
    res.writeHead(200, {
      'Content-Type': EVENT_STREAM,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'X-Accel-Buffering': 'no',
    });
    // The page reconnects by itself after a cut; this is how long it waits first.
    res.write(`retry: 2000\n\n`);
    // A stopping sandbox ends every stream through close() (sandbox/index.ts).
    return new Promise<void>((resolve) => {
      let ended = false;
      let quiet = true;
      const sub: Subscriber = {
        merchant,
        write: (text) => {
          if (ended) return;
          if (res.writableLength > MAX_BUFFERED) return sub.end();
          quiet = false;
          res.write(text);
        },
        end: () => {
          if (ended) return;
          ended = true;
          clearInterval(timer);
          this.subs.delete(sub);
          this.open.set(merchant, (this.open.get(merchant) ?? 1) - 1);
          res.end();
          resolve();
        },
      };
      // A heartbeat when nothing was sent for a whole interval.
      const timer = setInterval(() => {
        if (quiet) res.write(`: sigo aquí\n\n`);
        quiet = true;
      }, HEARTBEAT_MS);
      timer.unref();
      this.subs.add(sub);
      this.open.set(merchant, (this.open.get(merchant) ?? 0) + 1);
      res.once('close', () => sub.end());
    });
  }
}
