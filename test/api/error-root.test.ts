// The library's one error root: whatever `import … from 'svc'` throws is a SvcError,
// with the exit code and JSON name the CLI reports it with, so a script catches one class.
import { describe, expect, it } from 'vitest';
import * as svc from '../../src/index.js';

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('it did not throw');
}

describe('the library exports one error root', () => {
  it('SvcError is exported, and every error class the library exports extends it', () => {
    const classes = Object.entries(svc).filter(
      ([name, value]) => /^[A-Z]\w*Error$/.test(name) && typeof value === 'function',
    ) as [string, { prototype: unknown }][];
    expect(classes.map(([name]) => name)).toEqual(
      expect.arrayContaining(['AmountError', 'ApiError', 'InsecureBaseUrlError', 'NetworkError']),
    );
    for (const [name, cls] of classes.filter(([name]) => name !== 'SvcError'))
      expect(cls.prototype instanceof svc.SvcError, `${name} extends SvcError`).toBe(true);
  });

  it('a refused amount and a refused address are SvcErrors with their exit code and name', () => {
    const amount = thrown(() => svc.parseAmount('1,5'));
    expect(amount).toBeInstanceOf(svc.AmountError);
    expect(amount).toBeInstanceOf(svc.SvcError);
    expect(amount).toMatchObject({ exitCode: svc.EXIT.usage, code: 'usage' });
    const address = thrown(
      () => new svc.Client({ baseUrl: 'http://svc.example', apiKey: 'svc_test_0123' }),
    );
    expect(address).toBeInstanceOf(svc.InsecureBaseUrlError);
    expect(address).toBeInstanceOf(svc.SvcError);
    expect(address).toMatchObject({ exitCode: svc.EXIT.usage, code: 'usage' });
  });
});
