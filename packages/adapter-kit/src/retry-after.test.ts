import { describe, expect, it } from '@jest/globals';
import { retryAfterMs } from './retry-after.js';

describe('retryAfterMs', () => {
  it('reads seconds, milliseconds and HTTP dates', () => {
    expect(retryAfterMs({ 'retry-after': '2' })).toBe(2000);
    expect(retryAfterMs({ 'retry-after': '0' })).toBe(0);
    expect(retryAfterMs({ 'retry-after-ms': '1500', 'retry-after': '9' })).toBe(1500);
    const now = Date.parse('2026-11-22T03:25:51Z');
    expect(retryAfterMs({ 'retry-after': 'Sun, 22 Nov 2026 03:26:21 GMT' }, now)).toBe(30_000);
    expect(retryAfterMs({ 'retry-after': 'soon' })).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});
