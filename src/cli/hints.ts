// What to do next, in svc's own words: the library's errors say what happened and
// name no command; the CLI adds which `svc` command helps.
import { ApiError, NetworkError } from '../api/service-errors.js';
import { IncompleteListError } from '../api/list.js';
import { CredentialError } from '../config/credentials.js';
import { carried, type CarriedFlags } from './outcome.js';

/** `svc` before a command that talks to the service: what it shows depends on the profile, mode and address. */
const SERVICE_COMMAND =
  /\bsvc (?=(?:api|cargos|caso|cobro|cuenta|devoluciones|devolver|liquidaciones|login|salud|sync|transacciones)\b)/g;

/**
 * A hint whose commands run as printed: each `svc <command>` that talks to the service
 * carries the --profile, --live and --base-url the failed command was given (right after
 * `svc`), unless it already names them. Without them, `svc cobro ver 36` after a live
 * refusal would look in test mode.
 */
export function runnable(hint: string, flags: CarriedFlags = {}): string {
  const more = carried(flags);
  if (!more) return hint;
  return hint.replace(SERVICE_COMMAND, (svc, at: number) => {
    const command = hint.slice(at).split(/`|;| o /)[0]!;
    return /--(?:profile|live|base-url)\b/.test(command) ? svc : `svc${more} `;
  });
}

/** The `→` line under a service error, by its code. */
export function serviceHint(err: ApiError): string | undefined {
  switch (err.error) {
    case 'unauthorized':
      return 'revisá la clave con `svc login` o la variable SVC_API_KEY';
    case 'comercio_no_listo':
      return 'completá los datos del comercio en el panel; `svc cuenta` muestra el estado';
    case 'not_found':
      return err.http === 404 ? 'revisá el id; `svc cobro listar` muestra los cobros' : undefined;
    default:
      return undefined;
  }
}

/** The error line of a failure to reach the service; a refused connection says where the service could be. */
export function networkLine(err: NetworkError): string {
  return err.failure === 'connection_refused'
    ? `${err.message}; ¿está corriendo el servicio o \`svc sandbox\`?`
    : err.message;
}

/** The `→` line under a missing address or key (config/credentials.ts). */
export function credentialHint(err: CredentialError): string {
  switch (err.problem) {
    case 'no_address':
      return 'corré `svc login --base-url https://…`, o `svc sandbox` y usá la dirección que imprime (SVC_BASE_URL=…)';
    case 'no_live_key':
      return 'corré `svc login` con una clave svc_live_…';
    case 'only_live_key':
      return 'con --live opera con dinero real; para modo test, `svc login` con una clave svc_test_… en este perfil';
    case 'no_key':
      return 'corré `svc login` o definí SVC_API_KEY';
    case 'keyring_failed':
      return 'desbloquealo y probá de nuevo, o volvé a correr `svc login` (con SVC_KEYRING=off la clave queda en el archivo de configuración)';
    case 'keyring_gone':
      return 'volvé a correr `svc login` con la clave svc_live_…';
    case 'unknown_profile':
      return '`svc perfil listar` los muestra; `svc login --profile <nombre>` crea uno';
    case 'bad_key':
      return 'revisá SVC_API_KEY, o volvé a correr `svc login`';
    case 'no_secret':
      return 'definí SVC_WEBHOOK_SECRET, o guardalo en el perfil con `svc login --webhook-secret-stdin` (el secreto está en el panel; el de `svc sandbox` lo imprime al arrancar)';
  }
}

/** The `→` line of any error svc knows, when the error itself carries none. */
export function hintFor(err: unknown): string | undefined {
  if (err instanceof ApiError) return err.suggestion ?? serviceHint(err);
  if (err instanceof CredentialError) return credentialHint(err);
  if (err instanceof IncompleteListError)
    return `\`svc api GET ${err.path}\` muestra la respuesta tal como llegó`;
  return (err as { suggestion?: string } | undefined)?.suggestion;
}
