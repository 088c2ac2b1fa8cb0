// What a client needs from the resolved configuration: the service's address and a
// key, the profile's live key read from the OS keyring when it lives there, the key
// judged by its prefix. Each failure says what is missing; which command fixes it is
// the CLI's to say (cli/hints.ts reads `problem`).
import { ConfigError, EXIT, UsageError } from '../errors.js';
import { keyMode, type Mode, type Resolved, type Sourced } from './resolve.js';

export type CredentialProblem = 'no_address' | 'no_key' | 'no_live_key' | 'keyring_failed' | 'keyring_gone';

/** Nothing configured where something must be (exit 2 without an address, 3 without a key). */
export class CredentialError extends ConfigError {
  constructor(
    message: string,
    readonly problem: CredentialProblem,
    exitCode: number,
  ) {
    super(message, undefined, exitCode);
  }
}

/** The address of the service, or a CredentialError. */
export function requireAddress(r: Resolved): string {
  if (!r.baseUrl) {
    throw new CredentialError(`no hay dirección del servicio configurada para el perfil "${r.profileName.value}"`, 'no_address', EXIT.usage);
  }
  return r.baseUrl.value;
}

/**
 * The key to send and its mode. A live key kept in the keyring is read here (and
 * stored in `r`, so it is read once); `live` is --live, which a test key cannot serve.
 */
export async function requireKey(r: Resolved, env: NodeJS.ProcessEnv, configPath: () => Promise<string>, live: boolean): Promise<{ key: string; mode: Mode }> {
  if (!r.apiKey && r.liveKeyInKeyring) r.apiKey = await liveKeyFromKeyring(env, await configPath(), r.profileName.value);
  if (!r.apiKey) {
    throw r.mode === 'live'
      ? new CredentialError(`el perfil "${r.profileName.value}" no tiene clave live`, 'no_live_key', EXIT.unauthorized)
      : new CredentialError(`no hay clave configurada para el perfil "${r.profileName.value}"`, 'no_key', EXIT.unauthorized);
  }
  const mode = keyMode(r.apiKey.value);
  if (!mode) {
    throw new UsageError(`la clave ${r.apiKey.source === 'env' ? 'de SVC_API_KEY' : 'del perfil'} no tiene el formato svc_test_… / svc_live_…`);
  }
  if (live && mode === 'test') throw new UsageError('--live pide modo live pero la clave es de test (svc_test_…)');
  return { key: r.apiKey.value, mode };
}

/** The profile's live key, from the OS keyring; a keyring that fails is a clear error, not a missing key. */
async function liveKeyFromKeyring(env: NodeJS.ProcessEnv, configPath: string, profile: string): Promise<Sourced<string>> {
  const { keyring, liveKeyAccount } = await import('./keyring.js');
  const answer = await keyring(env, liveKeyAccount(configPath, profile), { op: 'get' });
  if (!answer.ok) {
    throw new CredentialError(
      `la clave live del perfil "${profile}" está en el llavero del sistema, y el llavero falló: ${answer.reason}`,
      'keyring_failed',
      EXIT.unauthorized,
    );
  }
  if (answer.value === null) {
    throw new CredentialError(`la clave live del perfil "${profile}" ya no está en el llavero del sistema`, 'keyring_gone', EXIT.unauthorized);
  }
  return { value: answer.value, source: 'keyring' };
}
