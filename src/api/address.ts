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
