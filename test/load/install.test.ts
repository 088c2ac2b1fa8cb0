// The install a user does: `npm pack`, then `npm install -g` of that file into an empty
// prefix (no dev dependencies, nothing from this checkout but the package), and the
// installed `svc demo` runs its whole flow against its built-in sandbox. On every Node
// CI runs the suite on. Needs the npm registry or npm's cache for the dependencies.
import { execa } from 'execa';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/cli.js';

describe('npm pack, then npm install -g of the packed file', () => {
  it('installs into an empty prefix and the installed svc runs demo', async () => {
    const dir = tempDir('svc-install-');
    const npm = {
      cwd: ROOT,
      env: {
        npm_config_update_notifier: 'false',
        npm_config_fund: 'false',
        npm_config_audit: 'false',
      },
    };
    await execa('npm', ['pack', '--pack-destination', dir, '--silent'], npm);
    const tgz = readdirSync(dir).find((f) => f.endsWith('.tgz'));
    expect(tgz, 'npm pack wrote a .tgz').toBeDefined();
    const prefix = join(dir, 'prefix');
    await execa(
      'npm',
      ['install', '-g', '--prefix', prefix, '--prefer-offline', join(dir, tgz!)],
      npm,
    );

    // Only the installed files: a fresh HOME, config and data folders, no path into this checkout.
    const home = tempDir('svc-home-');
    const r = await execa(join(prefix, 'bin', 'svc'), ['demo'], {
      cwd: home,
      // This Node first on PATH (the shebang is `env node`), nothing of the checkout.
      env: {
        PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
        HOME: home,
        SVC_CONFIG_DIR: join(home, 'config'),
        SVC_DATA_DIR: join(home, 'data'),
        SVC_KEYRING: 'off',
        NO_COLOR: '1',
      },
      extendEnv: false,
      reject: false,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toContain('notificaciones verificadas y reenviadas a tu app');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 180_000);
});
