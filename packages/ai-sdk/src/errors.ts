import {
  AISDKError,
  APICallError,
  InvalidPromptError,
  LoadAPIKeyError,
  NoSuchModelError,
  UnsupportedFunctionalityError,
} from '@ai-sdk/provider';
import { retryAfterMsOf } from '@toolbridge/core';
import { FallbackExhaustedError, ToolbridgeError } from 'toolbridge';

/** What a failed call was: for the error's `url`, `requestBodyValues` and messages (never the prompt). */
export interface CallTarget {
  modelId: string;
  toolId?: string;
  providers?: readonly string[];
  model?: string;
}

/**
 * A Toolbridge failure as the AI SDK error a caller checks for, keeping Toolbridge's own
 * classification: `isRetryable` is the error's `retryable` (so the AI SDK's `maxRetries` retries
 * exactly what Toolbridge calls transient), a known wait becomes `retry-after-ms`, and `data`
 * carries the code, tool and (for a fallback chain) every attempt. The original error is `cause`.
 *
 * - not logged in → `LoadAPIKeyError` (the message says how to log in)
 * - unknown tool id → `NoSuchModelError`
 * - a feature the tool lacks (images) → `UnsupportedFunctionalityError`
 * - any other bad request → `InvalidPromptError`
 * - everything else (unavailable, rate limit, quota, timeout, the tool failed) → `APICallError`
 *   with the Toolbridge HTTP status as `statusCode`
 *
 * When the caller's own signal aborted, the call rejects with the signal's reason, as `fetch`
 * does, so the AI SDK recognises the abort.
 */
export function toAISDKError(error: unknown, target: CallTarget, signal?: AbortSignal): unknown {
  if (signal?.aborted) return signal.reason ?? error;
  if (AISDKError.isInstance(error) || !ToolbridgeError.isInstance(error)) return error;
  const last = FallbackExhaustedError.isInstance(error) ? (error.lastError ?? error) : error;
  const toolId = error.toolId ?? last.toolId;
  switch (last.code) {
    case 'tool_auth_required':
      return withCause(new LoadAPIKeyError({ message: error.message }), error);
    case 'tool_not_found':
      return withCause(new NoSuchModelError({ modelId: target.modelId, modelType: 'languageModel', message: error.message }), error);
    case 'invalid_request': {
      const details = last.publicDetails;
      if (details?.reason === 'unsupported') {
        const feature = typeof details.feature === 'string' ? details.feature : 'this request';
        return withCause(new UnsupportedFunctionalityError({ functionality: feature, message: error.message }), error);
      }
      return new InvalidPromptError({ prompt: undefined, message: error.message, cause: error });
    }
  }
  const wait = retryAfterMsOf(error);
  return new APICallError({
    message: error.message,
    url: `toolbridge://${target.toolId ?? 'fallback'}`,
    requestBodyValues: {
      ...(target.toolId ? { toolId: target.toolId } : {}),
      ...(target.providers ? { providers: [...target.providers] } : {}),
      ...(target.model ? { model: target.model } : {}),
    },
    statusCode: error.httpStatus,
    ...(wait !== undefined ? { responseHeaders: { 'retry-after-ms': String(Math.ceil(wait)) } } : {}),
    isRetryable: last.retryable,
    data: {
      code: error.code,
      ...(toolId ? { toolId } : {}),
      ...(last.publicDetails ? { details: last.publicDetails } : {}),
      ...(FallbackExhaustedError.isInstance(error) ? { attempts: error.attempts } : {}),
    },
    cause: error,
  });
}

/** Some AI SDK errors take no `cause`; keep the Toolbridge error reachable anyway. */
function withCause<E extends Error>(e: E, cause: unknown): E {
  Object.defineProperty(e, 'cause', { value: cause, enumerable: false, configurable: true, writable: true });
  return e;
}
