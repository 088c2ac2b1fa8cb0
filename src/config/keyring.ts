// Live keys in the OS keyring (macOS Keychain, Windows Credential Manager, the
// Secret Service or the kernel keyring on Linux) through @napi-rs/keyring.
//
// Every call runs in a short-lived child process that is killed after 3 s (or
// SVC_KEYRING_TIMEOUT seconds). A headless Linux keyring can hang (a session bus that
// never answers), and it hangs inside the native constructor: on the main thread
// nothing could time it out, and a worker thread blocked in native code keeps the
// process from exiting. The key travels to the child on stdin, never in argv. Cost:
// one node start (~50 ms) per live command whose key is in the keyring.
import { fileURLToPath } from 'node:url';
import { printable } from '../text.js';

export const KEYRING_TIMEOUT_MS = 3000;

/**
 * How long a keyring call may take: KEYRING_TIMEOUT_MS, or SVC_KEYRING_TIMEOUT (whole
 * seconds, 1 to 60) where the keyring is known to be slow (a loaded machine, a keyring
 * unlocked over the network). Anything else in the variable: the default.
 */
export function keyringTimeoutMs(env: NodeJS.ProcessEnv): number {
  const text = env.SVC_KEYRING_TIMEOUT?.trim();
  const seconds = text !== undefined && /^\d{1,2}$/.test(text) ? Number(text) : NaN;
  return seconds >= 1 && seconds <= 60 ? seconds * 1000 : KEYRING_TIMEOUT_MS;
}
/** Name of the keyring service every svc entry is filed under. */
export const KEYRING_SERVICE = 'svc';

export type KeyringOp = { op: 'get' } | { op: 'set'; secret: string } | { op: 'delete' };
export type KeyringAnswer = { ok: true; value: string | null } | { ok: false; reason: string };

/** The entry of a profile's live key: the config file is in it, as two config folders share one keyring. */
export function liveKeyAccount(configPath: string, profile: string): string {
  return `live:${profile}:${configPath}`;
}

/** Why the keyring is not used at all, or undefined when it may be tried. */
export function keyringOff(env: NodeJS.ProcessEnv): string | undefined {
  const v = env.SVC_KEYRING?.trim().toLowerCase();
  if (v === 'off' || v === '0' || v === 'no' || v === 'false')
    return `SVC_KEYRING=${env.SVC_KEYRING!.trim()}`;
  return undefined;
}

/** One keyring call, bounded by keyringTimeoutMs(env). Never throws: a failure says why in `reason`. */
export async function keyring(
  env: NodeJS.ProcessEnv,
  account: string,
  request: KeyringOp,
): Promise<KeyringAnswer> {
  const off = keyringOff(env);
  if (off) return { ok: false, reason: `desactivado con ${off}` };
  // '../config/': right from dist/config/ (compiled) and dist/chunks/ (bundled) alike.
  const helper = fileURLToPath(new URL('../config/keyring-helper.js', import.meta.url));
  // The child needs the session (D-Bus address, HOME…), not svc's own secrets.
  const { SVC_API_KEY: _k, SVC_WEBHOOK_SECRET: _w, ...childEnv } = env;
  return new Promise<KeyringAnswer>((resolve) => {
    let settled = false;
    // Set once the child runs: a spawn that throws settles before there is a timer.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = (answer: KeyringAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    // child_process is loaded only when the keyring is asked: reading a test key never is.
    const { spawn } = process.getBuiltinModule('node:child_process');
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(process.execPath, [helper], {
        env: childEnv,
        stdio: ['pipe', 'pipe', 'ignore'],
        windowsHide: true,
      });
    } catch (err) {
      done({ ok: false, reason: `no se pudo consultar el llavero: ${(err as Error).message}` });
      return;
    }
    const timeout = keyringTimeoutMs(env);
    timer = setTimeout(() => {
      child.kill('SIGKILL');
      done({ ok: false, reason: `el llavero no respondió en ${timeout / 1000} s` });
    }, timeout);
    const chunks: Buffer[] = [];
    child.stdout!.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', (err) =>
      done({ ok: false, reason: `no se pudo consultar el llavero: ${err.message}` }),
    );
    child.on('close', () => done(parseAnswer(Buffer.concat(chunks).toString('utf8'))));
    child.stdin!.on('error', () => {
      // the child died before reading; 'close' reports it
    });
    child.stdin!.end(JSON.stringify({ service: KEYRING_SERVICE, account, ...request }));
  });
}

function parseAnswer(text: string): KeyringAnswer {
  try {
    const a = JSON.parse(text) as { ok?: unknown; value?: unknown; reason?: unknown };
    if (a.ok === true && (typeof a.value === 'string' || a.value === null))
      return { ok: true, value: a.value };
    if (a.ok === false && typeof a.reason === 'string')
      return { ok: false, reason: printable(inSpanish(a.reason.split('\n')[0] ?? ''), 200) };
  } catch {
    // fall through
  }
  return { ok: false, reason: 'el llavero terminó sin responder' };
}

/**
 * Removes a profile's live key from the keyring (logout, perfil borrar). Returns a
 * warning for the person when the keyring could not do it, naming the entry to delete by hand.
 */
export async function forgetLiveKey(
  env: NodeJS.ProcessEnv,
  configPath: string,
  profile: string,
): Promise<string | undefined> {
  const account = liveKeyAccount(configPath, profile);
  const answer = await keyring(env, account, { op: 'delete' });
  if (answer.ok) return undefined;
  return `la clave live sigue en el llavero del sistema (${answer.reason}); borrala a mano: servicio "${KEYRING_SERVICE}", cuenta "${account}"`;
}

/** The keyring library's reasons that reach a person, in svc's language; its own detail kept in parentheses. */
const REASONS: [RegExp, string][] = [
  [/^Couldn't access platform (?:secure )?storage:?\s*/i, 'el sistema no dio acceso al llavero'],
  [/^Platform (?:secure )?storage failure:?\s*/i, 'falló el llavero del sistema'],
  [/^No matching entry found in secure storage\.?\s*/i, 'la entrada no está en el llavero'],
];

export function inSpanish(reason: string): string {
  for (const [english, spanish] of REASONS) {
    const m = english.exec(reason);
    if (m) {
      const detail = reason.slice(m[0].length).trim();
      return detail ? `${spanish} (${detail})` : spanish;
    }
  }
  return reason;
}
