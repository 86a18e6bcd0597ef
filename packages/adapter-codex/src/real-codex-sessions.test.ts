import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { ProviderExecutionError } from '@toolbridge/core';
import { startRealCodex, transcriptOf, TRANSPORTS, type RealCodex } from './testing/real-codex.js';

/** Sessions with the real `codex` against the mock: Codex's own threads continued and forked through `exec resume`/`fork`. */

const say = (content: string, extra: Record<string, unknown> = {}) => ({ messages: [{ role: 'user' as const, content }], ...extra });
const ONE_REQUEST = {
  input_tokens: 1234,
  cached_input_tokens: 1000,
  cache_write_input_tokens: 0,
  output_tokens: 56,
  reasoning_output_tokens: 7,
};

describe.each(TRANSPORTS)('real codex 0.169.0: sessions (%s)', (transport) => {
  let codex: RealCodex;
  beforeAll(async () => {
    codex = await startRealCodex({ warm: transport === 'warm' });
  });
  afterAll(async () => {
    await codex?.close();
  });

  it('a second turn sent with only the new message reaches the model with the first turn in its context; usage is the turn’s own', async () => {
    const { mock, registry } = codex;
    mock.queue({ kind: 'reply', text: 'FIRST-ANSWER-4411' });
    const first = await registry.chat('codex', say('FIRST-QUESTION-4411'), { timeoutMs: 60_000 });
    expect(first.metadata).toMatchObject({ nativeSessionId: expect.any(String), transport });
    expect(first.usage).toEqual(ONE_REQUEST);

    mock.queue({ kind: 'reply', text: 'SECOND-ANSWER-4411' });
    const sent = mock.modelRequests().length;
    const second = await registry.chat('codex', say('SECOND-QUESTION-4411', { sessionId: first.sessionId }), { timeoutMs: 60_000 });
    expect(second.sessionId).toBe(first.sessionId);
    expect(second.message.content).toBe('SECOND-ANSWER-4411');
    // The same Codex thread, continued natively.
    expect(second.metadata.nativeSessionId).toBe(first.metadata.nativeSessionId);
    const request = mock.modelRequests().slice(sent);
    expect(request).toHaveLength(1);
    const said = transcriptOf(request[0]!);
    expect(said.filter((m) => m.includes('QUESTION-4411') || m.includes('ANSWER-4411'))).toEqual([
      'user: FIRST-QUESTION-4411',
      'assistant: FIRST-ANSWER-4411',
      'user: SECOND-QUESTION-4411',
    ]);
    // exec reports the thread's running total (2468 input tokens here); the turn's own share is one request.
    expect(second.usage).toEqual(ONE_REQUEST);
  }, 120_000);

  it('a fork continues from the first turn on a new Codex thread and leaves the original untouched', async () => {
    const { mock, registry } = codex;
    mock.queue({ kind: 'reply', text: 'ROOT-ANSWER-7720' });
    const root = await registry.chat('codex', say('ROOT-QUESTION-7720'), { timeoutMs: 60_000 });

    mock.queue({ kind: 'reply', text: 'FORK-ANSWER-7720' });
    let sent = mock.modelRequests().length;
    const fork = await registry.chat('codex', say('FORK-QUESTION-7720', { sessionId: root.sessionId, fork: true }), { timeoutMs: 60_000 });
    expect(fork.sessionId).not.toBe(root.sessionId);
    expect(fork.metadata.nativeSessionId).not.toBe(root.metadata.nativeSessionId);
    expect(transcriptOf(mock.modelRequests()[sent]!).filter((m) => m.includes('7720'))).toEqual([
      'user: ROOT-QUESTION-7720',
      'assistant: ROOT-ANSWER-7720',
      'user: FORK-QUESTION-7720',
    ]);
    // A fork starts with its source's total: its turn is still one request.
    expect(fork.usage).toEqual(ONE_REQUEST);

    mock.queue({ kind: 'reply', text: 'ROOT-AGAIN-7720' });
    sent = mock.modelRequests().length;
    await registry.chat('codex', say('ROOT-FOLLOWUP-7720', { sessionId: root.sessionId }), { timeoutMs: 60_000 });
    expect(transcriptOf(mock.modelRequests()[sent]!).filter((m) => m.includes('7720'))).toEqual([
      'user: ROOT-QUESTION-7720',
      'assistant: ROOT-ANSWER-7720',
      'user: ROOT-FOLLOWUP-7720',
    ]);
    expect((await registry.sessions.get(root.sessionId!)).turns).toBe(2);
    expect((await registry.sessions.get(fork.sessionId!)).turns).toBe(2);
  }, 120_000);

  it('a session whose Codex thread was deleted ends at once in a typed error, not a hang', async () => {
    const { mock, registry, codexHome } = codex;
    mock.queue({ kind: 'reply', text: 'DOOMED-ANSWER' });
    const first = await registry.chat('codex', say('DOOMED-QUESTION'), { timeoutMs: 60_000 });
    const thread = String(first.metadata.nativeSessionId);
    // Codex keeps the thread in its rollout file; remove it as `codex delete` or a user would.
    const sessions = path.join(codexHome, 'sessions');
    for (const entry of await readdir(sessions, { recursive: true })) {
      if (entry.endsWith(`-${thread}.jsonl`)) await rm(path.join(sessions, entry));
    }
    const sent = mock.modelRequests().length;
    const started = Date.now();
    const error = await registry.chat('codex', say('AFTER-DELETE', { sessionId: first.sessionId }), { timeoutMs: 60_000 }).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderExecutionError);
    expect(error).toMatchObject({ toolId: 'codex', publicDetails: { reason: 'native_session_missing' } });
    expect((error as Error).message).not.toContain(thread);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(mock.modelRequests().length).toBe(sent);
    // Nothing of the failed turn runs on: no process (spawn), or the warm server alone, still answering.
    if (transport === 'spawn') expect(codex.left()).toEqual([]);
    else expect((await registry.chat('codex', say('STILL-THERE'), { timeoutMs: 60_000 })).metadata.transport).toBe('warm');
  }, 120_000);
});
