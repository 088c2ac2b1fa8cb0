// Precedence of profile, address, key and secret: flag > environment > profile > default.
import { describe, expect, it } from 'vitest';
import { keyMode, resolve } from '../../src/config/resolve.js';

const file = {
  current: 'tienda',
  profiles: {
    tienda: {
      base_url: 'https://perfil.example',
      test_key: 'svc_test_perfil0001',
      live_key: 'svc_live_perfil0001',
      webhook_secret: 'whsec_perfil',
    },
    otra: { base_url: 'https://otra.example', test_key: 'svc_test_otra00001' },
  },
};

describe('resolve', () => {
  it('uses the current profile when nothing else is given', () => {
    const r = resolve({}, {}, file);
    expect(r.profileName).toEqual({ value: 'tienda', source: 'profile' });
    expect(r.baseUrl).toEqual({ value: 'https://perfil.example', source: 'profile' });
    expect(r.apiKey).toEqual({ value: 'svc_test_perfil0001', source: 'profile' });
    expect(r.mode).toBe('test');
    expect(r.webhookSecret?.source).toBe('profile');
  });

  it('prefers the environment over the profile, and the flag over both', () => {
    const env = {
      SVC_PROFILE: 'otra',
      SVC_BASE_URL: 'https://env.example',
      SVC_WEBHOOK_SECRET: 'env-secret',
    };
    const r = resolve({}, env, file);
    expect(r.profileName).toEqual({ value: 'otra', source: 'env' });
    expect(r.baseUrl).toEqual({ value: 'https://env.example', source: 'env' });
    expect(r.webhookSecret).toEqual({ value: 'env-secret', source: 'env' });
    const f = resolve({ profile: 'tienda', baseUrl: 'https://flag.example' }, env, file);
    expect(f.profileName).toEqual({ value: 'tienda', source: 'flag' });
    expect(f.baseUrl).toEqual({ value: 'https://flag.example', source: 'flag' });
  });

  it('--live picks the live key; a live key in SVC_API_KEY turns live mode on', () => {
    expect(resolve({ live: true }, {}, file).apiKey?.value).toBe('svc_live_perfil0001');
    expect(resolve({ live: true }, {}, file).mode).toBe('live');
    const r = resolve({}, { SVC_API_KEY: 'svc_live_fromenv0001' }, file);
    expect([r.mode, r.apiKey?.source]).toEqual(['live', 'env']);
  });

  it('a live key in the keyring is read only in live mode, and never over SVC_API_KEY or a key in the file', () => {
    const kr = {
      profiles: {
        default: {
          base_url: 'https://k.example',
          test_key: 'svc_test_perfil0001',
          live_key_in: 'keyring' as const,
        },
      },
    };
    expect(resolve({ live: true }, {}, kr)).toMatchObject({
      mode: 'live',
      apiKey: undefined,
      liveKeyInKeyring: true,
    });
    expect(resolve({}, {}, kr)).toMatchObject({
      mode: 'test',
      liveKeyInKeyring: false,
      apiKey: { source: 'profile' },
    });
    expect(resolve({ live: true }, { SVC_API_KEY: 'svc_live_fromenv0001' }, kr)).toMatchObject({
      liveKeyInKeyring: false,
      apiKey: { source: 'env' },
    });
    const both = {
      profiles: { default: { live_key: 'svc_live_perfil0001', live_key_in: 'keyring' as const } },
    };
    expect(resolve({ live: true }, {}, both)).toMatchObject({
      liveKeyInKeyring: false,
      apiKey: { value: 'svc_live_perfil0001' },
    });
  });

  it('has no address and no key on a fresh machine (it never guesses)', () => {
    const r = resolve({}, {}, undefined);
    expect(r.profileName).toEqual({ value: 'default', source: 'default' });
    expect(r.baseUrl).toBeUndefined();
    expect(r.apiKey).toBeUndefined();
  });

  it('keyMode accepts only well-formed keys', () => {
    expect(keyMode('svc_test_abcdefgh')).toBe('test');
    expect(keyMode('svc_live_abcdefgh')).toBe('live');
    // A short body is the service's to refuse (401), not svc's: the prefix is all it judges.
    expect(keyMode('svc_test_short')).toBe('test');
    for (const bad of [
      'sk_test_abcdefgh',
      'svc_test_',
      'svc_prod_abcdefgh',
      'svc_test_abc def gh',
      '',
    ]) {
      expect(keyMode(bad)).toBeUndefined();
    }
  });
});
