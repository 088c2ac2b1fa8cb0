// Which proxy a connection goes through, as curl decides it: NO_PROXY's matrix, the
// variables by scheme and case, loopback, and flag > environment > profile. Pure:
// no socket is opened here (test/cli/proxy.test.ts sends requests through one).
import { describe, expect, it } from 'vitest';
import { bypassesProxy, Network, ProxyError } from '../../src/api/network.js';

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
