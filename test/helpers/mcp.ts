// svc mcp in this process, for matrices: main(['mcp', …]) with its stdin and stdout
// as streams of the test, and the MCP SDK's own Client speaking to them (the same
// newline-delimited JSON-RPC as over a process's stdio: test/mcp/stdio.test.ts
// spawns the real one).
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { PassThrough, Writable } from 'node:stream';
import { createInterface } from 'node:readline';
import { main } from '../../src/main.js';
import { ownFolders } from './cli.js';

export interface InProcessMcp {
  client: Client;
  stderr(): string;
  /** Ends the server's stdin (as a client closing the pipe does) and returns its exit code. */
  close(): Promise<number>;
}

/** A client transport over two streams: what it sends is the server's stdin, what it reads its stdout. */
class StreamTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  constructor(
    private readonly toServer: PassThrough,
    private readonly fromServer: PassThrough,
  ) {}
  async start(): Promise<void> {
    createInterface({ input: this.fromServer }).on('line', (line) => {
      if (line.trim()) this.onmessage?.(deserializeMessage(line));
    });
  }
  async send(message: JSONRPCMessage): Promise<void> {
    this.toServer.write(serializeMessage(message));
  }
  async close(): Promise<void> {
    this.onclose?.();
  }
}

export async function startMcpInProcess(
  args: string[],
  env: Record<string, string>,
  options: ClientOptions = {},
): Promise<InProcessMcp> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let err = '';
  const stderr = new Writable({
    write(chunk, _enc, done) {
      err += String(chunk);
      done();
    },
  });
  const exit = main(['mcp', ...args], {
    stdin,
    stdout,
    stderr,
    env: { ...ownFolders(env), NO_COLOR: '1', SVC_KEYRING: 'off', ...env },
  });
  const client = new Client({ name: 'svc-tests', version: '1.0.0' }, options);
  const connected = client.connect(new StreamTransport(stdin, stdout));
  // A server that refuses to start never answers initialize: its exit code tells why.
  const first = await Promise.race([connected.then(() => undefined), exit.then((code) => code)]);
  if (first !== undefined) throw new Error(`svc mcp exited with ${first}: ${err}`);
  return {
    client,
    stderr: () => err,
    async close() {
      stdin.end();
      return exit;
    },
  };
}
