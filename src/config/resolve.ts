// Which profile, address, key and secret a command uses, and where each came from.
// Precedence: flag > environment > profile > default. Nothing is guessed: with no
// address configured, the error says how to set one or start the sandbox.
import { keyMode } from '../domain/rules.js';
import type { ConfigFile, Profile } from './profiles.js';

export type Source = 'flag' | 'env' | 'profile' | 'keyring' | 'default';
export interface Sourced<T> {
  value: T;
  source: Source;
}

export type Mode = 'test' | 'live';

export interface GlobalFlags {
  profile?: string;
  live?: boolean;
  baseUrl?: string;
}

export interface Resolved {
  profileName: Sourced<string>;
  profile: Profile | undefined;
  /** Every profile in the config file (to name them when an unknown one is asked for). */
  profileNames: string[];
  baseUrl: Sourced<string> | undefined;
  apiKey: Sourced<string> | undefined;
  mode: Mode;
  /** The live key to use is in the OS keyring: read only when a client is built (ctx.client). */
  liveKeyInKeyring: boolean;
  webhookSecret: Sourced<string> | undefined;
}

// A key is judged here by its prefix only (src/domain/rules.ts); the service judges the rest.
export { KEY_RE, keyMode } from '../domain/rules.js';

export function resolve(
  flags: GlobalFlags,
  env: NodeJS.ProcessEnv,
  file: ConfigFile | undefined,
): Resolved {
  const profileName: Sourced<string> = flags.profile
    ? { value: flags.profile, source: 'flag' }
    : env.SVC_PROFILE
      ? { value: env.SVC_PROFILE, source: 'env' }
      : file?.current
        ? { value: file.current, source: 'profile' }
        : { value: 'default', source: 'default' };
  const profile = file?.profiles[profileName.value];

  const baseUrl: Sourced<string> | undefined = flags.baseUrl
    ? { value: flags.baseUrl, source: 'flag' }
    : env.SVC_BASE_URL
      ? { value: env.SVC_BASE_URL, source: 'env' }
      : profile?.base_url
        ? { value: profile.base_url, source: 'profile' }
        : undefined;

  let apiKey: Sourced<string> | undefined;
  let mode: Mode = flags.live ? 'live' : 'test';
  let liveKeyInKeyring = false;
  if (env.SVC_API_KEY) {
    apiKey = { value: env.SVC_API_KEY, source: 'env' };
    if (keyMode(env.SVC_API_KEY) === 'live') mode = 'live';
  } else {
    const key = mode === 'live' ? profile?.live_key : profile?.test_key;
    if (key) apiKey = { value: key, source: 'profile' };
    else liveKeyInKeyring = mode === 'live' && profile?.live_key_in === 'keyring';
  }

  const webhookSecret: Sourced<string> | undefined = env.SVC_WEBHOOK_SECRET
    ? { value: env.SVC_WEBHOOK_SECRET, source: 'env' }
    : profile?.webhook_secret
      ? { value: profile.webhook_secret, source: 'profile' }
      : undefined;

  return {
    profileName,
    profile,
    profileNames: Object.keys(file?.profiles ?? {}),
    baseUrl,
    apiKey,
    mode,
    liveKeyInKeyring,
    webhookSecret,
  };
}
