import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runProcess } from '@toolbridge/adapter-kit';
import { ProviderExecutionError } from '@toolbridge/core';
import { startRealOpenCode, transcriptOf, type RealOpenCode } from './testing/real-opencode.js';

/** Sessions with the real `opencode run` against the mock: OpenCode's own sessions continued and forked. */

const say = (content: string, extra: Record<string, unknown> = {}) => ({ messages: [{ role: 'user' as const, content }], ...extra });
const T = { timeoutMs: 90_000 };

let oc: RealOpenCode;
beforeAll(async () => {
  oc = await startRealOpenCode({ kind: 'steps', steps: [{ text: 'unused' }] });
});
afterAll(async () => {
  await oc?.close();
});

/** The mock answers the next chat with `text`; returns the index of the chat's first request. */
function answer(text: string): number {
  const at = oc.mock.requests.length;
  oc.mock.behaviour = { kind: 'steps', steps: [{ text }] };
  return at;
}

const about = (tag: string, body: Parameters<typeof transcriptOf>[0]) => transcriptOf(body).filter((m) => m.includes(tag));

describe('real opencode 1.18.33: sessions', () => {
  it('one model call per chat (no title request); a second turn with only the new message has the first in context; a fork leaves the original untouched', async () => {
    const { mock, registry } = oc;
    let at = answer('FIRST-ANSWER-4411');
    const first = await registry.chat('opencode', say('FIRST-QUESTION-4411'), T);
    expect(first.message.content).toBe('FIRST-ANSWER-4411');
    expect(first.metadata).toMatchObject({ nativeSessionId: expect.stringMatching(/^ses_/), transport: 'spawn' });
    // OpenCode would ask the model for a session title too: `--title` makes it one call.
    expect(mock.requests.slice(at)).toHaveLength(1);
    expect(mock.requests[at]!.title).toBe(false);

    at = answer('SECOND-ANSWER-4411');
    const second = await registry.chat('opencode', say('SECOND-QUESTION-4411', { sessionId: first.sessionId }), T);
    expect(second.sessionId).toBe(first.sessionId);
    expect(second.metadata.nativeSessionId).toBe(first.metadata.nativeSessionId);
    expect(mock.requests.slice(at)).toHaveLength(1);
    expect(about('4411', mock.requests[at]!.body)).toEqual([
      'user: FIRST-QUESTION-4411',
      'assistant: FIRST-ANSWER-4411',
      'user: SECOND-QUESTION-4411',
    ]);

    at = answer('FORK-ANSWER-4411');
    const fork = await registry.chat('opencode', say('FORK-QUESTION-4411', { sessionId: first.sessionId, fork: true }), T);
    expect(fork.sessionId).not.toBe(first.sessionId);
    expect(fork.metadata.nativeSessionId).not.toBe(first.metadata.nativeSessionId);
    expect(mock.requests.slice(at)).toHaveLength(1);
    expect(about('4411', mock.requests[at]!.body)).toEqual([
      'user: FIRST-QUESTION-4411',
      'assistant: FIRST-ANSWER-4411',
      'user: SECOND-QUESTION-4411',
      'assistant: SECOND-ANSWER-4411',
      'user: FORK-QUESTION-4411',
    ]);

    at = answer('THIRD-ANSWER-4411');
    const third = await registry.chat('opencode', say('THIRD-QUESTION-4411', { sessionId: first.sessionId }), T);
    expect(third.metadata.nativeSessionId).toBe(first.metadata.nativeSessionId);
    // The original never saw the fork's turn.
    expect(about('4411', mock.requests[at]!.body)).toEqual([
      'user: FIRST-QUESTION-4411',
      'assistant: FIRST-ANSWER-4411',
      'user: SECOND-QUESTION-4411',
      'assistant: SECOND-ANSWER-4411',
      'user: THIRD-QUESTION-4411',
    ]);
  }, 400_000);

  it('a session deleted in OpenCode ends the next turn in a typed error at once, not a hang', async () => {
    const { registry, env } = oc;
    answer('GONE-ANSWER-1');
    const first = await registry.chat('opencode', say('GONE-QUESTION-1'), T);
    const deleted = await runProcess({
      command: 'opencode',
      args: ['session', 'delete', String(first.metadata.nativeSessionId)],
      env,
      toolId: 'opencode',
      timeoutMs: 90_000,
    });
    expect(deleted.exitCode).toBe(0);
    const error = await registry.chat('opencode', say('GONE-QUESTION-2', { sessionId: first.sessionId }), T).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderExecutionError);
    expect(error).toMatchObject({ toolId: 'opencode', publicDetails: { reason: 'native_session_missing' } });
    expect((error as Error).message).toContain('Start a new session');
    expect(oc.left()).toEqual([]);
  }, 300_000);
});
