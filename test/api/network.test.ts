// Which proxy a connection goes through, as curl decides it: NO_PROXY's matrix, the
// variables by scheme and case, loopback, and flag > environment > profile. Pure:
// no socket is opened here (test/cli/proxy.test.ts sends requests through one).
import { describe, expect, it } from 'vitest';
import {
  bypassesProxy,
  Network,
  ProxyError,
  proxyAuthError,
  proxyAuthorization,
  proxyUnreachable,
  shownProxy,
} from '../../src/api/network.js';

describe('NO_PROXY, by curl’s rules', () => {
  const cases: [string, string, string, boolean][] = [
    // [NO_PROXY, host, port, goes straight]
    ['*', 'api.example.com', '443', true],
    ['example.com', 'example.com', '443', true],
    ['example.com', 'api.example.com', '443', true],
    ['example.com', 'api.EXAMPLE.com', '443', true],
    ['.example.com', 'example.com', '443', true],
    ['.example.com', 'a.b.example.com', '443', true],
    ['*.example.com', 'api.example.com', '443', true],
    ['example.com', 'notexample.com', '443', false],
    ['example.com', 'example.com.ar', '443', false],
    ['EXAMPLE.COM.', 'api.example.com', '443', true],
    ['intranet, example.com', 'api.example.com', '443', true],
    ['intranet example.com', 'api.example.com', '443', true],
    ['intranet,,', 'api.example.com', '443', false],
    ['', 'api.example.com', '443', false],
    ['example.com:8443', 'api.example.com', '8443', true],
    ['example.com:8443', 'api.example.com', '443', false],
    ['10.1.2.3', '10.1.2.3', '443', true],
    ['10.1.2.3', '110.1.2.3', '443', false],
    ['0.1.2.3', '10.1.2.3', '443', false],
    ['10.0.0.0/8', '10.200.3.4', '443', true],
    ['10.0.0.0/8', '11.0.0.1', '443', false],
    ['192.168.1.0/24', '192.168.1.77', '80', true],
    ['192.168.1.0/24', '192.168.2.77', '80', false],
    ['10.0.0.0/8', 'api.example.com', '443', false],
    ['[2001:db8::1]', '2001:db8::1', '443', true],
    ['[2001:db8::1]:8080', '[2001:db8::1]', '8080', true],
    ['[2001:db8::1]:8080', '2001:db8::1', '443', false],
    ['2001:db8::1', '2001:db8::1', '443', true],
    ['*', '127.0.0.1', '80', true],
  ];
  it.each(cases)('NO_PROXY=%j, %s:%s → straight %s', (noProxy, host, port, straight) => {
    expect(bypassesProxy(noProxy, host, port)).toBe(straight);
  });
});

const route = (url: string, env: NodeJS.ProcessEnv, settings = {}) =>
  new Network(settings, env).route(new URL(url));

describe('which proxy', () => {
  it('https reads https_proxy, then HTTPS_PROXY, then all_proxy, then ALL_PROXY', () => {
    const all = {
      https_proxy: 'http://a:1',
      HTTPS_PROXY: 'http://b:2',
      all_proxy: 'http://c:3',
      ALL_PROXY: 'http://d:4',
      http_proxy: 'http://e:5',
    };
    expect(route('https://api.example.com', all)?.shown).toBe('http://a:1');
    const { https_proxy: _a, ...noLower } = all;
    expect(route('https://api.example.com', noLower)?.from).toBe('HTTPS_PROXY');
    const { HTTPS_PROXY: _b, ...onlyAll } = noLower;
    expect(route('https://api.example.com', onlyAll)?.from).toBe('all_proxy');
    expect(route('https://api.example.com', { ALL_PROXY: 'http://d:4' })?.from).toBe('ALL_PROXY');
    expect(route('https://api.example.com', { http_proxy: 'http://e:5' })).toBeUndefined();
  });

  it('http reads http_proxy and HTTP_PROXY, not the https ones', () => {
    expect(route('http://app.example.com', { http_proxy: 'http://e:5' })?.from).toBe('http_proxy');
    expect(route('http://app.example.com', { HTTP_PROXY: 'http://e:5' })?.from).toBe('HTTP_PROXY');
    expect(route('http://app.example.com', { HTTPS_PROXY: 'http://b:2' })).toBeUndefined();
  });

  it('an empty variable is no proxy; a proxy without scheme is http://', () => {
    expect(route('https://api.example.com', { HTTPS_PROXY: ' ' })).toBeUndefined();
    expect(route('https://api.example.com', { HTTPS_PROXY: 'proxy:3128' })?.url.href).toBe(
      'http://proxy:3128/',
    );
  });

  it('flag > environment > profile', () => {
    const env = { HTTPS_PROXY: 'http://env:1' };
    const profile = { profileProxy: 'http://perfil:2' };
    expect(route('https://api.example.com', {}, profile)?.source).toBe('profile');
    expect(route('https://api.example.com', env, profile)?.source).toBe('env');
    expect(
      route('https://api.example.com', env, { ...profile, proxyFlag: 'http://flag:3' })?.source,
    ).toBe('flag');
    // --proxy "" turns the proxy off, as curl's does.
    expect(route('https://api.example.com', env, { ...profile, proxyFlag: '' })).toBeUndefined();
  });

  it('NO_PROXY (or no_proxy) applies to every source', () => {
    const env = { HTTPS_PROXY: 'http://env:1', no_proxy: 'example.com' };
    expect(route('https://api.example.com', env)).toBeUndefined();
    expect(route('https://api.example.com', env, { proxyFlag: 'http://f:1' })).toBeUndefined();
    expect(
      route('https://api.example.com', { NO_PROXY: '.example.com', HTTPS_PROXY: 'http://x:1' }),
    ).toBeUndefined();
    expect(route('https://api.example.com:8443', { ...env, no_proxy: 'example.com:443' })).toEqual(
      expect.objectContaining({ from: 'HTTPS_PROXY' }),
    );
  });

  it('loopback goes straight unless the proxy was asked for with --proxy', () => {
    const env = { HTTP_PROXY: 'http://env:1', HTTPS_PROXY: 'http://env:1' };
    for (const url of [
      'http://127.0.0.1:8787',
      'http://localhost:3000',
      'http://LOCALHOST:3000',
      'http://app.localhost:3000',
      'http://[::1]:3000',
      'https://127.1.2.3',
    ]) {
      expect(route(url, env), url).toBeUndefined();
      expect(route(url, {}, { profileProxy: 'http://p:1' }), url).toBeUndefined();
      expect(route(url, env, { proxyFlag: 'http://f:1' })?.source, url).toBe('flag');
    }
  });

  it('credentials are kept for the connection and hidden wherever the proxy is shown', () => {
    const p = route('https://api.example.com', { HTTPS_PROXY: 'http://ana:s3cr%40ta@proxy:3128' });
    expect(p?.shown).toBe('http://***@proxy:3128');
    expect(p?.url.password).toBe('s3cr%40ta');
    const d = new Network({}, { HTTPS_PROXY: 'http://ana:s3cr%40ta@proxy:3128' }).describe(
      new URL('https://api.example.com'),
    );
    expect(d).toBe('red: proxy http://***@proxy:3128 (de HTTPS_PROXY)');
  });

  it('a socks or https proxy is refused in words, naming where it was set', () => {
    for (const value of ['socks5://ana:clave@proxy:1080', 'https://proxy:443']) {
      let err: unknown;
      try {
        route('https://api.example.com', { ALL_PROXY: value });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ProxyError);
      expect((err as Error).message).toContain('de ALL_PROXY');
      expect((err as Error).message).toContain('no es http://');
      expect((err as Error).message).not.toContain('clave');
    }
  });
});

describe('which CA bundle', () => {
  const ca = (env: NodeJS.ProcessEnv, settings = {}) => new Network(settings, env).ca;
  it('--cacert > SSL_CERT_FILE > the profile’s', () => {
    expect(ca({})).toBeUndefined();
    expect(ca({}, { profileCa: '/p.pem' })).toMatchObject({ file: '/p.pem', source: 'profile' });
    expect(ca({ SSL_CERT_FILE: '/e.pem' }, { profileCa: '/p.pem' })).toMatchObject({
      file: '/e.pem',
      from: 'SSL_CERT_FILE',
    });
    expect(
      ca({ SSL_CERT_FILE: '/e.pem' }, { profileCa: '/p.pem', caFlag: '/f.pem' }),
    ).toMatchObject({ file: '/f.pem', from: '--cacert' });
  });
});

describe('each setting whole: where it came from, and what it is', () => {
  it('a CA bundle says its file, where it was set and which source that is', () => {
    const ca = (env: NodeJS.ProcessEnv, settings = {}) => new Network(settings, env).ca;
    expect(ca({}, { caFlag: '/f.pem' })).toEqual({
      file: '/f.pem',
      from: '--cacert',
      source: 'flag',
    });
    expect(ca({ SSL_CERT_FILE: '/e.pem' })).toEqual({
      file: '/e.pem',
      from: 'SSL_CERT_FILE',
      source: 'env',
    });
    expect(ca({}, { profileCa: '/p.pem' })).toEqual({
      file: '/p.pem',
      from: 'la opción ca_file del perfil',
      source: 'profile',
    });
  });

  it('a proxy set with blanks around it is the proxy; a --proxy of blanks is none', () => {
    const https = (settings: object, env: NodeJS.ProcessEnv = {}) =>
      new Network(settings, env).configured('https:');
    expect(https({ proxyFlag: '  ' }, { HTTPS_PROXY: 'http://env:1' })).toBeUndefined();
    expect(https({ proxyFlag: ' http://p:3128 ' })?.shown).toBe('http://p:3128');
    expect(https({ profileProxy: ' perfil:3128 ' })?.shown).toBe('http://perfil:3128');
    // A scheme is one at the start only: later in the text it is part of the address.
    expect(https({ proxyFlag: 'p:3128/?a=b://c' })?.url.host).toBe('p:3128');
  });

  it('a refused proxy is an error of its kind, naming the setting it came from', () => {
    const refused = (value: string) => {
      try {
        new Network({ proxyFlag: value }, {}).route(new URL('https://api.example.com'));
      } catch (err) {
        return err as ProxyError;
      }
      throw new Error(`${value} was taken`);
    };
    for (const value of ['socks5://proxy:1080', 'http://[no es una dirección']) {
      const err = refused(value);
      expect(err.kind, value).toBe('unsupported');
      expect(err.proxy).toMatchObject({ from: '--proxy', source: 'flag' });
    }
  });

  it('--debug names NO_PROXY, not loopback, when a --proxy is skipped for a local address', () => {
    const net = new Network({ proxyFlag: 'http://p:3128' }, { NO_PROXY: 'localhost' });
    expect(net.describe(new URL('http://localhost:8080'))).toBe(
      'red: proxy http://p:3128 (de --proxy) no se usa: NO_PROXY',
    );
  });
});

describe('NO_PROXY: the edges of curl’s rules', () => {
  it.each([
    // [NO_PROXY, host, port, goes straight]
    ['example.com.', 'api.example.com.', '443', true],
    ['*.example.com', 'example.com', '443', true],
    ['example.com', 'example.com', '443', true],
    ['10.1.2.3:8080', '10.1.2.3', '8080', true],
    ['10.1.2.3:8080', '10.1.2.3', '80', false],
    ['10.0.0.0/0', '192.0.2.1', '443', true],
    ['10.1.2.3/32', '10.1.2.3', '443', true],
    ['10.1.2.3/32', '10.1.2.4', '443', false],
    ['10.0.0.0/33', '10.0.0.1', '443', false],
    ['10.0.0.0/x', '10.0.0.1', '443', false],
    ['300.0.0.0/8', '44.0.0.1', '443', false],
    ['10.0.0.0/8', '10.0.0.256', '443', false],
    // An IP address only matches itself, never as a "domain" under an entry.
    ['2.3.4', '1.2.3.4', '443', false],
    ['0.0.1', '10.0.0.1', '443', false],
    ['db8::1', '2001:db8::1', '443', false],
    ['.', 'api.example.com', '443', false],
    ['*.', 'api.example.com', '443', false],
    [' , example.com ', 'api.example.com', '443', true],
    // Brackets and addresses are read whole, never from a piece of the text.
    ['ab', 'a[b]', '443', false],
    ['ba', '[b]a', '443', false],
    ['x[::1]', '::1', '443', false],
    ['[::1]x', '::1', '443', false],
    ['fd00:1:2a::1', 'fd00:1:2a::1', '443', true],
    ['fd00::1:2', 'fd00::1:2', '443', true],
    ['1.2.3.0/24', 'x1.2.3.4', '443', false],
    ['1.2.3.0/24', '1.2.3.4x', '443', false],
    ['10.0.10.0/24', '10.0.10.5', '443', true],
    ['10.0.0.0/24', '10.0.0.255', '443', true],
    // A range matches addresses only, and only a range that is one.
    ['0.0.0.0/8', 'api.example.com', '443', false],
    ['300.0.0.0/8', '0.0.0.1', '443', false],
    ['10.0.0.0/-1', '10.0.0.1', '443', false],
    ['.', 'api.example.com..', '443', false],
  ] as const)('NO_PROXY=%j, %s:%s → straight %s', (noProxy, host, port, straight) => {
    expect(bypassesProxy(noProxy, host, port)).toBe(straight);
  });

  it('NO_PROXY of blanks is none; no_proxy is read before NO_PROXY', () => {
    expect(new Network({}, { NO_PROXY: '  ' }).noProxy).toBeUndefined();
    expect(new Network({}, { no_proxy: 'a.com', NO_PROXY: 'b.com' }).noProxy).toBe('a.com');
    expect(new Network({}, { NO_PROXY: 'b.com' }).noProxy).toBe('b.com');
  });

  it('the address’s default port is the one NO_PROXY compares', () => {
    const env = { HTTPS_PROXY: 'http://p:1', HTTP_PROXY: 'http://p:1' };
    expect(route('https://api.example.com', { ...env, NO_PROXY: 'example.com:443' })).toBe(
      undefined,
    );
    expect(route('http://api.example.com', { ...env, NO_PROXY: 'example.com:80' })).toBe(undefined);
    expect(route('http://api.example.com', { ...env, NO_PROXY: 'example.com:443' })?.from).toBe(
      'HTTP_PROXY',
    );
  });

  it('loopback is 127.0.0.0/8, localhost and ::1 in both spellings, nothing else', () => {
    const env = { HTTP_PROXY: 'http://env:1' };
    for (const url of [
      'http://[0:0:0:0:0:0:0:1]:80',
      'http://127.255.255.255',
      'http://localhost.',
    ])
      expect(route(url, env), url).toBeUndefined();
    for (const url of [
      'http://128.0.0.1',
      'http://localhostx',
      'http://notlocalhost',
      'http://[::2]',
      'http://127.example.com',
      'http://127.0.0.1.example',
    ])
      expect(route(url, env)?.from, url).toBe('HTTP_PROXY');
  });
});

describe('what svc says of a proxy', () => {
  const proxy = (value: string, from = 'HTTPS_PROXY') =>
    route('https://api.example.com', { [from]: value })!;

  it('not found, refused, cut: each in words, naming the proxy and where it was set', () => {
    const p = proxy('http://ana:clave@proxy.corp:3128');
    const say = (code: string | undefined) => {
      const err = proxyUnreachable(p, code);
      expect([err.kind, err.exitCode, err.code, err.name]).toEqual([
        'unreachable',
        6,
        'SVC_PROXY',
        'ProxyError',
      ]);
      return err.message;
    };
    expect(say('ENOTFOUND')).toBe(
      'no se encontró el proxy http://***@proxy.corp:3128; revisá HTTPS_PROXY',
    );
    expect(say('EAI_AGAIN')).toBe(say('ENOTFOUND'));
    expect(say('ECONNREFUSED')).toBe(
      'el proxy http://***@proxy.corp:3128 no respondió (conexión rechazada); revisá HTTPS_PROXY',
    );
    expect(say('ETIMEDOUT')).toBe(
      'el proxy http://***@proxy.corp:3128 no respondió (ETIMEDOUT); revisá HTTPS_PROXY',
    );
    expect(say(undefined)).toBe(
      'el proxy http://***@proxy.corp:3128 no respondió (conexión cortada); revisá HTTPS_PROXY',
    );
  });

  it('407: credentials refused, or which to add and where', () => {
    const refused = proxyAuthError(proxy('http://ana:clave@proxy:3128'));
    expect([refused.kind, refused.status]).toEqual(['auth', 407]);
    expect(refused.message).toBe(
      'el proxy http://***@proxy:3128 pidió autenticación (407) y no aceptó el usuario y la clave de HTTPS_PROXY',
    );
    expect(proxyAuthError(proxy('http://proxy:3128')).message).toBe(
      'el proxy http://proxy:3128 pidió autenticación (407): agregá usuario y clave a su dirección en HTTPS_PROXY (usuario:clave@ delante del host)',
    );
    // A password alone is credentials too.
    expect(proxyAuthError(proxy('http://:clave@proxy:3128')).message).toContain('no aceptó');
  });

  it('Proxy-Authorization: Basic of the decoded user and password, only when there are some', () => {
    expect(proxyAuthorization(new URL('http://proxy:3128'))).toEqual({});
    expect(proxyAuthorization(new URL('http://ana:s3cr%40ta@proxy:3128'))).toEqual({
      'proxy-authorization': `Basic ${Buffer.from('ana:s3cr@ta').toString('base64')}`,
    });
    expect(proxyAuthorization(new URL('http://:clave@proxy:3128'))).toEqual({
      'proxy-authorization': `Basic ${Buffer.from(':clave').toString('base64')}`,
    });
    expect(shownProxy(new URL('http://ana@proxy:3128'))).toBe('http://***@proxy:3128');
    expect(shownProxy(new URL('http://proxy:80'))).toBe('http://proxy');
  });

  it('an address that is none: refused naming it, its credentials hidden, and where it was set', () => {
    let err: unknown;
    try {
      route('https://api.example.com', {}, { profileProxy: 'http://ana:clave@[proxy' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ProxyError);
    expect((err as ProxyError).kind).toBe('unsupported');
    expect((err as Error).message).toBe(
      'el proxy "http://***@[proxy" (de la opción proxy del perfil) no es una dirección válida (se espera http://host:puerto)',
    );
  });

  it('--debug’s line: the proxy and its source, why it is not used, and the CA bundle', () => {
    const describe = (url: string, env: NodeJS.ProcessEnv, settings = {}) =>
      new Network(settings, env).describe(new URL(url));
    expect(describe('https://api.example.com', {})).toBe('red: sin proxy');
    expect(describe('https://api.example.com', { SSL_CERT_FILE: '/ca.pem' })).toBe(
      'red: sin proxy; certificados de SSL_CERT_FILE (/ca.pem)',
    );
    const env = { HTTPS_PROXY: 'http://p:1', HTTP_PROXY: 'http://p:1' };
    expect(describe('http://127.0.0.1:8787', env)).toBe(
      'red: proxy http://p:1 (de HTTP_PROXY) no se usa: la dirección es local',
    );
    expect(describe('http://127.0.0.1:8787', env, { proxyFlag: 'http://f:2' })).toBe(
      'red: proxy http://f:2 (de --proxy)',
    );
    expect(describe('https://api.example.com', { ...env, NO_PROXY: 'example.com' })).toBe(
      'red: proxy http://p:1 (de HTTPS_PROXY) no se usa: NO_PROXY',
    );
    expect(
      describe('https://api.example.com', { ALL_PROXY: 'socks5://s:1' }, { caFlag: '/f.pem' }),
    ).toBe('red: proxy socks5://s:1 (de ALL_PROXY); certificados de --cacert (/f.pem)');
    expect(describe('https://api.example.com', { HTTPS_PROXY: 'http://[x' })).toBe(
      'red: el proxy "http://[x" (de HTTPS_PROXY) no es una dirección válida (se espera http://host:puerto)',
    );
  });

  it('a blank --cacert, SSL_CERT_FILE or profile CA is none', () => {
    const ca = new Network({ caFlag: ' ', profileCa: ' ' }, { SSL_CERT_FILE: ' ' }).ca;
    expect(ca).toBeUndefined();
    expect(new Network({ profileProxy: '  ' }, {}).configured('https:')).toBeUndefined();
  });
});
