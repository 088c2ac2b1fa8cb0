// What a client needs from the resolved configuration: the service's address and a
// key, the profile's live key read from the OS keyring when it lives there, the key
// judged by its prefix. Each failure says what is missing; which command fixes it is
// the CLI's to say (cli/hints.ts reads `problem`).
import { ConfigError, EXIT, UsageError } from '../errors.js';
import { keyMode, type Mode, type Resolved, type Sourced } from './resolve.js';

/**
 * Every configuration problem and its exit code, in one table (docs/salida-y-codigos.md,
 * "Problemas de configuración", lists it): what cannot be used as configured is a usage
 * error (2); a key that is missing or cannot be read is the same as a refused one (3).
 * Under --json each is `{"error":"config","problem":<name>,…}`.
 */
export const CONFIG_PROBLEMS = {
  no_address: EXIT.usage,
  unknown_profile: EXIT.usage,
  bad_key: EXIT.usage,
  no_secret: EXIT.usage,
  only_live_key: EXIT.usage,
  no_key: EXIT.unauthorized,
  no_live_key: EXIT.unauthorized,
  keyring_failed: EXIT.unauthorized,
  keyring_gone: EXIT.unauthorized,
} as const;

export type CredentialProblem = keyof typeof CONFIG_PROBLEMS;

/** Nothing (or nothing usable) configured where something must be; the exit code is the table's. */
export class CredentialError extends ConfigError {
  constructor(
    message: string,
    readonly problem: CredentialProblem,
    suggestion?: string,
  ) {
    super(message, suggestion, CONFIG_PROBLEMS[problem]);
  }
}

/**
 * A profile named by --profile or SVC_PROFILE that is not in the config file: said so,
 * with the ones that exist, rather than "no address" or "no key".
 */
export function checkProfileExists(r: Resolved): void {
  if (r.profile || r.profileName.source === 'default') return;
  const names = r.profileNames.length
    ? `los que hay: ${r.profileNames.join(', ')}`
    : 'todavía no hay ninguno';
  throw new CredentialError(
    `el perfil "${r.profileName.value}" no existe (${names})`,
    'unknown_profile',
  );
}

/** The address of the service, or a CredentialError. */
export function requireAddress(r: Resolved): string {
  if (!r.baseUrl) {
    checkProfileExists(r);
    throw new CredentialError(
      `no hay dirección del servicio configurada para el perfil "${r.profileName.value}"`,
      'no_address',
    );
  }
  return r.baseUrl.value;
}

/**
 * The key to send and its mode. A live key kept in the keyring is read here (and
 * stored in `r`, so it is read once); `live` is --live, which a test key cannot serve.
 */
export async function requireKey(
  r: Resolved,
  env: NodeJS.ProcessEnv,
  configPath: () => Promise<string>,
  live: boolean,
): Promise<{ key: string; mode: Mode }> {
  if (!r.apiKey && r.liveKeyInKeyring)
    r.apiKey = await liveKeyFromKeyring(env, await configPath(), r.profileName.value);
  if (!r.apiKey) {
    checkProfileExists(r);
    // A profile kept for live work only is not "no key": it wants --live.
    if (r.mode === 'test' && (r.profile?.live_key || r.profile?.live_key_in)) {
      throw new CredentialError(
        `el perfil "${r.profileName.value}" tiene solo una clave live: agregá --live para usarla`,
        'only_live_key',
      );
    }
    throw r.mode === 'live'
      ? new CredentialError(`el perfil "${r.profileName.value}" no tiene clave live`, 'no_live_key')
      : new CredentialError(
          `no hay clave configurada para el perfil "${r.profileName.value}"`,
          'no_key',
        );
  }
  const mode = keyMode(r.apiKey.value);
  if (!mode) {
    throw new CredentialError(
      `la clave ${r.apiKey.source === 'env' ? 'de SVC_API_KEY' : 'del perfil'} no tiene el formato svc_test_… / svc_live_…`,
      'bad_key',
    );
  }
  if (live && mode === 'test')
    throw new UsageError('--live pide modo live pero la clave es de test (svc_test_…)');
  return { key: r.apiKey.value, mode };
}

/** The profile's live key, from the OS keyring; a keyring that fails is a clear error, not a missing key. */
async function liveKeyFromKeyring(
  env: NodeJS.ProcessEnv,
  configPath: string,
  profile: string,
): Promise<Sourced<string>> {
  const { keyring, liveKeyAccount } = await import('./keyring.js');
  const answer = await keyring(env, liveKeyAccount(configPath, profile), { op: 'get' });
  if (!answer.ok) {
    throw new CredentialError(
      `la clave live del perfil "${profile}" está en el llavero del sistema, y el llavero falló: ${answer.reason}`,
      'keyring_failed',
    );
  }
  if (answer.value === null) {
    throw new CredentialError(
      `la clave live del perfil "${profile}" ya no está en el llavero del sistema`,
      'keyring_gone',
    );
  }
  return { value: answer.value, source: 'keyring' };
}
