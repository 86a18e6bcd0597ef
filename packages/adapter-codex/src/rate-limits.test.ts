import { describe, expect, it } from '@jest/globals';
import { usageLimitsFromRateLimits } from './rate-limits.js';

const at = new Date('2026-11-25T12:00:00.000Z');
const RESET = 1_795_654_327;

/** An `account/rateLimits/read` answer of Codex 0.169 (recorded against the mock backend), cut to what is read. */
function answer(primary: unknown, secondary: unknown, planType: unknown = 'plus') {
  const snapshot = { limitId: 'codex', limitName: null, primary, secondary, credits: null, planType, rateLimitReachedType: null };
  return { ordinaryUsageAllowed: null, rateLimits: snapshot, rateLimitsByLimitId: { codex: snapshot }, accountId: null };
}

describe('usageLimitsFromRateLimits', () => {
  it('names the windows by length, as the session log’s, with percent used and left, the reset and the plan', () => {
    const limits = usageLimitsFromRateLimits(
      answer(
        { usedPercent: 42, windowDurationMins: 300, resetsAt: RESET },
        { usedPercent: 7, windowDurationMins: 10080, resetsAt: RESET + 82_800 },
      ),
      at,
    );
    expect(limits).toEqual({
      status: 'available',
      source: 'app_server',
      plan: 'plus',
      windows: {
        five_hour: { usedPercentage: 42, remainingPercentage: 58, windowMinutes: 300, resetsAt: new Date(RESET * 1000).toISOString() },
        seven_day: {
          usedPercentage: 7,
          remainingPercentage: 93,
          windowMinutes: 10080,
          resetsAt: new Date((RESET + 82_800) * 1000).toISOString(),
        },
      },
      observedAt: at.toISOString(),
    });
  });

  it('keeps a window of unknown length or reset under its slot’s name; no plan when Codex knows none', () => {
    const limits = usageLimitsFromRateLimits(answer({ usedPercent: 100, windowDurationMins: null, resetsAt: null }, null, 'unknown'), at);
    expect(limits).toEqual({
      status: 'available',
      source: 'app_server',
      windows: { primary: { usedPercentage: 100, remainingPercentage: 0 } },
      observedAt: at.toISOString(),
    });
  });

  it('no window in the answer: undefined (the caller reads the session logs)', () => {
    expect(usageLimitsFromRateLimits(answer(null, null), at)).toBeUndefined();
    expect(usageLimitsFromRateLimits({}, at)).toBeUndefined();
    expect(usageLimitsFromRateLimits({ rateLimits: { primary: { usedPercent: 'x' } } }, at)).toBeUndefined();
  });
});
