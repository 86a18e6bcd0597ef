import { quoted } from './text.js';
import type { Attempt } from './types.js';
import { ERROR_STATUS, type ErrorCode } from './wire/errors.js';

export type { ErrorCode };

/**
 * Error classes. Each carries a `Symbol.for` marker so `isInstance()` and
 * `instanceof` hold even when two copies of this package are installed.
 */

const BASE_MARKER = Symbol.for('toolbridge.error');

function hasMarker(value: unknown, marker: symbol): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
}

export interface ToolbridgeErrorOptions {
  toolId?: string;
  cause?: unknown;
  retryable?: boolean;
  /** Internal facts for logs and tests (exit codes, stderr tails); never sent over HTTP. */
  details?: Record<string, unknown>;
  /** Machine-readable facts safe to send to a caller (`error.details` in the envelope). */
  publicDetails?: Record<string, unknown>;
}

export class ToolbridgeError extends Error {
  protected static readonly marker: symbol = BASE_MARKER;
  readonly code: ErrorCode;
  readonly httpStatus: number;
  readonly toolId?: string;
  readonly retryable: boolean;
  readonly details?: Record<string, unknown>;
  readonly publicDetails?: Record<string, unknown>;

  /** The HTTP status follows from the code (`ERROR_STATUS`, the one table). */
  constructor(code: ErrorCode, message: string, options: ToolbridgeErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.httpStatus = ERROR_STATUS[code];
    this.toolId = options.toolId;
    this.retryable = options.retryable ?? false;
    this.details = options.details;
    this.publicDetails = options.publicDetails;
    // Mark the instance with every marker of its class chain.
    for (let c: any = new.target; c && c.marker; c = Object.getPrototypeOf(c)) {
      Object.defineProperty(this, c.marker, { value: true, enumerable: false });
    }
  }

  /** True for instances of this class (or a subclass), even from another copy of this package. */
  static isInstance<T extends abstract new (...args: any[]) => ToolbridgeError>(this: T, value: unknown): value is InstanceType<T> {
    return hasMarker(value, (this as unknown as { marker: symbol }).marker);
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return hasMarker(value, (this as unknown as { marker: symbol }).marker);
  }
}

function markerOf(name: string): symbol {
  return Symbol.for(`toolbridge.error.${name}`);
}

/** The errors with nothing of their own but their code (`errorCode`): one `(message, options)` constructor. */
abstract class CodedError extends ToolbridgeError {
  protected static readonly errorCode: ErrorCode;
  constructor(message: string, options?: ToolbridgeErrorOptions) {
    super((new.target as unknown as { errorCode: ErrorCode }).errorCode, message, options);
  }
}

export class InvalidRequestError extends CodedError {
  protected static override readonly marker = markerOf('InvalidRequestError');
  protected static override readonly errorCode = 'invalid_request';
}

export class ToolAuthError extends CodedError {
  protected static override readonly marker = markerOf('ToolAuthError');
  protected static override readonly errorCode = 'tool_auth_required';
}

export class ToolNotFoundError extends ToolbridgeError {
  protected static override readonly marker = markerOf('ToolNotFoundError');
  constructor(toolId: string, options?: ToolbridgeErrorOptions & { known?: string[] }) {
    const known = options?.known?.length ? ` (known tools: ${options.known.join(', ')})` : '';
    super('tool_not_found', `Tool ${quoted(toolId)} is not supported${known}`, { ...options, toolId: toolId.slice(0, 200) });
  }
}

/** No session has this id (never created, deleted, or evicted). */
export class SessionNotFoundError extends ToolbridgeError {
  protected static override readonly marker = markerOf('SessionNotFoundError');
  constructor(sessionId: string, options?: ToolbridgeErrorOptions) {
    super('session_not_found', `Session ${quoted(sessionId)} does not exist (it may have expired or been deleted)`, options);
  }
}

/** The session is answering another turn; turns of one session never interleave. */
export class SessionBusyError extends ToolbridgeError {
  protected static override readonly marker = markerOf('SessionBusyError');
  constructor(sessionId: string, options?: ToolbridgeErrorOptions) {
    super('session_busy', `Session ${quoted(sessionId)} is busy with another turn; retry when it has answered`, {
      retryable: true,
      ...options,
    });
  }
}

/** `interrupt(sessionId)` on a session with no turn running. */
export class SessionIdleError extends ToolbridgeError {
  protected static override readonly marker = markerOf('SessionIdleError');
  constructor(sessionId: string, options?: ToolbridgeErrorOptions) {
    super('session_idle', `Session ${quoted(sessionId)} has no turn running`, options);
  }
}

/** No approval with this id is pending (never existed, expired, or its turn has ended). */
export class ApprovalNotFoundError extends ToolbridgeError {
  protected static override readonly marker = markerOf('ApprovalNotFoundError');
  constructor(id: string, options?: ToolbridgeErrorOptions) {
    super('approval_not_found', `Approval ${quoted(id)} is not pending (unknown, expired, or its turn has ended)`, options);
  }
}

/** The approval was answered already. */
export class ApprovalDecidedError extends ToolbridgeError {
  protected static override readonly marker = markerOf('ApprovalDecidedError');
  constructor(id: string, options?: ToolbridgeErrorOptions) {
    super('approval_decided', `Approval ${quoted(id)} was decided already`, options);
  }
}

export class ProviderExecutionError extends CodedError {
  protected static override readonly marker = markerOf('ProviderExecutionError');
  protected static override readonly errorCode = 'provider_execution_failed';
}

/** The tool cannot take the request now: not installed, unreachable, shutting down, or busy. */
export class ToolUnavailableError extends ToolbridgeError {
  protected static override readonly marker = markerOf('ToolUnavailableError');
  /** When trying again should work (a busy tool's estimate); undefined when unknown. */
  readonly retryAfterMs?: number;
  constructor(message: string, options?: ToolbridgeErrorOptions & { retryAfterMs?: number }) {
    super('tool_unavailable', message, options);
    this.retryAfterMs = options?.retryAfterMs;
  }
}

export class TimeoutError extends ToolbridgeError {
  protected static override readonly marker = markerOf('TimeoutError');
  readonly timeoutMs?: number;
  constructor(message: string, options?: ToolbridgeErrorOptions & { timeoutMs?: number }) {
    super('timeout', message, { retryable: true, ...options });
    this.timeoutMs = options?.timeoutMs;
  }
}

export interface RateLimitOptions extends ToolbridgeErrorOptions {
  /** When the limit resets, if the provider said. */
  resetsAt?: Date;
  /** How long to wait before retrying, if the provider said (Retry-After). */
  retryAfterMs?: number;
}

/** The provider throttled the request; trying again later may work. */
export class RateLimitError extends ToolbridgeError {
  protected static override readonly marker = markerOf('RateLimitError');
  readonly resetsAt?: Date;
  readonly retryAfterMs?: number;
  constructor(message: string, options: RateLimitOptions = {}, code: ErrorCode = 'rate_limited') {
    super(code, message, { retryable: true, ...options });
    this.resetsAt = options.resetsAt;
    this.retryAfterMs = options.retryAfterMs;
  }

  /** Milliseconds until a retry may succeed, from `now`; undefined when unknown. */
  waitMs(now = Date.now()): number | undefined {
    if (this.retryAfterMs !== undefined) return Math.max(0, this.retryAfterMs);
    if (this.resetsAt) return Math.max(0, this.resetsAt.getTime() - now);
    return undefined;
  }
}

/** The user's plan allowance (usage window) is used up until `resetsAt`. */
export class QuotaExceededError extends RateLimitError {
  protected static override readonly marker = markerOf('QuotaExceededError');
  constructor(message: string, options: RateLimitOptions = {}) {
    super(message, options, 'quota_exceeded');
  }
}

/** The caller cancelled the operation. */
export class AbortedError extends ToolbridgeError {
  protected static override readonly marker = markerOf('AbortedError');
  constructor(message = 'The operation was aborted', options?: ToolbridgeErrorOptions) {
    super('aborted', message, options);
  }
}

/** Every tool of a fallback chat failed or was skipped. Code and status follow the last failure. */
export class FallbackExhaustedError extends ToolbridgeError {
  protected static override readonly marker = markerOf('FallbackExhaustedError');
  readonly attempts: Attempt[];
  readonly lastError?: ToolbridgeError;
  constructor(message: string, attempts: Attempt[], lastError?: ToolbridgeError) {
    super(lastError?.code ?? 'tool_unavailable', message, {
      toolId: lastError?.toolId,
      cause: lastError,
    });
    this.attempts = attempts;
    this.lastError = lastError;
  }
}

/** Internal error: never exposes the original message over HTTP. */
export class InternalError extends ToolbridgeError {
  protected static override readonly marker = markerOf('InternalError');
  constructor(message = 'Unexpected internal error', options?: ToolbridgeErrorOptions) {
    super('internal_error', message, options);
  }
}

/** Normalise anything thrown into a ToolbridgeError; unknown errors become InternalError. */
export function toToolbridgeError(error: unknown): ToolbridgeError {
  if (ToolbridgeError.isInstance(error)) return error;
  if (typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError')
    return new AbortedError(undefined, { cause: error });
  return new InternalError(undefined, { cause: error });
}
