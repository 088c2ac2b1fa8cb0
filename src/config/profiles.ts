// The profile store: one file, mode 0600 in a 0700 folder, both the person's own
// (refused otherwise, see private.ts), replaced atomically under a lock, never
// written through a link. Loaded lazily: commands that need no profile never touch the disk.
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import * as z from 'zod/mini';
import { ConfigError } from '../errors.js';
import { duplicateKey, MAX_NESTING, nestedTooDeep } from '../json-keys.js';
import { notJson } from '../text.js';
import { holderText, LockSetupError, waitLockSync } from '../lock.js';
import {
  folderProblem,
  PrivatePathError,
  readPrivateFile,
  type FolderLabels,
  type Unsafe,
  type UnsafeProblem,
} from './private.js';
import { replaceFile } from '../durable.js';

/** A config folder or file svc will not trust with keys; `problem` names the case (exit 1). */
export class UnsafeConfigError extends ConfigError {
  readonly problem: UnsafeProblem;
  constructor(why: Unsafe) {
    super(why.message);
    this.problem = why.problem;
  }
}

/** A config file svc cannot read as its own (`problem` under --json; exit 1): not JSON, or not the shape svc writes. */
export class DamagedConfigError extends ConfigError {
  constructor(
    message: string,
    readonly problem: 'file_not_json' | 'file_bad_shape' | 'file_unreadable',
  ) {
    super(
      message,
      `corregilo o borralo (perdés los perfiles guardados) y volvé a correr \`svc login\``,
    );
  }
}

export const Profile = z.object({
  base_url: z.optional(z.string()),
  test_key: z.optional(z.string()),
  live_key: z.optional(z.string()),
  /** "keyring": the live key is in the OS keyring (see keyring.ts), not in this file. */
  live_key_in: z.optional(z.literal('keyring')),
  webhook_secret: z.optional(z.string()),
  /** The service's IANA time zone, when it is not the default (see src/domain/dates.ts serviceZone). */
  zona: z.optional(z.string()),
  /** The proxy to go out through (network.ts), below --proxy and the environment. */
  proxy: z.optional(z.string()),
  /** A CA bundle (PEM) to trust, below --cacert and SSL_CERT_FILE. */
  ca_file: z.optional(z.string()),
});
export type Profile = z.infer<typeof Profile>;

export const ConfigFile = z.object({
  current: z.optional(z.string()),
  profiles: z._default(z.record(z.string(), Profile), {}),
});
export type ConfigFile = z.infer<typeof ConfigFile>;

export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * Folder of the config file: SVC_CONFIG_DIR, else $XDG_CONFIG_HOME/svc, else ~/.config/svc
 * (Windows: %APPDATA%\svc). Always absolute, so messages name a path that works from
 * any folder; a relative XDG_CONFIG_HOME is ignored, as the XDG spec asks.
 */
export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.SVC_CONFIG_DIR) return resolve(env.SVC_CONFIG_DIR);
  if (env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME))
    return join(env.XDG_CONFIG_HOME, 'svc');
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'svc');
  return join(homedir(), '.config', 'svc');
}

/** Folder for data svc keeps (the notification journal): SVC_DATA_DIR, else $XDG_DATA_HOME/svc, else ~/.local/share/svc. */
export function dataDir(env: NodeJS.ProcessEnv): string {
  if (env.SVC_DATA_DIR) return resolve(env.SVC_DATA_DIR);
  if (env.XDG_DATA_HOME && isAbsolute(env.XDG_DATA_HOME)) return join(env.XDG_DATA_HOME, 'svc');
  if (process.platform === 'win32' && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, 'svc');
  return join(homedir(), '.local', 'share', 'svc');
}

export interface ProfileStore {
  readonly path: string;
  read(): ConfigFile;
  write(update: (config: ConfigFile) => ConfigFile): Promise<ConfigFile>;
}

const FOLDER: FolderLabels = {
  what: 'la carpeta de configuración',
  elsewhere: 'definí SVC_CONFIG_DIR con una carpeta tuya',
};
const FILE = 'el archivo de configuración';

export async function openStore(env: NodeJS.ProcessEnv): Promise<ProfileStore> {
  const dir = configDir(env);
  const path = join(dir, 'config.json');
  const checkFolder = () => {
    const why = folderProblem(dir, FOLDER);
    if (why) throw new UnsafeConfigError(why);
  };
  // Reading is a plain JSON parse (every command does it, so it stays cheap),
  // after the folder and the opened file pass the checks of private.ts.
  const read = (): ConfigFile => {
    checkFolder();
    let text: string | undefined;
    try {
      text = readPrivateFile(path, FILE);
    } catch (err) {
      if (err instanceof PrivatePathError) throw new UnsafeConfigError(err.why);
      throw corrupt(path, err, 'file_unreadable');
    }
    if (text === undefined) return { profiles: {} };
    const deep = nestedTooDeep(text);
    if (deep !== null)
      throw corrupt(path, `anida más de ${MAX_NESTING} niveles (línea ${deep})`, 'file_bad_shape');
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      throw corrupt(path, notJson(err, text), 'file_not_json');
    }
    // JSON.parse keeps the last of two equal keys: a profile written twice must not pass unseen.
    const twice = duplicateKey(text, raw);
    if (twice)
      throw corrupt(
        path,
        `${twice.path} aparece dos veces (${twice.lines[0] === twice.lines[1] ? `línea ${twice.lines[0]}` : `líneas ${twice.lines[0]} y ${twice.lines[1]}`}): dejá uno solo`,
        'file_bad_shape',
      );
    const parsed = ConfigFile.safeParse(raw);
    if (!parsed.success) {
      throw new DamagedConfigError(
        `el archivo de configuración ${path} no tiene la forma esperada (${parsed.error.issues[0]?.path.join('.') ?? ''})`,
        'file_bad_shape',
      );
    }
    return parsed.data;
  };
  return {
    path,
    read,
    async write(update) {
      // Checked before creating anything: an unsafe folder gets no lock file either.
      checkFolder();
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
      } catch (err) {
        throw new ConfigError(`no se pudo crear ${dir}: ${(err as Error).message}`);
      }
      // Again: the folder may have appeared meanwhile, made by someone else.
      checkFolder();
      // Read-modify-write under a lock file, so two `svc login` at once both land.
      return withLock(`${path}.lock`, () => {
        const next = ConfigFile.parse(update(read()));
        try {
          replaceFile(path, `${JSON.stringify(next, null, '\t')}\n`);
        } catch (err) {
          throw new ConfigError(`no se pudo escribir ${path}: ${(err as Error).message}`);
        }
        return next;
      });
    },
  };
}

/** Read-modify-write under svc's one lock (../lock.ts), waiting up to 10 s for another writer. */
function withLock<T>(lockPath: string, work: () => T): T {
  let got;
  try {
    got = waitLockSync([lockPath], 10_000);
  } catch (err) {
    if (!(err instanceof LockSetupError)) throw err;
    throw new ConfigError(`no se pudo bloquear ${lockPath}: ${err.message}`);
  }
  if ('busy' in got)
    throw new ConfigError(
      `otro svc está escribiendo la configuración (${lockPath}, ${holderText(got.holder)}); probá de nuevo`,
    );
  try {
    return work();
  } finally {
    got.release();
  }
}

function corrupt(path: string, err: unknown, problem: DamagedConfigError['problem']): ConfigError {
  const detail =
    typeof err === 'string' ? err : err instanceof Error ? err.message.split('\n')[0] : String(err);
  return new DamagedConfigError(
    `no se pudo leer el archivo de configuración ${path}: ${detail}`,
    problem,
  );
}
