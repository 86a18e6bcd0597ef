import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ToolRegistry } from '@toolbridge/core/runtime';
import { makeTempDir } from '@toolbridge/test-suite/kit';
import { startMockAnthropic, userTexts, type MockAnthropicServer } from './testing/index.js';
import { realClaudeRegistry } from './testing/real.js';

/** Sessions with the real `claude` 2.1.330 against the mock: what the model is sent on each turn. */
describe('real claude: sessions', () => {
  let server: MockAnthropicServer;
  let tmp: { dir: string; cleanup(): Promise<void> };
  let registry: ToolRegistry;
  let configDir: string;

  beforeAll(async () => {
    // Each answer names the turn it answers, so later requests show which turns are in the context.
    server = await startMockAnthropic({
      mode: 'script',
      script: (body) => ({ blocks: [{ type: 'text', text: `answer to: ${userTexts(body).at(-1)?.trim()}` }] }),
    });
    tmp = await makeTempDir('tb-claude-sessions-');
    const real = await realClaudeRegistry(server.url, tmp.dir);
    registry = real.registry;
    configDir = real.env.CLAUDE_CONFIG_DIR!;
  });
  afterAll(async () => {
    await registry?.close();
    await server?.close();
    await tmp?.cleanup();
  });

  const say = (content: string, more: { sessionId?: string; fork?: boolean } = {}) =>
    registry.chat('claude-code', { messages: [{ role: 'user', content }], ...more }, { timeoutMs: 90_000 });
  /** What the model was sent for the last chat: every user text of its (last) request. */
  const lastContext = () => userTexts(server.messageRequests().at(-1)!.body).join('\n');

  it('a second turn sent with only the new message reaches the model with the first turn in its context', async () => {
    const first = await say('The secret word is ZEBRA-17.');
    expect(first.metadata.nativeSessionId).toEqual(expect.stringMatching(/^[0-9a-f-]{36}$/));
    const second = await say('What was the secret word?', { sessionId: first.sessionId });
    expect(second.sessionId).toBe(first.sessionId);
    // The same Claude Code session, continued.
    expect(second.metadata.nativeSessionId).toBe(first.metadata.nativeSessionId);
    const context = lastContext();
    expect(context).toContain('The secret word is ZEBRA-17.');
    expect(context).toContain('What was the secret word?');
    // Its own earlier answer is there too (as an assistant message).
    const body = server.messageRequests().at(-1)!.body;
    expect(JSON.stringify(body.messages!.filter((m) => m.role === 'assistant'))).toContain('answer to: The secret word is ZEBRA-17.');
    // Per-turn usage, not the session's running total.
    expect(second.usage).toMatchObject({ input_tokens: 21, output_tokens: 5 });
  }, 180_000);

  it('a fork continues from that point, and leaves the original untouched', async () => {
    const base = await say('Base fact: the boat is RED.');
    const fork = await say('In the fork, the boat is now BLUE.', { sessionId: base.sessionId, fork: true });
    expect(fork.sessionId).not.toBe(base.sessionId);
    expect(fork.metadata.nativeSessionId).not.toBe(base.metadata.nativeSessionId);
    expect(lastContext()).toContain('Base fact: the boat is RED.');

    await say('What colour is the boat?', { sessionId: base.sessionId });
    const original = lastContext();
    expect(original).toContain('Base fact: the boat is RED.');
    expect(original).not.toContain('BLUE');

    await say('And in this branch?', { sessionId: fork.sessionId });
    expect(lastContext()).toContain('In the fork, the boat is now BLUE.');
    expect((await registry.sessions.get(fork.sessionId!)).messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
  }, 240_000);

  it('a session whose Claude Code transcript is gone ends in a clear error, not a hang', async () => {
    const first = await say('Remember this.');
    const native = first.metadata.nativeSessionId as string;
    const projects = path.join(configDir, 'projects');
    for (const dir of await readdir(projects)) await rm(path.join(projects, dir, `${native}.jsonl`), { force: true });
    const started = Date.now();
    const error = await say('Still there?', { sessionId: first.sessionId }).catch((e) => e);
    expect(error).toMatchObject({ code: 'provider_execution_failed', publicDetails: { reason: 'native_session_missing' } });
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 180_000);
});
