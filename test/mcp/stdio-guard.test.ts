// The stdio server's input guard (src/mcp/stdio-guard.ts): whole lines pass, in
// order, however the bytes arrive; a line over the limit is skipped to its newline
// and reported with its id, and the lines after it still pass.
import { describe, expect, it } from 'vitest';
import { idOf, MessageGuard, type Oversized } from '../../src/mcp/stdio-guard.js';

async function through(chunks: string[], max: number) {
  const oversized: Oversized[] = [];
  const guard = new MessageGuard((o) => oversized.push(o), max);
  const out: string[] = [];
  guard.on('data', (b: Buffer) => out.push(b.toString('utf8')));
  const ended = new Promise((r) => guard.on('end', r));
  for (const c of chunks) guard.write(Buffer.from(c, 'utf8'));
  guard.end();
  await ended;
  return { out, oversized };
}

describe('MessageGuard', () => {
  it('passes each whole line once, however the bytes are cut', async () => {
    const text = '{"id":1}\n{"id":2,"x":"ab"}\n{"id":3}\n';
    for (let cut = 1; cut < text.length; cut++) {
      const { out, oversized } = await through([text.slice(0, cut), text.slice(cut)], 64);
      expect(out.join(''), `cut at ${cut}`).toBe(text);
      expect(out.every((l) => l.endsWith('\n'))).toBe(true);
      expect(oversized).toEqual([]);
    }
  });

  it('skips a line over the limit, reports its id and size, and serves the next', async () => {
    const big = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":"${'a'.repeat(100)}"}}`;
    const { out, oversized } = await through(
      ['{"id":1}\n', big.slice(0, 30), big.slice(30), '\n{"id":2}\n'],
      40,
    );
    expect(out.join('')).toBe('{"id":1}\n{"id":2}\n');
    expect(oversized).toEqual([{ id: 7, bytes: Buffer.byteLength(big) }]);
  });

  it('a line of exactly the limit passes; one byte more does not', async () => {
    const at = `{"id":"${'b'.repeat(11)}"}`;
    expect(at.length).toBe(20);
    expect((await through([`${at}\n`], 20)).out).toEqual([`${at}\n`]);
    const over = await through([`${at} \n`], 20);
    expect(over.out).toEqual([]);
    expect(over.oversized).toEqual([{ id: 'b'.repeat(11), bytes: 21 }]);
  });

  it('reads a top-level id from the first keys or the last one, never from inside params', () => {
    expect(idOf('{"jsonrpc":"2.0","id":42,"method":"x"')).toBe(42);
    expect(idOf('{"id" : "abc", "method":"x"')).toBe('abc');
    expect(idOf('{"method":"x","params":{"a":"', 'aaa"}},"jsonrpc":"2.0","id":9}')).toBe(9);
    expect(idOf('{"method":"x","params":{"id":5,"a":"', 'aaa"}}}')).toBeNull();
    expect(idOf('{"id":{"nested":1}}')).toBeNull();
  });
});
