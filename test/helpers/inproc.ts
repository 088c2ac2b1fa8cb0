// Runs svc's main() in this process (as wrangler's runWrangler does): the same
// argv -> stdout, stderr, exit code as the built binary, without a process per
// input, for matrices. Colours off, no keyring, a fresh config folder per run.
import { PassThrough, Writable } from 'node:stream';
import { main } from '../../src/main.js';
import { readFileSync } from 'node:fs';
import { tempDir, type SvcOptions, type SvcResult } from './cli.js';

class Sink extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

export async function runMain(args: string[], env: Record<string, string | undefined> = {}, input = ''): Promise<SvcResult> {
  const stdout = new Sink();
  const stderr = new Sink();
  const stdin = new PassThrough();
  stdin.end(input);
  const exitCode = await main(args, {
    stdout,
    stderr,
    stdin,
    env: {
      SVC_CONFIG_DIR: tempDir('svc-config-'),
      SVC_DATA_DIR: tempDir('svc-data-'),
      NO_COLOR: '1',
      SVC_KEYRING: 'off',
      ...env,
    } as NodeJS.ProcessEnv,
  });
  return { exitCode, stdout: stdout.text, stderr: stderr.text };
}

/**
 * The in-process twin of `svc()` in cli.ts: same options, same result, so a matrix
 * switches between spawned and in-process by the name it calls.
 */
export function svcInProcess(args: string[], options: SvcOptions = {}): Promise<SvcResult> {
  const input = options.input ?? (options.inputFile ? readFileSync(options.inputFile) : '');
  return runMain(args, options.env ?? {}, String(input));
}
