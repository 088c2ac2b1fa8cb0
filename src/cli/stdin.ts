// Reading stdin whole (keys, bodies), with a cap so a wrong pipe cannot exhaust memory.
import { UsageError } from '../errors.js';

export async function readAll(
  stream: NodeJS.ReadableStream,
  maxBytes = 8 * 1024 * 1024,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    total += buf.length;
    if (total > maxBytes) throw new UsageError(`la entrada estándar supera ${maxBytes} bytes`);
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}
