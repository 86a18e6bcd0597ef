import {
  ProviderExecutionError,
  QuotaExceededError,
  RateLimitError,
  TimeoutError,
  ToolAuthError,
  type ToolbridgeError,
} from '@toolbridge/core';

/** What a tool's failure is, for the caller: each class is one typed error (see `classifyFailure`). */
export type FailureClass = 'auth' | 'quota' | 'rate_limit' | 'timeout' | 'session_missing' | 'transient' | 'failed';

/**
 * What is known of one failure: the tool's own words first, and the HTTP status or exit code when
 * it gave them. A tool with more structure (an error type, rate-limit headers, a clock for tests)
 * extends this, and its table's functions see those fields typed.
 */
export interface FailureFacts {
  text: string;
  status?: number;
  exitCode?: number | null;
  /**
   * The tail of what the tool printed on stderr, without its routine notices. Kept for logs
   * (`details.stderrTail`, whichever details the row keeps) and put on its own line after a
   * `failed` or `transient` message whose text does not hold it already: a tool's last stderr
   * lines are often the only clue to a crash.
   */
  stderr?: string;
  /** Kept on the error for logs (never shown to callers). */
  details?: Record<string, unknown>;
}

/** One row of a tool's failure table: every condition given must hold; the first matching row wins. */
export interface FailureRule<F extends FailureFacts = FailureFacts> {
  class: FailureClass;
  match?: RegExp;
  status?: readonly number[];
  exitCode?: readonly number[];
  when?(facts: F): boolean;
  /** The error's message when the table's wording for the class does not fit. */
  message?(facts: F): string;
  /** A reason callers may see (`publicDetails.reason`); `session_missing` has `native_session_missing`. */
  reason?: string;
  /** The error's details (for logs) when this row keeps other facts than `facts.details`. */
  details?(facts: F): Record<string, unknown>;
}

/** The two classes that carry a wait. */
export type WaitClass = 'quota' | 'rate_limit';

/**
 * A tool's failures as data: its rows (patterns, statuses, exit codes → a class), how it words
 * each class, and how it says when to retry. Unmatched failures are `failed` (not retryable).
 */
export interface FailureTable<F extends FailureFacts = FailureFacts> {
  name: string;
  toolId: string;
  rules: readonly FailureRule<F>[];
  messages?: Partial<Record<FailureClass, (facts: F) => string>>;
  /** The wait the provider asked for, for rate limits and quotas. */
  retryAfterMs?(facts: F, kind: WaitClass): number | undefined;
  /** The reset time it named, for quotas and rate limits. */
  resetsAt?(facts: F, kind: WaitClass): Date | undefined;
}

const WORDS: Record<FailureClass, string> = {
  auth: 'is not authenticated',
  quota: 'quota exhausted',
  rate_limit: 'was rate limited',
  timeout: 'timed out',
  session_missing: 'cannot continue this conversation: its own session is gone',
  transient: 'failed',
  failed: 'failed',
};

function matches<F extends FailureFacts>(rule: FailureRule<F>, f: F): boolean {
  if (rule.match && !rule.match.test(f.text)) return false;
  if (rule.status && (f.status === undefined || !rule.status.includes(f.status))) return false;
  if (rule.exitCode && (f.exitCode === undefined || f.exitCode === null || !rule.exitCode.includes(f.exitCode))) return false;
  return rule.when ? rule.when(f) : true;
}

/** The class of a failure by the table: the first row that matches, else `failed`. */
export function failureClass<F extends FailureFacts>(
  facts: F,
  rules: readonly FailureRule<F>[],
): { class: FailureClass; rule?: FailureRule<F> } {
  const rule = rules.find((r) => matches(r, facts));
  return rule ? { class: rule.class, rule } : { class: 'failed' };
}

/** The one place a failure's class becomes a typed error. */
export function classifyFailure<F extends FailureFacts>(facts: F, table: FailureTable<F>): ToolbridgeError {
  const { class: kind, rule } = failureClass(facts, table.rules);
  const worded =
    rule?.message?.(facts) ?? table.messages?.[kind]?.(facts) ?? `${table.name} ${WORDS[kind]}: ${facts.text || 'no error message'}`;
  const stderr = facts.stderr;
  const message = stderr && (kind === 'failed' || kind === 'transient') && !facts.text.includes(stderr) ? `${worded}\n${stderr}` : worded;
  const reason = rule?.reason ?? (kind === 'session_missing' ? 'native_session_missing' : undefined);
  const opts = {
    toolId: table.toolId,
    details: { ...(rule?.details?.(facts) ?? facts.details), ...(stderr ? { stderrTail: stderr } : {}) },
    ...(reason ? { publicDetails: { reason } } : {}),
  };
  const wait = (k: WaitClass) => {
    const retryAfterMs = table.retryAfterMs?.(facts, k);
    const resetsAt = table.resetsAt?.(facts, k);
    return { ...(retryAfterMs !== undefined ? { retryAfterMs } : {}), ...(resetsAt ? { resetsAt } : {}) };
  };
  switch (kind) {
    case 'auth':
      return new ToolAuthError(message, opts);
    case 'quota':
      return new QuotaExceededError(message, { ...opts, ...wait('quota') });
    case 'rate_limit':
      return new RateLimitError(message, { ...opts, ...wait('rate_limit') });
    case 'timeout':
      return new TimeoutError(message, opts);
    case 'session_missing':
      return new ProviderExecutionError(message, { ...opts, retryable: false });
    default:
      return new ProviderExecutionError(message, { ...opts, retryable: kind === 'transient' });
  }
}
