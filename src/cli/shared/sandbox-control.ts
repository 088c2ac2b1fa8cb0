// A typed client of the sandbox's control plane (`/_sandbox/…`, only `svc sandbox`
// has it): the payer simulations, the notification URL and the delivery log. Used by
// `svc sandbox pagar|iniciar|rechazar|expirar` and `svc webhook trigger --sandbox`,
// so the routes and their bodies are written once.
import type { Client } from '../../api/client.js';
import { ApiError } from '../../api/service-errors.js';
import type { Medio } from '../../api/enums.js';
import type { Cobro } from '../../api/schemas.js';
import { UsageError } from '../../errors.js';
import type { LogEntry } from '../../sandbox/faults.js';

/** What a payer can do to a payment request in the sandbox. */
export type PayerAction = 'iniciar' | 'pagar' | 'rechazar' | 'expirar';

/** Only `pagar` reads a body: how much (default: what is left) and by which method. */
export interface PayerBody {
  monto?: string;
  medio?: Medio;
}

/** One attempt of the sandbox to deliver a notification (GET /_sandbox/entregas). */
export interface Entrega {
  id: number;
  event: string;
  cobro_id: number;
  url: string;
  intento?: number;
  status: number | null;
  ok: boolean;
  error: string | null;
  latencia_ms?: number;
  fecha?: string;
  /** The event this attempt carried (its number in /_sandbox/eventos). */
  evento_id?: number;
  /** Sent again on request (`svc sandbox reenviar`, the dashboard), not by the schedule. */
  reenvio?: boolean;
}

/** One request the sandbox received (GET /_sandbox/log): never headers or bodies. */
export type LogLine = LogEntry;

/** The sandbox's clock (GET /_sandbox/reloj). */
export interface Reloj {
  ahora: string;
  iso: string;
  tz: string;
  adelanto_ms: number;
}

/** A fault as POST /_sandbox/fallas takes it and GET lists it. */
export interface Falla {
  id?: number;
  method: string;
  path: string;
  count: number;
  action: 'respond' | 'respond_after' | 'cut' | 'cut_after' | 'delay';
  status?: number | null;
  body?: unknown;
  headers?: Record<string, string>;
  delay_ms?: number | null;
  /** One in every so many matching requests fails (1: each). */
  every?: number;
}

/** One merchant of a sandbox and its key, as GET /_sandbox/claves lists them. */
export interface SandboxKey {
  comercio: number;
  puede_cobrar: boolean;
  modo: string;
  clave: string;
}

export class SandboxControl {
  constructor(readonly client: Client) {}

  /** The payment request after the payer's action (POST /_sandbox/cobros/{id}/{action}). */
  async act(id: number, action: PayerAction, body: PayerBody = {}): Promise<Cobro> {
    return this.post<Cobro>(`/_sandbox/cobros/${id}/${action}`, body);
  }

  /** Where the sandbox sends notifications, or null. */
  async webhookUrl(): Promise<string | null> {
    return (await this.get<{ url: string | null }>('/_sandbox/webhook')).url;
  }

  /** null: no notifications sent. */
  async setWebhookUrl(url: string | null): Promise<void> {
    await this.post('/_sandbox/webhook', { url });
  }

  /** Sends event `n` (GET /_sandbox/eventos numbers them) again to the notification URL; the attempts follow. */
  async reenviar(
    n: number,
  ): Promise<{ evento_id: number; event: string; cobro_id: number; url: string }> {
    return this.post(`/_sandbox/eventos/${n}/reenviar`, {});
  }

  /** Every delivery attempt so far, oldest first. */
  async entregas(): Promise<Entrega[]> {
    return this.get<Entrega[]>('/_sandbox/entregas');
  }

  /** The last requests the sandbox received, oldest first. */
  async log(): Promise<LogLine[]> {
    return this.get<LogLine[]>('/_sandbox/log');
  }

  /**
   * The sandbox's live messages of one kind (GET /_sandbox/stream, the dashboard's
   * stream: `log` lines and `entrega` attempts as they happen), each message's data
   * parsed, until the sandbox ends the stream or `signal` aborts. Resolves once the
   * sandbox is sending: whatever happens from then on is in it.
   */
  async follow<T>(kind: 'log' | 'entrega', signal: AbortSignal): Promise<AsyncIterable<T>> {
    const texts = await this.client.stream('/_sandbox/stream', signal);
    return (async function* () {
      let buffered = '';
      for await (const text of texts) {
        buffered += text;
        // Messages end with a blank line; a part after the last one waits for the rest.
        let end: number;
        while ((end = buffered.indexOf('\n\n')) >= 0) {
          const message = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of message.split('\n')) {
            if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:'))
              data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
          }
          if (event === kind && data.length) yield JSON.parse(data.join('\n')) as T;
        }
      }
    })();
  }

  async addFalla(f: Falla): Promise<Falla> {
    return this.post<Falla>('/_sandbox/fallas', f);
  }

  async fallas(): Promise<Falla[]> {
    return this.get<Falla[]>('/_sandbox/fallas');
  }

  /** Removes every fault; how many there were. */
  async clearFallas(): Promise<number> {
    return (
      (await this.client.request({ method: 'DELETE', path: '/_sandbox/fallas' })).data as {
        data: { borradas: number };
      }
    ).data.borradas;
  }

  /** The merchants of the sandbox and their keys (GET /_sandbox/claves). */
  async claves(): Promise<SandboxKey[]> {
    return (await this.get<{ claves: SandboxKey[] }>('/_sandbox/claves')).claves;
  }

  /** The sandbox's clock. */
  async reloj(): Promise<Reloj> {
    return this.get<Reloj>('/_sandbox/reloj');
  }

  /** Moves the sandbox's clock on and runs what fell due. */
  async avanzar(duracion: string): Promise<Reloj & { vencidos: number[]; reintentos: number }> {
    return this.post('/_sandbox/reloj', { avanzar: duracion });
  }

  /** Sets the sandbox's clock back to the real time. */
  async reiniciar(): Promise<Reloj> {
    return this.post('/_sandbox/reloj', { reiniciar: true });
  }

  /** A UsageError when the address is a service without a control plane (not `svc sandbox`). */
  async ensureSandbox(flag: string): Promise<void> {
    try {
      await this.client.request({ method: 'GET', path: '/_sandbox/webhook' });
    } catch (err) {
      if (err instanceof ApiError && err.http === 404) {
        throw new UsageError(
          `${this.client.baseUrl} no es un svc sandbox (no tiene /_sandbox/): ${flag} solo funciona contra \`svc sandbox\``,
        );
      }
      throw err;
    }
  }

  private async get<T>(path: string): Promise<T> {
    return ((await this.client.request({ method: 'GET', path })).data as { data: T }).data;
  }

  private async post<T>(path: string, body: unknown): Promise<T> {
    return ((await this.client.request({ method: 'POST', path, body })).data as { data: T }).data;
  }
}
