// How svc reaches the network from a company's: which proxy a connection goes
// through and which certificates it trusts. Proxies as curl and gh read them:
// HTTPS_PROXY / HTTP_PROXY / ALL_PROXY and NO_PROXY, lower case first, upper case
// too; a --proxy flag and a profile setting as well (flag > environment > profile).
// A company CA: --cacert, SSL_CERT_FILE or the profile's (NODE_EXTRA_CA_CERTS is
// Node's own and works as it always did). Pure and small: nothing here opens a
// socket or reads a file, so a command with no proxy pays nothing for it
// (transport.ts loads net and tls only for a connection that needs them).
import { EXIT, SvcError } from '../errors.js';
import { redactAddresses } from './address.js';

export type NetSource = 'flag' | 'env' | 'profile';

/** A proxy a connection goes through. */
export interface ProxyRoute {
  /** The proxy's address, credentials and all: only the connection reads it. */
  url: URL;
  /** The address as shown: credentials hidden. */
  shown: string;
  /** Where it came from, as a person sets it: `--proxy`, `HTTPS_PROXY`, `la opción proxy del perfil`. */
  from: string;
  source: NetSource;
}

/** The CA bundle svc trusts besides Node's own, and where it came from. */
export interface CaSetting {
  file: string;
  from: string;
  source: NetSource;
}

export interface NetworkSettings {
  /** --proxy; an empty value means no proxy at all (as curl's --proxy ""). */
  proxyFlag?: string;
  /** --cacert */
  caFlag?: string;
  /** The profile's `proxy` and `ca_file`. */
  profileProxy?: string;
  profileCa?: string;
}

/** A proxy svc cannot use or that failed: its message names the proxy (never its credentials) and where it was set. */
export class ProxyError extends SvcError {
  override name = 'ProxyError';
  readonly exitCode: number = EXIT.network;
  readonly code = 'SVC_PROXY';
  constructor(
    readonly kind: 'unreachable' | 'auth' | 'refused' | 'unsupported',
    readonly proxy: ProxyRoute,
    message: string,
    /** The proxy's status when it answered (407, 403…). */
    readonly status?: number,
  ) {
    super(message);
  }
}

/** The proxy could not be reached (the socket's error code). */
export function proxyUnreachable(proxy: ProxyRoute, code: string | undefined): ProxyError {
  const where = `revisá ${proxy.from}`;
  const message =
    code === 'ENOTFOUND' || code === 'EAI_AGAIN'
      ? `no se encontró el proxy ${proxy.shown}; ${where}`
      : code === 'ECONNREFUSED'
        ? `el proxy ${proxy.shown} no respondió (conexión rechazada); ${where}`
        : `el proxy ${proxy.shown} no respondió (${code ?? 'conexión cortada'}); ${where}`;
  return new ProxyError('unreachable', proxy, message);
}

/** The proxy answered 407: it wants credentials, or refused the ones in its address. */
export function proxyAuthError(proxy: ProxyRoute): ProxyError {
  const has = Boolean(proxy.url.username || proxy.url.password);
  return new ProxyError(
    'auth',
    proxy,
    has
      ? `el proxy ${proxy.shown} pidió autenticación (407) y no aceptó el usuario y la clave de ${proxy.from}`
      : `el proxy ${proxy.shown} pidió autenticación (407): agregá usuario y clave a su dirección en ${proxy.from} (usuario:clave@ delante del host)`,
    407,
  );
}

const PROXY_VARS = {
  'https:': ['https_proxy', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY'],
  'http:': ['http_proxy', 'HTTP_PROXY', 'all_proxy', 'ALL_PROXY'],
} as const;

export class Network {
  constructor(
    readonly settings: NetworkSettings,
    readonly env: NodeJS.ProcessEnv,
  ) {}

  /** The proxy setting for an address's scheme before NO_PROXY is applied (what --debug and diagnostics show). */
  configured(protocol: string): ProxyRoute | undefined {
    const { proxyFlag, profileProxy } = this.settings;
    if (proxyFlag !== undefined)
      return proxyFlag.trim() === '' ? undefined : route(proxyFlag, '--proxy', 'flag');
    for (const name of PROXY_VARS[protocol as keyof typeof PROXY_VARS] ?? []) {
      const value = this.env[name]?.trim();
      if (value) return route(value, name, 'env');
    }
    return profileProxy?.trim()
      ? route(profileProxy, 'la opción proxy del perfil', 'profile')
      : undefined;
  }

  /** NO_PROXY as set (no_proxy first), or undefined. */
  get noProxy(): string | undefined {
    const v = this.env.no_proxy ?? this.env.NO_PROXY;
    return v?.trim() ? v : undefined;
  }

  /**
   * The proxy a connection to `url` goes through, or undefined to go straight.
   * Loopback goes straight unless the proxy came from --proxy (asked for on the
   * command line); NO_PROXY applies to every source, as in curl.
   */
  route(url: URL): ProxyRoute | undefined {
    const proxy = this.configured(url.protocol);
    if (!proxy) return undefined;
    const host = bareHost(url.hostname);
    if (proxy.source !== 'flag' && isLoopback(host)) return undefined;
    const noProxy = this.noProxy;
    if (noProxy && bypassesProxy(noProxy, host, url.port || defaultPort(url.protocol)))
      return undefined;
    if (proxy.url.protocol !== 'http:')
      throw new ProxyError(
        'unsupported',
        proxy,
        `el proxy ${proxy.shown} (de ${proxy.from}) no es http://: svc se conecta a proxies http:// (con CONNECT para https); socks y https:// no están soportados`,
      );
    return proxy;
  }

  /** The CA bundle to trust besides Node's: --cacert > SSL_CERT_FILE > the profile's. */
  get ca(): CaSetting | undefined {
    const { caFlag, profileCa } = this.settings;
    if (caFlag?.trim()) return { file: caFlag, from: '--cacert', source: 'flag' };
    if (this.env.SSL_CERT_FILE?.trim())
      return { file: this.env.SSL_CERT_FILE, from: 'SSL_CERT_FILE', source: 'env' };
    if (profileCa?.trim())
      return { file: profileCa, from: 'la opción ca_file del perfil', source: 'profile' };
    return undefined;
  }

  /** One line for --debug: the proxy for an address and where it came from, or why none. */
  describe(url: URL): string {
    let proxy: ProxyRoute | undefined;
    try {
      proxy = this.configured(url.protocol);
    } catch (err) {
      return `red: ${(err as Error).message}`;
    }
    const ca = this.ca;
    const caText = ca ? `; certificados de ${ca.from} (${ca.file})` : '';
    if (!proxy) return `red: sin proxy${caText}`;
    let chosen: ProxyRoute | undefined;
    try {
      chosen = this.route(url);
    } catch {
      chosen = proxy;
    }
    const why = chosen
      ? ''
      : isLoopback(bareHost(url.hostname)) && proxy.source !== 'flag'
        ? ' no se usa: la dirección es local'
        : ' no se usa: NO_PROXY';
    return `red: proxy ${proxy.shown} (de ${proxy.from})${why}${caText}`;
  }
}

/** A network from the environment alone (for code that uses the client library directly). */
export function networkFromEnv(env: NodeJS.ProcessEnv = process.env): Network {
  return new Network({}, env);
}

function route(value: string, from: string, source: NetSource): ProxyRoute {
  const text = value.trim();
  // curl takes `proxy:3128` as http://proxy:3128.
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    const shown = redactAddresses(withScheme);
    throw new ProxyError(
      'unsupported',
      { url: new URL('http://invalid'), shown, from, source },
      `el proxy "${shown}" (de ${from}) no es una dirección válida (se espera http://host:puerto)`,
    );
  }
  return { url, shown: shownProxy(url), from, source };
}

/** A proxy's address as shown: scheme, `***@` when it has credentials, host and port. */
export function shownProxy(url: URL): string {
  const auth = url.username || url.password ? '***@' : '';
  return `${url.protocol}//${auth}${url.host}`;
}

/** The Proxy-Authorization header for a proxy with credentials in its address (Basic, as curl sends it). */
export function proxyAuthorization(url: URL): Record<string, string> {
  if (!url.username && !url.password) return {};
  const user = decodeURIComponent(url.username);
  const pass = decodeURIComponent(url.password);
  return { 'proxy-authorization': `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}` };
}

function defaultPort(protocol: string): string {
  return protocol === 'https:' ? '443' : '80';
}

function bareHost(host: string): string {
  return host
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
}

function isLoopback(host: string): boolean {
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    /^127(?:\.\d{1,3}){3}$/.test(host) ||
    host === '::1' ||
    host === '0:0:0:0:0:0:0:1'
  );
}

function ipv4(text: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
}

/**
 * Whether NO_PROXY sends a host straight, by curl's rules: a comma (or blank)
 * separated list; `*` alone matches everything; `example.com` and `.example.com`
 * match that domain and every name under it; an IP matches itself and
 * `10.0.0.0/8` a range; `host:port` (`[::1]:8080`) only that port. Case does not
 * matter. `host` is bare (no brackets), `port` the address's (default included).
 */
export function bypassesProxy(noProxy: string, host: string, port: string): boolean {
  const target = bareHost(host);
  const targetIp = ipv4(target);
  for (const raw of noProxy.split(/[\s,]+/)) {
    let entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    let entryPort: string | undefined;
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
    if (bracketed) {
      entry = bracketed[1]!;
      entryPort = bracketed[2];
    } else if (/^[^:]+:\d+$/.test(entry)) {
      const i = entry.lastIndexOf(':');
      entryPort = entry.slice(i + 1);
      entry = entry.slice(0, i);
    }
    if (entryPort !== undefined && entryPort !== port) continue;
    const slash = entry.indexOf('/');
    if (slash >= 0) {
      const base = ipv4(entry.slice(0, slash));
      const bits = Number(entry.slice(slash + 1));
      if (targetIp === undefined || base === undefined || !(bits >= 0 && bits <= 32)) continue;
      const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
      if ((targetIp & mask) >>> 0 === (base & mask) >>> 0) return true;
      continue;
    }
    entry = entry.replace(/^\*?\./, '').replace(/\.$/, '');
    if (!entry) continue;
    if (target === entry) return true;
    // A domain matches the names under it; an IP address only itself.
    if (targetIp === undefined && !target.includes(':') && target.endsWith(`.${entry}`))
      return true;
  }
  return false;
}
