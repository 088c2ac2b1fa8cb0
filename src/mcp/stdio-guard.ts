// The stdio MCP server's input, one message a line, each at most MAX_MESSAGE_BYTES.
// The SDK's reader drops its whole buffer and closes the transport when more than
// 10 MiB waits for a newline, so one oversized message ended svc mcp with exit 0 and
// no word. Here a line over the limit is skipped to its newline, the client gets a
// JSON-RPC error for it (with its id when either end of the line shows one), stderr says so,
// and every other message is served as before.
import { Transform, type TransformCallback } from 'node:stream';

/** Most bytes of one message read from stdin: under the SDK's 10 MiB buffer. */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

/** Bytes kept of each end of an oversized line, to find its id in. */
const HEAD_BYTES = 4096;

const ID = String.raw`"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,15})`;
/** A top-level id among the first keys of a message, or as its last key. */
const HEAD_ID = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?${ID}\s*[,}]`);
const TAIL_ID = new RegExp(String.raw`,\s*${ID}\s*\}\s*$`);

/**
 * The id of a JSON-RPC message from the first and last bytes of its line, when they
 * show one at the top level (first keys, or the last key, as the SDK's client writes it).
 */
export function idOf(head: string, tail = ''): string | number | null {
  const m = HEAD_ID.exec(head) ?? TAIL_ID.exec(tail);
  if (!m) return null;
  try {
    return JSON.parse(m[1]!) as string | number;
  } catch {
    return null;
  }
}

export interface Oversized {
  id: string | number | null;
  bytes: number;
}

/**
 * Passes whole lines through (each with its newline) and calls `onOversized` for a
 * line longer than `max` bytes instead of passing it.
 */
export class MessageGuard extends Transform {
  private parts: Buffer[] = [];
  private size = 0;
  private head = '';
  private tail = '';
  private dropping = false;

  constructor(
    private readonly onOversized: (o: Oversized) => void,
    private readonly max = MAX_MESSAGE_BYTES,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      this.addPiece(chunk.subarray(start, nl + 1));
      if (this.dropping) this.onOversized({ id: idOf(this.head, this.tail), bytes: this.size - 1 });
      else this.push(Buffer.concat(this.parts));
      this.parts = [];
      this.size = 0;
      this.head = '';
      this.tail = '';
      this.dropping = false;
      start = nl + 1;
    }
    if (start < chunk.length) this.addPiece(chunk.subarray(start));
    done();
  }

  override _flush(done: TransformCallback): void {
    if (!this.dropping && this.parts.length) this.push(Buffer.concat(this.parts));
    done();
  }

  /** Adds part of the current line: kept while it fits, else only counted. */
  private addPiece(piece: Buffer): void {
    if (this.head.length < HEAD_BYTES)
      this.head += piece.subarray(0, HEAD_BYTES - this.head.length).toString('latin1');
    this.tail = (this.tail + piece.subarray(-HEAD_BYTES).toString('latin1')).slice(-HEAD_BYTES);
    this.size += piece.length;
    if (!this.dropping && this.size > this.max + 1) {
      this.dropping = true;
      this.parts = [];
    }
    if (!this.dropping) this.parts.push(piece);
  }
}
