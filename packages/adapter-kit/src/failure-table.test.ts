import { describe, expect, it } from '@jest/globals';
import { ProviderExecutionError, QuotaExceededError, RateLimitError, TimeoutError, ToolAuthError } from '@toolbridge/core';
import { classifyFailure, type FailureTable } from './failure-table.js';

const table: FailureTable = {
  name: 'Tool',
  toolId: 'tool',
  rules: [
    { class: 'session_missing', match: /no such session/i },
    { class: 'auth', status: [401, 403] },
    { class: 'auth', exitCode: [41] },
    { class: 'quota', status: [429], match: /quota/i },
    { class: 'rate_limit', status: [429] },
    { class: 'timeout', match: /timed out/i, when: (f) => f.status === undefined },
    { class: 'transient', when: (f) => (f.status ?? 0) >= 500 },
  ],
  messages: { auth: (f) => `Tool is not signed in: ${f.text}. Run tool login.` },
  retryAfterMs: (f) => (/in (\d+)s/.exec(f.text) ? Number(/in (\d+)s/.exec(f.text)![1]) * 1000 : undefined),
};

describe('classifyFailure (a failure table → one typed error)', () => {
  it('takes the first row whose every condition holds', () => {
    const quota = classifyFailure({ text: 'quota used up, try in 5s', status: 429 }, table);
    expect(quota).toBeInstanceOf(QuotaExceededError);
    expect(quota).toMatchObject({ retryAfterMs: 5000, toolId: 'tool', message: 'Tool quota exhausted: quota used up, try in 5s' });
    const rate = classifyFailure({ text: 'slow down', status: 429 }, table);
    expect(rate).toBeInstanceOf(RateLimitError);
    expect(rate).not.toBeInstanceOf(QuotaExceededError);
    expect(classifyFailure({ text: 'request timed out' }, table)).toBeInstanceOf(TimeoutError);
    expect(classifyFailure({ text: 'request timed out', status: 400 }, table)).not.toBeInstanceOf(TimeoutError);
  });

  it('words a class the tool’s way and keeps details for logs', () => {
    const auth = classifyFailure({ text: 'bad token', exitCode: 41, details: { exitCode: 41 } }, table);
    expect(auth).toBeInstanceOf(ToolAuthError);
    expect(auth).toMatchObject({ message: 'Tool is not signed in: bad token. Run tool login.', details: { exitCode: 41 } });
  });

  it('tells retryable server failures from the rest, and a missing session by its public reason', () => {
    expect(classifyFailure({ text: 'upstream', status: 503 }, table)).toMatchObject({ retryable: true });
    const plain = classifyFailure({ text: 'bad request', status: 400 }, table);
    expect(plain).toBeInstanceOf(ProviderExecutionError);
    expect(plain).toMatchObject({ retryable: false, message: 'Tool failed: bad request' });
    expect(classifyFailure({ text: 'No such session abc' }, table)).toMatchObject({
      retryable: false,
      publicDetails: { reason: 'native_session_missing' },
    });
  });
});

describe('a table over a tool’s own facts', () => {
  interface Facts {
    text: string;
    status?: number;
    errorType?: string;
    waitMs?: number;
    now: number;
    details?: Record<string, unknown>;
  }
  const typed: FailureTable<Facts> = {
    name: 'Tool',
    toolId: 'tool',
    rules: [
      { class: 'quota', when: (f) => f.errorType === 'quota' },
      { class: 'rate_limit', status: [429] },
      { class: 'failed', match: /as root/, reason: 'bypass_refused_as_root', message: () => 'Tool refuses to run as root' },
      { class: 'session_missing', match: /no such session/, details: (f) => ({ sessionGone: true, status: f.status }) },
    ],
    // A quota names when it resets; a rate limit how long to wait.
    resetsAt: (f, kind) => (kind === 'quota' && f.waitMs !== undefined ? new Date(f.now + f.waitMs) : undefined),
    retryAfterMs: (f, kind) => (kind === 'rate_limit' ? f.waitMs : undefined),
  };

  it('decides by the tool’s fields and hands each wait to its class', () => {
    const quota = classifyFailure({ text: 'weekly allowance used', errorType: 'quota', waitMs: 60_000, now: 1_000 }, typed);
    expect(quota).toBeInstanceOf(QuotaExceededError);
    expect(quota).toMatchObject({ resetsAt: new Date(61_000) });
    expect((quota as QuotaExceededError).retryAfterMs).toBeUndefined();
    const rate = classifyFailure({ text: 'slow down', status: 429, waitMs: 2_000, now: 1_000 }, typed);
    expect(rate).toMatchObject({ retryAfterMs: 2_000 });
    expect((rate as RateLimitError).resetsAt).toBeUndefined();
  });

  it('gives a row’s public reason to callers', () => {
    const root = classifyFailure({ text: 'cannot run as root', now: 0 }, typed);
    expect(root).toMatchObject({
      message: 'Tool refuses to run as root',
      retryable: false,
      publicDetails: { reason: 'bypass_refused_as_root' },
    });
  });

  it('keeps a row’s own details for logs, else the facts’ details', () => {
    const gone = classifyFailure({ text: 'no such session', status: 404, now: 0, details: { exitCode: 1 } }, typed);
    expect(gone.details).toEqual({ sessionGone: true, status: 404 });
    expect(classifyFailure({ text: 'slow down', status: 429, now: 0, details: { exitCode: 1 } }, typed).details).toEqual({ exitCode: 1 });
  });
});

describe('stderr and an empty message', () => {
  it('puts stderr after a failed or transient message that lacks it, and keeps it for logs', () => {
    const crash = classifyFailure({ text: 'boom', exitCode: 101, stderr: 'thread panicked', details: { exitCode: 101 } }, table);
    expect(crash).toMatchObject({
      message: 'Tool failed: boom\nthread panicked',
      details: { exitCode: 101, stderrTail: 'thread panicked' },
    });
    expect(classifyFailure({ text: 'upstream', status: 502, stderr: '502 from upstream' }, table).message).toBe(
      'Tool failed: upstream\n502 from upstream',
    );
    // Already in the text: not twice. Another class: the message stays the tool's words.
    expect(classifyFailure({ text: 'boom: thread panicked', stderr: 'thread panicked' }, table).message).toBe(
      'Tool failed: boom: thread panicked',
    );
    const auth = classifyFailure({ text: 'bad token', status: 401, stderr: 'HTTP 401' }, table);
    expect(auth).toMatchObject({ message: 'Tool is not signed in: bad token. Run tool login.', details: { stderrTail: 'HTTP 401' } });
  });

  it('says so when the tool gave no message', () => {
    expect(classifyFailure({ text: '' }, table).message).toBe('Tool failed: no error message');
    expect(classifyFailure({ text: '', stderr: 'segfault' }, table).message).toBe('Tool failed: no error message\nsegfault');
  });

  it('keeps stderr for logs whichever details the row keeps', () => {
    const rows: FailureTable = {
      name: 'Tool',
      toolId: 'tool',
      rules: [{ class: 'session_missing', match: /no thread (\w+)/, details: (f) => ({ ...f.details, toolError: f.text }) }],
    };
    const missing = classifyFailure({ text: 'no thread t-42', stderr: 'resume failed', details: { exitCode: 1 } }, rows);
    expect(missing.details).toEqual({ exitCode: 1, toolError: 'no thread t-42', stderrTail: 'resume failed' });
    expect(classifyFailure({ text: 'other', stderr: 'resume failed', details: { exitCode: 1 } }, rows).details).toEqual({
      exitCode: 1,
      stderrTail: 'resume failed',
    });
  });
});
