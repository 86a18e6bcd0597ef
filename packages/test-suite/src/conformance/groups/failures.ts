import assert from 'node:assert/strict';
import { RateLimitError, ToolAuthError } from '@toolbridge/core';
import { assertFields, CHAT_MS, failureOf, hello, type GroupContext } from '../harness.js';

/** Scenario `unauthenticated`: the tool's own "log in first" is a ToolAuthError, and health says so. */
export function authGroup({ runner, stage }: GroupContext): void {
  runner.it('reports a logged-out tool with ToolAuthError, and health says so', async () => {
    const { registry, adapter } = await stage('unauthenticated');
    const error = await failureOf(registry.chat(adapter.id, hello, { timeoutMs: CHAT_MS }));
    assert.ok(ToolAuthError.isInstance(error));
    assertFields(error, { code: 'tool_auth_required', httpStatus: 401, toolId: adapter.id });
    if (adapter.checkAuth)
      assertFields(await registry.health(adapter.id), { authSupported: true, authenticated: false, authStatus: 'unauthenticated' });
  });
}

/** Scenario `rate-limited`: a retryable RateLimitError. */
export function rateLimitGroup({ runner, stage }: GroupContext): void {
  runner.it('reports a rate limit as a retryable RateLimitError', async () => {
    const { registry, adapter } = await stage('rate-limited');
    const error = await failureOf(registry.chat(adapter.id, hello, { timeoutMs: CHAT_MS }));
    assert.ok(RateLimitError.isInstance(error));
    assertFields(error, { retryable: true, httpStatus: 429, toolId: adapter.id });
  });
}
