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

/** What is known of one failure: the tool's own words first, and the HTTP status or exit code when it gave them. */
export interface FailureFacts {
  text: string;
  status?: number;
  exitCode?: number | null;
  /** Kept on the error for logs (never shown to callers). */
  details?: Record<string, unknown>;
}

/** One row of a tool's failure table: every condition given must hold; the first matching row wins. */
export interface FailureRule {
  class: FailureClass;
  match?: RegExp;
  status?: readonly number[];
  exitCode?: readonly number[];
  when?(facts: FailureFacts): boolean;
  /** The error's message when the table's wording for the class does not fit. */
  message?(facts: FailureFacts): string;
}

/**
 * A tool's failures as data: its rows (patterns, statuses, exit codes → a class), how it words
 * each class, and how it says when to retry. Unmatched failures are `failed` (not retryable).
 */
export interface FailureTable {
  name: string;
  toolId: string;
  rules: readonly FailureRule[];
  messages?: Partial<Record<FailureClass, (facts: FailureFacts) => string>>;
  /** The wait the provider asked for, for rate limits and quotas. */
  retryAfterMs?(text: string): number | undefined;
  /** The reset time it named, for quotas and rate limits. */
  resetsAt?(text: string): Date | undefined;
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

function matches(rule: FailureRule, f: FailureFacts): boolean {
  if (rule.match && !rule.match.test(f.text)) return false;
  if (rule.status && (f.status === undefined || !rule.status.includes(f.status))) return false;
  if (rule.exitCode && (f.exitCode === undefined || f.exitCode === null || !rule.exitCode.includes(f.exitCode))) return false;
  return rule.when ? rule.when(f) : true;
}

/** The class of a failure by the table: the first row that matches, else `failed`. */
export function failureClass(facts: FailureFacts, rules: readonly FailureRule[]): { class: FailureClass; rule?: FailureRule } {
  const rule = rules.find((r) => matches(r, facts));
  return rule ? { class: rule.class, rule } : { class: 'failed' };
}

/** The one place a failure's class becomes a typed error. */
export function classifyFailure(facts: FailureFacts, table: FailureTable): ToolbridgeError {
  const { class: kind, rule } = failureClass(facts, table.rules);
  const message = rule?.message?.(facts) ?? table.messages?.[kind]?.(facts) ?? `${table.name} ${WORDS[kind]}: ${facts.text}`;
  const opts = { toolId: table.toolId, details: facts.details ?? {} };
  const wait = () => {
    const retryAfterMs = table.retryAfterMs?.(facts.text);
    const resetsAt = table.resetsAt?.(facts.text);
    return { ...(retryAfterMs !== undefined ? { retryAfterMs } : {}), ...(resetsAt ? { resetsAt } : {}) };
  };
  switch (kind) {
    case 'auth':
      return new ToolAuthError(message, opts);
    case 'quota':
      return new QuotaExceededError(message, { ...opts, ...wait() });
    case 'rate_limit':
      return new RateLimitError(message, { ...opts, ...wait() });
    case 'timeout':
      return new TimeoutError(message, opts);
    case 'session_missing':
      return new ProviderExecutionError(message, { ...opts, retryable: false, publicDetails: { reason: 'native_session_missing' } });
    default:
      return new ProviderExecutionError(message, { ...opts, retryable: kind === 'transient' });
  }
}
