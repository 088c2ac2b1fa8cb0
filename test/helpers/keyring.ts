// A private Secret Service for keyring tests: its own session bus (dbus-daemon) and
// gnome-keyring-daemon, in a temp HOME, so tests never touch the user's keyring.
// And a "hanging" session bus that accepts connections and never answers, as a
// headless Linux keyring sometimes does.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { tempDir } from './cli.js';

export interface SessionEnv {
  HOME: string;
  XDG_RUNTIME_DIR: string;
  DBUS_SESSION_BUS_ADDRESS: string;
}

export interface SecretService {
  env: SessionEnv;
  stop(): Promise<void>;
}

const DBUS = '/usr/bin/dbus-daemon';
const GNOME_KEYRING = '/usr/bin/gnome-keyring-daemon';

/** Why a private Secret Service cannot run here, or undefined when it can. */
export function secretServiceMissing(): string | undefined {
  if (process.platform !== 'linux') return `needs Linux (this is ${process.platform})`;
  for (const bin of [DBUS, GNOME_KEYRING])
    if (!existsSync(bin)) return `needs ${bin} (Debian packages dbus and gnome-keyring)`;
  return undefined;
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export async function startSecretService(): Promise<SecretService> {
  const home = tempDir('svc-keyring-home-');
  const runtime = tempDir('svc-keyring-run-');
  chmodSync(runtime, 0o700);
  const address = `unix:path=${join(runtime, 'bus')}`;
  const base = { PATH: process.env.PATH, HOME: home, XDG_RUNTIME_DIR: runtime };

  const bus = spawn(DBUS, ['--session', '--nofork', `--address=${address}`, '--print-address=1'], {
    env: base,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    bus.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve();
    });
    bus.once('exit', (code) =>
      reject(new Error(`dbus-daemon exited (${code}) before printing its address`)),
    );
  });

  const env: SessionEnv = {
    HOME: home,
    XDG_RUNTIME_DIR: runtime,
    DBUS_SESSION_BUS_ADDRESS: address,
  };
  // --unlock reads the login keyring's password on stdin and creates the keyring with it.
  const daemon = spawn(GNOME_KEYRING, ['--foreground', '--unlock', '--components=secrets'], {
    env: { ...base, ...env },
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  daemon.stdin!.end('svc-test-keyring-password');
  await secretsOnBus(env);
  return {
    env,
    async stop() {
      await stopChild(daemon);
      await stopChild(bus);
    },
  };
}

/**
 * Waits (bounded) until the daemon owns org.freedesktop.secrets on the bus: a keyring
 * call made before that fails and svc rightly falls back to the file. Not ready after
 * the bound: the tests' own retries still cover it.
 */
async function secretsOnBus(env: SessionEnv): Promise<void> {
  const ask = () =>
    new Promise<boolean>((resolve) =>
      execFile(
        'dbus-send',
        [
          '--session',
          '--print-reply',
          '--dest=org.freedesktop.DBus',
          '/org/freedesktop/DBus',
          'org.freedesktop.DBus.NameHasOwner',
          'string:org.freedesktop.secrets',
        ],
        { env: { PATH: process.env.PATH, ...env }, timeout: 5000 },
        (err, stdout) => resolve(!err && stdout.includes('boolean true')),
      ),
    );
  for (let i = 0; i < 100 && !(await ask()); i++)
    await new Promise((done) => setTimeout(done, 100));
}

/** A session bus that takes connections and never says a word. */
export async function startHangingBus(): Promise<{ env: SessionEnv; stop(): Promise<void> }> {
  const runtime = tempDir('svc-keyring-hang-');
  const path = join(runtime, 'bus');
  const sockets = new Set<import('node:net').Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return {
    env: {
      HOME: tempDir('svc-keyring-home-'),
      XDG_RUNTIME_DIR: runtime,
      DBUS_SESSION_BUS_ADDRESS: `unix:path=${path}`,
    },
    stop: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
