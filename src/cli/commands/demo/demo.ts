// svc demo: the whole flow against a sandbox and a notification listener started
// in-process on free ports with a throw-away store. Each step prints the command a
// user would type and then runs that very command (through main), so the demo
// shows svc's real output. --json: one JSON line per step.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import type { Context, RunSvc } from '../../context.js';
import { CliError, EXIT } from '../../../errors.js';
import { SandboxControl } from '../../shared/sandbox-control.js';
import { displayWidth, shellLines, wrapWords } from '../../../text.js';

interface Step {
  title: string;
  argv: string[];
  /** Shown instead of argv when the real command line differs (ids known only at run time). */
  show?: string[];
  /** Runs with its output captured, not shown; `after` prints what a person should see. */
  quiet?: boolean;
  after?: (stdout: string) => void;
}

export async function run(ctx: Context): Promise<void> {
  const { io } = ctx;
  const json = ctx.globals.json;
  const work = mkdtempSync(join(tmpdir(), 'svc-demo-'));
  const closers: (() => Promise<void>)[] = [];
  const signal = new AbortController().signal;
  const say = (line = '') => {
    if (!json) io.out(line);
  };
  try {
    const { startSandbox } = await import('../../../sandbox/index.js');
    const { startListener } = await import('../../../webhooks/listen.js');

    // "Your app": where the listener forwards; answers 200 and counts what it got.
    const received: string[] = [];
    const app = await listenApp((body) => received.push(body));
    closers.push(() => new Promise((r) => app.close(() => r())));
    const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/webhooks`;

    const sandbox = await startSandbox({
      port: 0,
      retrySchedule: [200, 400, 800],
      readyDelayMs: 0,
    });
    closers.push(() => sandbox.close());
    const journal = join(work, 'webhooks.jsonl');
    const listener = await startListener({
      host: '127.0.0.1',
      port: 0,
      forwardTo: appUrl,
      secret: sandbox.webhookSecret,
      journal,
    });
    closers.unshift(() => listener.close());
    // A client of its own, not ctx's: this POST is the demo's set-up, not a write of the person's.
    const { Client } = await import('../../../api/client.js');
    await new SandboxControl(
      new Client({ baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey }),
    ).setWebhookUrl(listener.url);

    const env: NodeJS.ProcessEnv = {
      ...ctx.env,
      SVC_BASE_URL: sandbox.baseUrl,
      SVC_API_KEY: sandbox.apiKey,
      SVC_WEBHOOK_SECRET: sandbox.webhookSecret,
      SVC_CONFIG_DIR: join(work, 'config'),
      SVC_DATA_DIR: join(work, 'data'),
      SVC_PROFILE: 'demo',
    };

    say(io.c.bold('svc demo: un recorrido completo contra un sandbox propio;'));
    say(io.c.bold('nada sale de esta máquina.'));
    say();
    const command = (words: string[], note?: string) => {
      for (const line of commandLines(words.map(quote), io.columns ?? Infinity, note)) {
        const typed = line.typed.startsWith('$ ')
          ? `${io.c.dim('$')} ${io.c.bold(line.typed.slice(2))}`
          : io.c.bold(line.typed);
        say(
          line.note === undefined
            ? typed
            : `${typed}${line.typed.trim() ? NOTE_GAP : ''}${io.c.dim(line.note)}`,
        );
      }
    };
    command(['sandbox', '--port', '0'], `# escuchando en ${sandbox.baseUrl}`);
    command(['webhook', 'listen', '--forward-to', appUrl], `# en ${listener.url}`);
    say();

    let n = 0;
    const step = async (s: Step): Promise<string> => {
      n++;
      const words = s.show ?? s.argv;
      const shown = `svc ${words.map(quote).join(' ')}`;
      for (const line of wrapWords(`${n}. ${s.title}`, io.columns ?? Infinity))
        say(io.c.cyan(line));
      command(words);
      // Both streams as they are written: a step's preview (stderr) comes before its result.
      const live = json || s.quiet ? undefined : { out: io.stdout, err: io.stderr };
      const out = await runInner(ctx.runSvc, s.argv, env, live, signal);
      if (out.code !== EXIT.ok) {
        if (json)
          io.outRaw(
            JSON.stringify({
              paso: n,
              titulo: s.title,
              comando: shown,
              codigo: out.code,
              error: out.stderr.trim(),
            }),
          );
        throw new CliError(
          `el paso ${n} (${shown}) terminó con código ${out.code}: ${out.stderr.trim().split('\n')[0] ?? ''}`,
          { exit: EXIT.refused, code: 'demo_failed' },
        );
      }
      if (json)
        io.outRaw(
          JSON.stringify({
            paso: n,
            titulo: s.title,
            comando: shown,
            codigo: EXIT.ok,
            salida: parseOr(out.stdout),
          }),
        );
      else if (!live && out.stderr.trim()) io.err(out.stderr.trimEnd());
      if (!json) s.after?.(out.stdout);
      say();
      return out.stdout;
    };
    const fmt = json ? ['--json'] : [];

    const created = await step({
      title: 'Crear un cobro y compartir el link de pago',
      argv: [
        'cobro',
        'crear',
        '--concepto',
        'Demo: pedido 1042',
        '--monto',
        '1500.00',
        '--referencia',
        'demo-1042',
        '--json',
      ],
      show: [
        'cobro',
        'crear',
        '--concepto',
        'Demo: pedido 1042',
        '--monto',
        '1500.00',
        '--referencia',
        'demo-1042',
      ],
      quiet: true,
      after: (stdout) => {
        const url = (JSON.parse(stdout) as { url: string }).url;
        const hint = '(abrilo en el navegador para pagar como tu cliente)';
        const line = `link de pago: ${url}   ${hint}`;
        if (displayWidth(line) <= (io.columns ?? Infinity))
          return say(`link de pago: ${io.c.underline(url)}   ${io.c.dim(hint)}`);
        say(`link de pago: ${io.c.underline(url)}`);
        say(io.c.dim(hint));
      },
    });
    const cobro = JSON.parse(created) as { id: number };

    const id = String(cobro.id);
    await step({
      title: 'Quien paga abona una parte con QR',
      argv: ['sandbox', 'pagar', id, '--monto', '500.00', '--medio', 'qr', ...fmt],
    });
    await step({
      title: 'Y el resto con tarjeta de crédito',
      argv: ['sandbox', 'pagar', id, '--medio', 'credito', ...fmt],
    });
    await step({ title: 'El cobro, ya pagado', argv: ['cobro', 'ver', id, ...fmt] });
    await step({
      title: 'Las transacciones, con lo que te cobramos y lo que te queda',
      argv: ['transacciones', 'listar', ...fmt],
    });
    await step({
      title: 'Devolver una parte',
      argv: ['devolver', id, '--monto', '200.00', '--yes', ...fmt],
    });
    await step({ title: 'Las devoluciones', argv: ['devoluciones', 'listar', ...fmt] });
    await step({
      title: 'Lo que se va a liquidar y cuándo, con totales',
      argv: ['liquidaciones', ...fmt],
    });

    // Notifications travel asynchronously: wait (bounded) for the ones this flow emits, at
    // the app and in the listener's journal (it records an event once its forward is
    // answered, in its next group write, so the app may have one the journal has not yet).
    const expected = [
      'payment.created',
      'payment.partially_paid',
      'payment.approved',
      'payment.partially_refunded',
    ];
    const journaled = () => {
      try {
        return readFileSync(journal, 'utf8');
      } catch {
        return '';
      }
    };
    const arrived = () => {
      const lines = journaled();
      return expected.every(
        (e) => received.some((b) => b.includes(`"${e}"`)) && lines.includes(`"x-svc-event":"${e}"`),
      );
    };
    for (let i = 0; i < 200 && !arrived(); i++) await new Promise((r) => setTimeout(r, 50));
    await step({
      title: 'Las notificaciones firmadas que recibió y verificó el receptor',
      argv: ['webhook', 'eventos', '--journal', journal, ...fmt],
      show: ['webhook', 'eventos'],
    });
    const missing = expected.filter((e) => !received.some((b) => b.includes(`"${e}"`)));
    if (missing.length)
      throw new CliError(`tu app no recibió: ${missing.join(', ')}`, {
        exit: EXIT.refused,
        code: 'demo_failed',
      });
    say(
      io.c.green(`✓ listo: ${received.length} notificaciones verificadas y reenviadas a tu app.`),
    );
    say('Para seguir: `svc sandbox` en otra terminal y `svc --help`.');
  } finally {
    for (const close of closers) await close().catch(() => {});
    rmSync(work, { recursive: true, force: true });
  }
}

/** Runs one svc command in-process; its output streams to `live` when given, and is captured too. */
async function runInner(
  runSvc: RunSvc,
  argv: string[],
  env: NodeJS.ProcessEnv,
  live: { out: NodeJS.WritableStream; err: NodeJS.WritableStream } | undefined,
  signal: AbortSignal,
) {
  // On a terminal the steps render as they would for a person: tables fitted to its width, and colour.
  const terminal = live?.out as { isTTY?: boolean; columns?: number } | undefined;
  const stdout = Object.assign(new PassThrough(), {
    isTTY: Boolean(terminal?.isTTY),
    columns: terminal?.columns,
  });
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => {
    out += d.toString('utf8');
    live?.out.write(d);
  });
  stderr.on('data', (d: Buffer) => {
    err += d.toString('utf8');
    live?.err.write(d);
  });
  const stdin = Readable.from([]);
  const code = await runSvc([...argv, '--no-input'], { stdout, stderr, stdin, env, signal });
  return { code, stdout: out, stderr: err };
}

function listenApp(onBody: (body: string) => void): Promise<Server> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      onBody(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const NOTE_GAP = '   ';

/**
 * A command as a person would type it (`$ svc …`, its words already quoted), broken
 * for the terminal by shellLines; a note (`# …`) ends the last line when it fits, else
 * has a line of its own.
 */
export function commandLines(
  words: string[],
  width: number,
  note?: string,
): { typed: string; note?: string }[] {
  const out: { typed: string; note?: string }[] = shellLines(`$ svc ${words.join(' ')}`, width).map(
    (typed) => ({ typed }),
  );
  if (note !== undefined) {
    const last = out[out.length - 1]!;
    if (displayWidth(last.typed + NOTE_GAP + note) <= width) last.note = note;
    else out.push({ typed: '    ', note });
  }
  return out;
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `"${arg.replace(/(["\\$`])/g, '\\$1')}"`;
}

function parseOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text.trim();
  }
}
