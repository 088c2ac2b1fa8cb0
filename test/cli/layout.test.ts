// The house rules a newcomer relies on, checked: a folder per noun with an import-free
// index.ts of metadata, verbs typed from it that throw instead of returning exit codes,
// no layer below the CLI importing it, and the defaults shown in help written once.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/defaults.js';
import { DEFAULT_TOLERANCE_SECONDS } from '../../src/webhooks/signature.js';
import { DEFAULT_FORWARD_TIMEOUT_MS } from '../../src/webhooks/forwarder.js';
import { DEFAULT_LISTEN_PORT } from '../../src/webhooks/listen.js';
import { DEFAULT_READY_DELAY_MS, DEFAULT_RETRY_SCHEDULE } from '../../src/sandbox/index.js';
import { DEFAULT_TZ } from '../../src/sandbox/time.js';
import { NAMED_FAULTS } from '../../src/sandbox/faults.js';
import { TIPOS_FALLA } from '../../src/cli/commands/sandbox/index.js';
import { sampleBody } from '../../src/webhooks/events.js';
import { commands } from '../../src/cli/registry.js';
import { ROOT, svcSpawned } from '../helpers/cli.js';

const SRC = join(ROOT, 'src');
const files = (dir: string): string[] =>
  readdirSync(join(SRC, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
const read = (file: string) => readFileSync(join(SRC, file), 'utf8');
const imports = (file: string) =>
  [...read(file).matchAll(/^import (?!type ).*? from '([^']+)'/gm)].map((m) => m[1]!);

describe('layout', () => {
  const nouns = readdirSync(join(SRC, 'cli/commands'));

  it('every noun folder has an index.ts that imports only metadata helpers, and names only its own files', () => {
    for (const noun of nouns) {
      const index = `cli/commands/${noun}/index.ts`;
      expect(
        imports(index).every((m) =>
          /^\.\.\/\.\.\/define\.js$|^\.\.\/\.\.\/\.\.\/(api\/enums|defaults)\.js$/.test(m),
        ),
        index,
      ).toBe(true);
      for (const [, target] of read(index).matchAll(/import\('([^']+)'\)/g))
        expect(target, index).toMatch(/^\.\/[\w-]+\.js$/);
    }
    // Each command's name starts with the folder it lives in.
    for (const def of commands)
      expect(nouns).toContain(
        def.name.split(' ')[0] === 'sync'
          ? 'cobro'
          : ['login', 'logout'].includes(def.name)
            ? 'perfil'
            : def.name.split(' ')[0],
      );
  });

  it('verbs take typed options and return nothing: a non-zero exit is thrown', () => {
    for (const file of files('cli/commands').filter((f) => !f.endsWith('index.ts'))) {
      const text = read(file);
      expect(text, file).not.toMatch(/opts: Record<string, unknown>|Promise<number>/);
    }
  });

  it('no layer below the CLI imports it', () => {
    for (const dir of ['api', 'config', 'webhooks', 'sandbox', 'output']) {
      for (const file of files(dir))
        expect(
          imports(file).filter((m) => /\/cli\//.test(m)),
          file,
        ).toEqual([]);
    }
  });

  it('the library names no svc command in what it says', () => {
    for (const file of [...files('api'), 'config/credentials.ts']) {
      const code = read(file).replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '');
      expect(code, file).not.toMatch(/`svc [a-z]/);
    }
  });

  it('the failures help names are the ones the sandbox knows', () => {
    expect([...TIPOS_FALLA]).toEqual([...NAMED_FAULTS]);
  });

  it('the defaults in help are the ones the runtime uses', async () => {
    expect(DEFAULTS.toleranceSeconds).toBe(DEFAULT_TOLERANCE_SECONDS);
    expect(DEFAULTS.forwardTimeoutSeconds * 1000).toBe(DEFAULT_FORWARD_TIMEOUT_MS);
    expect(DEFAULTS.listenPort).toBe(DEFAULT_LISTEN_PORT);
    expect(DEFAULTS.retryScheduleMs).toEqual(DEFAULT_RETRY_SCHEDULE);
    expect(DEFAULTS.readyDelayMs).toBe(DEFAULT_READY_DELAY_MS);
    expect(DEFAULTS.timeZone).toBe(DEFAULT_TZ);
    expect(sampleBody('payment.approved').monto).toBe(DEFAULTS.triggerMonto);
    const listen = (await svcSpawned(['webhook', 'listen', '--help'])).stdout.replace(/\s+/g, ' ');
    expect(listen).toContain(`(default ${DEFAULTS.listenPort})`);
    expect(listen).toContain(`(default ${DEFAULTS.toleranceSeconds}; 0 la desactiva)`);
    expect(listen).toContain(`(default ${DEFAULTS.forwardTimeoutSeconds})`);
    const sandbox = (await svcSpawned(['sandbox', '--help'])).stdout.replace(/\s+/g, ' ');
    expect(sandbox).toContain(`(default ${DEFAULTS.retryScheduleMs.join(',')})`);
    expect(sandbox).toContain(`(default ${DEFAULTS.sandboxPort})`);
  });
});
