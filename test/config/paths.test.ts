// Where the config and data folders are: always absolute, a relative XDG variable ignored (XDG spec).
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configDir, dataDir } from '../../src/config/profiles.js';

describe('configDir / dataDir', () => {
  it('SVC_CONFIG_DIR / SVC_DATA_DIR win and are made absolute, so messages and fixes work from any folder', () => {
    expect(configDir({ SVC_CONFIG_DIR: 'rel/cfg', XDG_CONFIG_HOME: '/x' })).toBe(
      resolve('rel/cfg'),
    );
    expect(dataDir({ SVC_DATA_DIR: 'rel/data', XDG_DATA_HOME: '/x' })).toBe(resolve('rel/data'));
  });

  it('an absolute XDG_CONFIG_HOME / XDG_DATA_HOME is used; a relative one is ignored', () => {
    expect(configDir({ XDG_CONFIG_HOME: '/xdg/config' })).toBe(join('/xdg/config', 'svc'));
    expect(dataDir({ XDG_DATA_HOME: '/xdg/data' })).toBe(join('/xdg/data', 'svc'));
    if (process.platform !== 'win32') {
      expect(configDir({ XDG_CONFIG_HOME: 'relative' })).toBe(join(homedir(), '.config', 'svc'));
      expect(dataDir({ XDG_DATA_HOME: 'relative' })).toBe(
        join(homedir(), '.local', 'share', 'svc'),
      );
    }
  });
});
