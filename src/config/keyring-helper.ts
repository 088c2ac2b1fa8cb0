// Child process of keyring.ts: one keyring call. Reads {service, account, op, secret?}
// as JSON on stdin, writes {ok, value} or {ok: false, reason} as JSON on stdout.
// It may hang inside the native library; the parent kills it after 3 s.
import { createRequire } from 'node:module';

interface Request {
  service: string;
  account: string;
  op: 'get' | 'set' | 'delete';
  secret?: string;
}

interface KeyringModule {
  Entry: new (
    service: string,
    account: string,
  ) => {
    getPassword(): string | null | undefined;
    setPassword(password: string): void;
    deleteCredential(): boolean;
  };
}

function answer(value: object): void {
  process.stdout.write(JSON.stringify(value));
}

function reasonOf(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0] ?? 'error desconocido';
}

async function main(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const req = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Request;

  let lib: KeyringModule;
  try {
    lib = createRequire(import.meta.url)('@napi-rs/keyring') as KeyringModule;
  } catch (err) {
    answer({
      ok: false,
      reason: `no hay llavero para ${process.platform}-${process.arch} (@napi-rs/keyring: ${reasonOf(err)})`,
    });
    return;
  }
  try {
    const entry = new lib.Entry(req.service, req.account);
    if (req.op === 'get') answer({ ok: true, value: entry.getPassword() ?? null });
    else if (req.op === 'set') {
      entry.setPassword(req.secret ?? '');
      // A keyring that takes the key but cannot give it back is no keyring.
      if (entry.getPassword() !== req.secret)
        answer({ ok: false, reason: 'el llavero aceptó la clave pero no la devuelve' });
      else answer({ ok: true, value: null });
    } else answer({ ok: true, value: entry.deleteCredential() ? 'deleted' : null });
  } catch (err) {
    answer({ ok: false, reason: reasonOf(err) });
  }
}

main().catch((err: unknown) => answer({ ok: false, reason: reasonOf(err) }));
