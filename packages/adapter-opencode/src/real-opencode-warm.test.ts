import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { ProviderExecutionError, RateLimitError, TimeoutError, ToolAuthError } from '@toolbridge/core';
import { waitFor } from '@toolbridge/test-suite/kit';
import { startRealOpenCode, transcriptOf, type RealOpenCode } from './testing/real-opencode.js';

/**
 * The warm transport with the real `opencode serve` against the mock, one shared server fixture
 * (serve takes 2–4 s to start): every stateless chat a fresh OpenCode session, sessions continued
 * and forked on the server, native schemas, provider failures typed, deadlines abort the session.
 * Restart, crash and idle shutdown are in real-opencode-warm-lifecycle.test.ts; speed is in
 * benchmarks/opencode-warm.bench.mjs, not here.
 */

const T = { timeoutMs: 90_000 };
let oc: RealOpenCode;
/** One working directory for the chats here: serve bootstraps each new directory once (0.8–2 s). */
let cwd: string;
const say = (content: string, extra: Record<string, unknown> = {}) => ({ messages: [{ role: 'user' as const, content }], cwd, ...extra });

beforeAll(async () => {
  oc = await startRealOpenCode({ kind: 'steps', steps: [{ text: 'unused' }] }, { opencodeModel: 'mock/mock-model', warmIdleMs: 120_000 });
  cwd = await mkdtemp(path.join(oc.home, 'work-'));
}, 120_000);
afterAll(async () => {
  await oc?.close();
  // close() ends the server's whole process group (the orphan guard and opencode).
  if (oc) expect(oc.left()).toEqual([]);
}, 60_000);

function answer(...steps: Array<{ text: string } | { calls: Array<{ name: string; args: Record<string, unknown> }> }>): number {
  const at = oc.mock.requests.length;
  oc.mock.behaviour = { kind: 'steps', steps };
  return at;
}

describe('real opencode 1.18.33: warm transport (opencode serve)', () => {
  it('one server answers chat after chat, each in a fresh session with one model call: nothing of one reaches the next', async () => {
    let at = answer({ text: 'ANSWER-ONE' });
    const first = await oc.registry.chat('opencode', say('SECRET-OF-CALLER-ONE-7731'), T);
    expect(first.message.content).toBe('ANSWER-ONE');
    expect(first.metadata).toMatchObject({ transport: 'warm', nativeSessionId: expect.stringMatching(/^ses_/) });
    // The session was created with a title: no title request to the model.
    expect(oc.mock.requests.slice(at).map((r) => r.title)).toEqual([false]);
    const server = oc.left();
    expect(server.length).toBeGreaterThan(0);

    at = answer({ text: 'ANSWER-TWO' });
    const second = await oc.registry.chat('opencode', say('QUESTION-OF-CALLER-TWO'), T);
    expect(second.message.content).toBe('ANSWER-TWO');
    expect(second.metadata.transport).toBe('warm');
    expect(second.metadata.nativeSessionId).not.toBe(first.metadata.nativeSessionId);
    expect(oc.left()).toEqual(server);
    const sent = oc.mock.requests.slice(at);
    expect(sent).toHaveLength(1);
    expect(JSON.stringify(sent[0]!.body)).toContain('QUESTION-OF-CALLER-TWO');
    expect(JSON.stringify(sent[0]!.body)).not.toContain('SECRET-OF-CALLER-ONE-7731');
    expect(transcriptOf(sent[0]!.body).filter((m) => m.startsWith('assistant'))).toEqual([]);
    const load = oc.registry.load('opencode');
    expect(load).toMatchObject({ transport: 'warm', warm: { processes: 1, busy: 0, idleTimeoutMs: 120_000 } });
    expect(load.warm!.rssBytes).toBeGreaterThan(50 * 2 ** 20);
  }, 180_000);

  it('continues a session with only the new message, and forks it leaving the original untouched', async () => {
    answer({ text: 'FIRST-ANSWER-5150' });
    const first = await oc.registry.chat('opencode', say('FIRST-QUESTION-5150'), T);
    let at = answer({ text: 'SECOND-ANSWER-5150' });
    const second = await oc.registry.chat('opencode', say('SECOND-QUESTION-5150', { sessionId: first.sessionId }), T);
    expect(second.metadata).toMatchObject({ transport: 'warm', nativeSessionId: first.metadata.nativeSessionId });
    const about = (i: number) => transcriptOf(oc.mock.requests[i]!.body).filter((m) => m.includes('5150'));
    expect(about(at)).toEqual(['user: FIRST-QUESTION-5150', 'assistant: FIRST-ANSWER-5150', 'user: SECOND-QUESTION-5150']);

    at = answer({ text: 'FORK-ANSWER-5150' });
    const fork = await oc.registry.chat('opencode', say('FORK-QUESTION-5150', { sessionId: first.sessionId, fork: true }), T);
    expect(fork.metadata.transport).toBe('warm');
    expect(fork.metadata.nativeSessionId).not.toBe(first.metadata.nativeSessionId);
    expect(about(at).at(-1)).toBe('user: FORK-QUESTION-5150');
    expect(about(at)).toContain('assistant: SECOND-ANSWER-5150');

    at = answer({ text: 'THIRD-ANSWER-5150' });
    await oc.registry.chat('opencode', say('THIRD-QUESTION-5150', { sessionId: first.sessionId }), T);
    expect(about(at)).not.toContain('user: FORK-QUESTION-5150');
  }, 180_000);

  it('sends the schema natively (StructuredOutput tool, required), returns the object, repairs once, then 502', async () => {
    const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false };
    let at = answer({ calls: [{ name: 'StructuredOutput', args: { n: 42 } }] });
    const ok = await oc.registry.chat('opencode', say('Give n', { responseFormat: { type: 'json_schema', schema } }), T);
    expect(ok.object).toEqual({ n: 42 });
    expect(ok.metadata.transport).toBe('warm');
    const body = oc.mock.requests[at]!.body as {
      tools?: Array<{ function?: { name?: string; parameters?: unknown } }>;
      tool_choice?: unknown;
    };
    expect(body.tool_choice).toBe('required');
    expect(body.tools?.find((t) => t.function?.name === 'StructuredOutput')?.function?.parameters).toMatchObject(schema);
    // The schema is not also asked for in words (that is the spawn path).
    expect(JSON.stringify(oc.mock.requests[at]!.body.messages)).not.toContain('matches this JSON Schema');

    at = answer({ calls: [{ name: 'StructuredOutput', args: { n: 'not a number' } }] });
    const bad = oc.registry.chat('opencode', say('Give n again', { responseFormat: { type: 'json_schema', schema } }), T);
    await expect(bad).rejects.toMatchObject({ name: ProviderExecutionError.name, publicDetails: { reason: 'schema_mismatch' } });
    // The first answer and exactly one repair turn.
    expect(oc.mock.requests.slice(at).filter((r) => !r.title)).toHaveLength(2);
  }, 180_000);

  it('types provider failures: 401 is an auth error; a 429 is rate_limited at once, not retried for an hour', async () => {
    oc.mock.behaviour = { kind: 'error', status: 401, message: 'Incorrect API key provided', type: 'invalid_request_error' };
    await expect(oc.registry.chat('opencode', say('auth?'), T)).rejects.toBeInstanceOf(ToolAuthError);

    oc.mock.behaviour = {
      kind: 'error',
      status: 429,
      message: 'Rate limit reached',
      type: 'rate_limit_error',
      headers: { 'retry-after': '3600' },
    };
    const started = Date.now();
    const limited = await oc.registry.chat('opencode', say('rate?'), T).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).retryAfterMs).toBeGreaterThan(3_000_000);
    expect(Date.now() - started).toBeLessThan(30_000);

    answer({ text: 'FINE-AGAIN' });
    const next = await oc.registry.chat('opencode', say('and now?'), T);
    expect(next.message.content).toBe('FINE-AGAIN');
  }, 180_000);

  it('a deadline aborts the session on the server: the chat is a TimeoutError and the server is idle again', async () => {
    oc.mock.behaviour = { kind: 'hang' };
    await expect(oc.registry.chat('opencode', say('hang'), { timeoutMs: 2_500 })).rejects.toBeInstanceOf(TimeoutError);
    // The abort reached OpenCode: no session of ours is busy any more.
    await waitFor(() => oc.registry.load('opencode').warm?.busy === 0, 10_000);
    answer({ text: 'AFTER-DEADLINE' });
    expect((await oc.registry.chat('opencode', say('next'), T)).message.content).toBe('AFTER-DEADLINE');
  }, 180_000);

  it('applies the permission level as session rules (headless asks denied) and sends images as file parts', async () => {
    const toolsOf = (i: number) => (oc.mock.requests[i]!.body.tools ?? []).map((t) => t.function?.name);
    let at = answer({ text: 'read only' });
    const ro = await oc.registry.chat('opencode', say('look only'), T);
    expect(ro.metadata.permissions).toMatchObject({ requested: 'read-only', applied: 'read-only' });
    expect(toolsOf(at)).toEqual(expect.arrayContaining(['read']));
    for (const denied of ['bash', 'edit', 'write', 'question']) expect(toolsOf(at)).not.toContain(denied);
    at = answer({ text: 'may write' });
    await oc.registry.chat('opencode', say('may write', { permissions: 'workspace-write' }), T);
    expect(toolsOf(at)).toEqual(expect.arrayContaining(['edit', 'write']));
    // No sandbox, so no shell below full (without approvals).
    expect(toolsOf(at)).not.toContain('bash');
    expect(toolsOf(at)).not.toContain('question');

    // A 1×1 PNG: its bytes must reach the model unchanged, as a data URL.
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    at = answer({ text: 'a pixel' });
    const seen = await oc.registry.chat(
      'opencode',
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image', mediaType: 'image/png', data: png },
            ],
          },
        ],
        cwd,
        model: 'mock/mock-vision',
      },
      T,
    );
    expect(seen.metadata.transport).toBe('warm');
    expect(JSON.stringify(oc.mock.requests[at]!.body.messages)).toContain(`data:image/png;base64,${png}`);
  }, 180_000);
});
