// Addresses as shown to people: a service address may carry a user and password
// (`https://user:pass@host`, for a proxy in front of the service), and whatever
// shows it (a debug line, an error, `svc login`, `svc perfil listar`, `svc salud`)
// would print the password. Everything that shows an address goes through here.

/** What replaces the userinfo part (`user:pass`) of an address. */
export const HIDDEN_USERINFO = '***';

// scheme://userinfo@ — the userinfo runs to the last "@" before the host ends
// (a "/", "?", "#" or "\", which WHATWG URL treats as "/", or a blank), so an
// unescaped "@" inside a password is hidden too, and an "@" in a path is not userinfo.
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^/?#\\\s"'<>`]*@/gi;

/** The text with the userinfo of every address in it replaced by `***` (works on addresses that do not parse). */
export function redactAddresses(text: string): string {
  return text.includes('@') ? text.replace(USERINFO, `$1${HIDDEN_USERINFO}@`) : text;
}

/** One address as shown: its userinfo hidden; null and undefined pass through. */
export function shownAddress<T extends string | null | undefined>(address: T): T {
  return (typeof address === 'string' ? redactAddresses(address) : address) as T;
}

/**
 * A webhook target (`--forward-to`, `--route`) as it is stored and shown: its
 * userinfo as `***@` and every query value as `***` (`?token=…` is a credential as
 * much as a password is). Only the process that forwards holds the whole URL, in
 * memory: the journal, the listener's status page and every command print this.
 */
export function maskTarget<T extends string | null | undefined>(url: T): T {
  if (typeof url !== 'string') return url;
  const text = maskPathTokens(redactAddresses(url));
  const q = text.indexOf('?');
  if (q < 0) return text as T;
  const hash = text.indexOf('#', q);
  const end = hash < 0 ? text.length : hash;
  const query = text
    .slice(q + 1, end)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      if (eq < 0) return part && HIDDEN_USERINFO;
      return eq === part.length - 1 ? part : `${part.slice(0, eq + 1)}${HIDDEN_USERINFO}`;
    })
    .join('&');
  return `${text.slice(0, q + 1)}${query}${text.slice(end)}` as T;
}

/**
 * A path segment or fragment that looks like a token (`/hooks/9f8e7d6c5b4a3f2e1d0c`,
 * `#k=…`): 16 or more URL-safe characters with both letters and digits. Chat and CI
 * webhooks carry their secret there rather than in the query.
 */
const TOKEN_LIKE = /^(?=[^]*[A-Za-z])(?=[^]*\d)[A-Za-z0-9._~=-]{16,}$/;

/** The target with every token-like segment of its path and its fragment shown as `***`. */
function maskPathTokens(text: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/i.exec(text);
  if (!m) return text;
  const [, origin, path = '', query = '', fragment = ''] = m;
  const maskedPath = path
    .split('/')
    .map((segment) => (TOKEN_LIKE.test(segment) ? HIDDEN_USERINFO : segment))
    .join('/');
  const maskedFragment =
    fragment && TOKEN_LIKE.test(fragment.slice(1)) ? `#${HIDDEN_USERINFO}` : fragment;
  return `${origin}${maskedPath}${query}${maskedFragment}`;
}

/** Whether a stored target was masked (maskTarget hid something): it cannot be sent to again as it is. */
export function isMaskedTarget(url: string): boolean {
  return (
    /^[a-z][a-z0-9+.-]*:\/\/\*\*\*@/i.test(url) ||
    /[?&]([^&#=]*=)?\*\*\*(?=[&#]|$)/.test(url) ||
    /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*(\/[^?#]*)?\/\*\*\*(?=[/?#]|$)/i.test(url) ||
    /#\*\*\*$/.test(url)
  );
}
