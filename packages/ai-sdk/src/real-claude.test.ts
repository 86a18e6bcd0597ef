import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { makeTempDir, pathWith, processesWithEnv, realCliBinDir, waitForPidsGone } from '@toolbridge/test-suite/kit';
import { generateText, streamText } from 'ai';
import path from 'node:path';
import { createClaudeCodeAdapter } from 'toolbridge';
import { startMockAnthropic, type MockAnthropicServer } from '@toolbridge/adapter-claude-code/testing';
import { createToolbridge, type ToolbridgeProvider } from './index.js';
import './testing/fixture.js';

/**
 * End to end: the AI SDK → this provider → the library → the real, pinned `claude` binary → a mock
 * Anthropic API on 127.0.0.1, in a throwaway HOME (no network, no real credentials).
 */
describe('real claude 2.1.330 through the AI SDK (real ai 7)', () => {
  let server: MockAnthropicServer;
  let home: { dir: string; cleanup(): Promise<void> };
  let provider: ToolbridgeProvider;

  beforeAll(async () => {
    server = await startMockAnthropic();
    home = await makeTempDir('tb-ai-sdk-claude-');
    const env: NodeJS.ProcessEnv = {
      PATH: pathWith(realCliBinDir('claude-code')),
      HOME: home.dir,
      CLAUDE_CONFIG_DIR: path.join(home.dir, '.claude'),
      XDG_STATE_HOME: path.join(home.dir, 'state'),
      XDG_CONFIG_HOME: path.join(home.dir, 'config'),
      XDG_DATA_HOME: path.join(home.dir, 'data'),
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: 'dummy',
    };
    // Spawn per chat: the abort test below sees the process go. (A warm Claude Code process is
    // interrupted and kept instead; the adapter's own tests cover that.)
    provider = createToolbridge({ options: { adapters: [createClaudeCodeAdapter({ warm: false })], env } });
  });
  afterAll(async () => {
    await provider.close();
    await server.close();
    await home.cleanup();
  });
  const messageRequests = () => server.requests.filter((r) => r.method === 'POST' && r.url.startsWith('/v1/messages?'));

  it('generateText: the answer, integer usage, the session and the tool’s facts; the prompt reached the model', async () => {
    server.behavior = { mode: 'ok', text: 'Hello from mock' };
    const before = messageRequests().length;
    const r = await generateText({ model: provider('claude-code'), system: 'Answer tersely.', prompt: 'Say hello' });
    expect(r.text).toBe('Hello from mock');
    expect(r.usage).toMatchObject({ inputTokens: 21, outputTokens: 5 });
    expect(r.finishReason).toBe('stop');
    expect(r.providerMetadata?.toolbridge).toMatchObject({
      toolId: 'claude-code',
      sessionId: expect.stringMatching(/^tbs_/),
      fallbackUsed: false,
      toolMetadata: { numTurns: 1 },
    });
    const body = messageRequests()[before]!.body as { system: Array<{ text: string }>; messages: unknown[] };
    expect(body.system.map((s) => s.text)).toContain('Answer tersely.');
    expect(JSON.stringify(body.messages)).toContain('Say hello');
  }, 120_000);

  it('streamText: the answer arrives in pieces as the model streams it', async () => {
    server.behavior = { mode: 'ok', text: 'Streaming works fine' };
    const result = streamText({ model: provider('claude-code'), prompt: 'Say something' });
    const pieces: string[] = [];
    for await (const text of result.textStream) pieces.push(text);
    expect(pieces.length).toBeGreaterThanOrEqual(2);
    expect(pieces.join('')).toBe('Streaming works fine');
    expect((await result.providerMetadata)?.toolbridge).toMatchObject({ toolId: 'claude-code' });
  }, 120_000);

  it('abort: a claude waiting on a model that never answers is killed with its process group', async () => {
    server.behavior = { mode: 'hang' };
    const before = messageRequests().length;
    const controller = new AbortController();
    const result = streamText({ model: provider('claude-code'), prompt: 'Hi', abortSignal: controller.signal });
    let pids: number[] = [];
    const watcher = setInterval(() => {
      pids = processesWithEnv(`HOME=${home.dir}`);
      // Abort once the real claude runs and has asked the model.
      if (pids.length > 0 && messageRequests().length > before) controller.abort();
    }, 100);
    const types: string[] = [];
    try {
      for await (const p of result.fullStream) types.push(p.type);
    } finally {
      clearInterval(watcher);
    }
    expect(types).toContain('abort');
    expect(pids.length).toBeGreaterThan(0);
    expect(await waitForPidsGone(pids, 10_000)).toEqual([]);
  }, 120_000);
});
