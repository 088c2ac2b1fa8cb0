// SVC_KEYRING_TIMEOUT: whole seconds from 1 to 60 for a slow keyring; anything else
// leaves the 3 s a hanging headless keyring is given up after.
import { describe, expect, it } from 'vitest';
import { KEYRING_TIMEOUT_MS, keyringTimeoutMs } from '../../src/config/keyring.js';

describe('keyringTimeoutMs', () => {
  it.each([
    [undefined, KEYRING_TIMEOUT_MS],
    ['10', 10_000],
    [' 1 ', 1_000],
    ['60', 60_000],
    ['0', KEYRING_TIMEOUT_MS],
    ['61', KEYRING_TIMEOUT_MS],
    ['1.5', KEYRING_TIMEOUT_MS],
    ['10s', KEYRING_TIMEOUT_MS],
    ['', KEYRING_TIMEOUT_MS],
    ['999999999999', KEYRING_TIMEOUT_MS],
  ])('SVC_KEYRING_TIMEOUT=%j -> %d ms', (value, ms) => {
    expect(keyringTimeoutMs(value === undefined ? {} : { SVC_KEYRING_TIMEOUT: value })).toBe(ms);
  });
});
