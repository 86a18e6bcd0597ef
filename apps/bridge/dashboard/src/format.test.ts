import { describe, expect, it } from '@jest/globals';
import {
  clampPercent,
  formatDuration,
  formatLatency,
  formatLocalTime,
  formatPercent,
  resetsInText,
  shortUrl,
  splitCode,
  splitUrls,
  usageEntries,
  usageLevel,
  windowLabel,
} from './format.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

describe('formatDuration', () => {
  it.each([
    [0, 'less than a minute'],
    [29_000, 'less than a minute'],
    [31_000, '1 min'],
    [45 * MIN, '45 min'],
    [60 * MIN, '1 h'],
    [2 * HOUR + 10 * MIN + 20_000, '2 h 10 min'],
    [23 * HOUR + 59 * MIN, '23 h 59 min'],
    [24 * HOUR, '1 d'],
    [3 * 24 * HOUR + 4 * HOUR + 10 * MIN, '3 d 4 h'],
    [-5 * MIN, 'less than a minute'],
  ])('%d ms is "%s"', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('resetsInText', () => {
  const now = Date.parse('2026-03-01T10:00:00Z');
  it('counts down to the reset', () => {
    expect(resetsInText('2026-03-01T12:10:00Z', now)).toBe('resets in 2 h 10 min');
    expect(resetsInText('2026-03-08T09:00:00Z', now)).toBe('resets in 6 d 23 h');
  });
  it('says when the reset is past, and nothing without a valid time', () => {
    expect(resetsInText('2026-03-01T09:59:00Z', now)).toBe('reset time has passed');
    expect(resetsInText(undefined, now)).toBeUndefined();
    expect(resetsInText('soon', now)).toBeUndefined();
  });
});

describe('formatLocalTime', () => {
  const now = Date.parse('2026-03-01T10:00:00Z');
  it("shows the time alone on the same day in the user's zone", () => {
    expect(formatLocalTime('2026-03-01T12:10:00Z', now, { locale: 'en-GB', timeZone: 'UTC' })).toBe('12:10');
    // 12:10 UTC is 21:10 in Tokyo, still 1 March there.
    expect(formatLocalTime('2026-03-01T12:10:00Z', now, { locale: 'en-GB', timeZone: 'Asia/Tokyo' })).toBe('21:10');
  });
  it('adds the day when the reset is on another day in that zone', () => {
    expect(formatLocalTime('2026-03-07T08:05:00Z', now, { locale: 'en-GB', timeZone: 'UTC' })).toBe('Sat 7 Mar, 08:05');
    // 20:00 UTC on 1 March is already 2 March in Tokyo.
    expect(formatLocalTime('2026-03-01T20:00:00Z', now, { locale: 'en-GB', timeZone: 'Asia/Tokyo' })).toBe('Mon 2 Mar, 05:00');
  });
  it('gives nothing for an invalid time', () => {
    expect(formatLocalTime('not a date', now)).toBeUndefined();
  });
});

describe('usage windows', () => {
  it('names windows by their length', () => {
    expect(windowLabel('five_hour')).toBe('5-hour window');
    expect(windowLabel('seven_day')).toBe('7-day window');
    expect(windowLabel('premium_requests')).toBe('premium requests');
    expect(windowLabel('2_hour')).toBe('2-hour window');
    expect(windowLabel('45_minute')).toBe('45-minute window');
    expect(windowLabel('five_hour_secondary')).toBe('five hour secondary window');
  });
  it('clamps and rounds percentages for the bars', () => {
    expect(clampPercent(142)).toBe(100);
    expect(clampPercent(-3)).toBe(0);
    expect(clampPercent(Number.NaN)).toBe(0);
    expect(formatPercent(42.5)).toBe('42.5%');
    expect(formatPercent(7.04)).toBe('7%');
    expect(formatPercent(101)).toBe('100%');
  });
  it('colours a bar by how much is used', () => {
    expect([0, 69.9, 70, 89.9, 90, 100].map(usageLevel)).toEqual(['low', 'low', 'medium', 'medium', 'high', 'high']);
  });
});

describe('formatLatency and usageEntries', () => {
  it('formats latencies', () => {
    expect(formatLatency(812.4)).toBe('812 ms');
    expect(formatLatency(1234)).toBe('1.2 s');
    expect(formatLatency(125_000)).toBe('2 min 5 s');
    expect(formatLatency(Number.NaN)).toBe('–');
  });
  it('turns token counts into labelled, grouped numbers and skips non-numbers', () => {
    expect(usageEntries({ input_tokens: 1234, cached_input_tokens: 0, output_tokens: 56, note: 'x' as unknown as number })).toEqual([
      ['input', '1,234'],
      ['cached input', '0'],
      ['output', '56'],
    ]);
    expect(usageEntries(undefined)).toEqual([]);
  });
});

describe('splitCode', () => {
  it('splits backtick spans out of a message', () => {
    expect(splitCode('run `codex login` then `ollama serve`.')).toEqual([
      { code: false, text: 'run ' },
      { code: true, text: 'codex login' },
      { code: false, text: ' then ' },
      { code: true, text: 'ollama serve' },
      { code: false, text: '.' },
    ]);
  });
  it('leaves unpaired backticks and plain text alone', () => {
    expect(splitCode('a `b')).toEqual([{ code: false, text: 'a `b' }]);
    expect(splitCode('')).toEqual([]);
  });
});

describe('splitUrls and shortUrl', () => {
  it('splits http(s) URLs out of a message, leaving trailing punctuation as text', () => {
    expect(splitUrls('Open https://auth.example/a?x=1&y=2 in a browser. Or see http://127.0.0.1:11434.')).toEqual([
      { text: 'Open ' },
      { url: 'https://auth.example/a?x=1&y=2', text: 'https://auth.example/a?x=1&y=2' },
      { text: ' in a browser. Or see ' },
      { url: 'http://127.0.0.1:11434', text: 'http://127.0.0.1:11434' },
      { text: '.' },
    ]);
    expect(splitUrls('javascript:alert(1) ftp://x')).toEqual([{ text: 'javascript:alert(1) ftp://x' }]);
  });

  it('shortens a long URL to host and path', () => {
    expect(shortUrl('https://auth.openai.com/oauth/authorize?response_type=code&client_id=x')).toBe('auth.openai.com/oauth/authorize…');
    expect(shortUrl('https://ollama.com/')).toBe('ollama.com');
    expect(shortUrl('https://example.com/' + 'a'.repeat(100), 20)).toBe('example.com/aaaaaaa…');
  });
});
