import { describe, expect, it } from '@jest/globals';
import { withoutPassedWindows } from './usage-limits.js';

const now = Date.parse('2030-01-01T12:00:00Z');
const limits = {
  status: 'available' as const,
  source: 'local_session',
  plan: 'pro',
  observedAt: '2030-01-01T08:00:00.000Z',
  windows: {
    five_hour: { usedPercentage: 40, remainingPercentage: 60, resetsAt: '2030-01-01T11:00:00.000Z' },
    seven_day: { usedPercentage: 10, remainingPercentage: 90, resetsAt: '2030-01-05T00:00:00.000Z' },
  },
};

describe('withoutPassedWindows', () => {
  it('keeps current windows and drops the ones whose reset has passed', () => {
    expect(withoutPassedWindows(limits, now)).toEqual({ ...limits, windows: { seven_day: limits.windows.seven_day } });
    expect(withoutPassedWindows(limits, Date.parse('2030-01-01T10:00:00Z'))).toBe(limits);
  });

  it('says why when every window has reset', () => {
    expect(withoutPassedWindows(limits, Date.parse('2030-01-06T00:00:00Z'))).toEqual({
      status: 'unavailable',
      source: 'local_session',
      plan: 'pro',
      observedAt: '2030-01-01T08:00:00.000Z',
      reason: 'the usage windows last observed (at 2030-01-01T08:00:00.000Z) have reset since; no newer report has been seen',
    });
  });

  it('leaves unavailable limits and windows without a reset time alone', () => {
    const none = { status: 'unavailable' as const, reason: 'not exposed' };
    expect(withoutPassedWindows(none, now)).toBe(none);
    const open = { status: 'available' as const, windows: { daily: { usedPercentage: 1, remainingPercentage: 99 } } };
    expect(withoutPassedWindows(open, now)).toBe(open);
  });
});
