import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import path from 'node:path';
import { TimeoutError, ToolAuthError, type ChatRequest, type StreamEvent } from '@toolbridge/core';
import { createRegistry, type ToolRegistry } from '@toolbridge/core/runtime';
import { processesWithEnv, waitFor } from '@toolbridge/test-suite/kit';
import { createQwenCodeAdapter } from './adapter.js';
import { startMockQwenServer, type MockQwenServer } from './testing/mock-openai.js';
import { realQwenHome, type RealQwenHome } from './testing/real.js';

/**
 * The real, pinned `qwen` (installed by `pnpm clis`, run on the pinned Node 22) driven end to end
 * through the adapter against a mock OpenAI chat completions server on 127.0.0.1, in a throwaway
 * HOME and QWEN_HOME. A run takes seconds here (Qwen Code's start-up), so each test is bounded generously.
 */

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
let mock: MockQwenServer;
let registry: ToolRegistry;
let real: RealQwenHome;

beforeAll(async () => {
  mock = await startMockQwenServer();
  real = await realQwenHome(mock.baseURL);
  registry = createRegistry({ adapters: [createQwenCodeAdapter({ warm: false })], env: real.env });
});

afterAll(async () => {
  await registry?.close();
  await mock?.close();
  await real?.cleanup();
});

/** Live processes started with this test's HOME: qwen and anything it spawned. */
const qwenLeft = () => processesWithEnv(`HOME=${real.home}`);
const ask = (content: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({ messages: [{ role: 'user', content }], ...extra });
const sent = (r: { json?: unknown }) => JSON.stringify((r.json as { messages?: unknown }).messages);
const turnsSince = (n: number) => mock.turns().filter((r) => mock.requests.indexOf(r) >= n);

describe('real qwen 0.24.4 (Node 22) against a mock OpenAI server', () => {
  it('detects the version and the settings’ model, and reads the sign-in offline', async () => {
    const [tool] = await registry.discover();
    expect(tool).toMatchObject({ id: 'qwen-code', available: true, version: '0.24.4', defaultModel: 'mock-model', models: ['mock-model'] });
    const adapter = await registry.connect('qwen-code');
    expect(await adapter.checkAuth!()).toEqual({ authenticated: true, method: 'openai' });
  }, 60_000);

  it('is unavailable, saying why, when the only Node it finds is older than 22', async () => {
    const old = createRegistry({ adapters: [createQwenCodeAdapter()], env: { ...real.env, TOOLBRIDGE_QWEN_NODE: process.execPath } });
    try {
      const [tool] = await old.discover();
      if (Number(process.versions.node.split('.')[0]) >= 22) return expect(tool!.available).toBe(true);
      expect(tool).toMatchObject({ available: false, reason: expect.stringContaining('needs Node >= 22') });
      expect(tool!.reason).toContain(process.version.slice(1));
    } finally {
      await old.close();
    }
  }, 60_000);

  it('chats: the mock’s text and the turn’s usage (not the memory request’s), prompt from stdin, nothing left running', async () => {
    mock.fallback = { kind: 'text', chunks: ['Hello ', 'from ', 'mock'] };
    const before = mock.requests.length;
    const result = await registry.chat('qwen-code', ask('PROMPT-MARKER-7731 say hello'), { timeoutMs: 120_000 });
    expect(result.message).toEqual({ role: 'assistant', content: 'Hello from mock' });
    expect(result.usage).toEqual({ input_tokens: 20, cached_input_tokens: 5, output_tokens: 7, total_tokens: 27 });
    expect(result.model).toBe('mock-model');
    expect(result.metadata).toMatchObject({
      toolId: 'qwen-code',
      transport: 'spawn',
      nativeSessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      permissions: { requested: 'read-only', applied: 'read-only' },
    });
    const turn = turnsSince(before)[0]!;
    expect(turn.headers.authorization).toBe('Bearer mock-key');
    expect(sent(turn)).toContain('PROMPT-MARKER-7731 say hello');
    // Read-only runs in plan mode: the model is offered no shell and no file writer.
    const offered = (turn.json as { tools: Array<{ function: { name: string } }> }).tools.map((t) => t.function.name);
    expect(offered).toContain('read_file');
    expect(offered).not.toContain('run_shell_command');
    expect(offered).not.toContain('write_file');
    await waitFor(() => qwenLeft().length === 0, 10_000, 'qwen to exit');
  }, 180_000);

  it('streams the answer as deltas before the result', async () => {
    mock.fallback = { kind: 'text', chunks: ['Hello ', 'from ', 'mock'] };
    const events: StreamEvent[] = [];
    for await (const e of registry.stream('qwen-code', ask('stream please'), { timeoutMs: 120_000 })) events.push(e);
    expect(events.flatMap((e) => (e.type === 'delta' ? [e.text] : []))).toEqual(['Hello ', 'from ', 'mock']);
    expect(events.at(-1)?.type).toBe('result');
  }, 180_000);

  it('answers JSON natively through --json-schema (the structured_output tool), in one model call', async () => {
    mock.queue.push({ kind: 'call', name: 'structured_output', args: { city: 'Paris', population: 2 } });
    const before = mock.requests.length;
    const result = await registry.chat(
      'qwen-code',
      ask('a city', {
        responseFormat: {
          type: 'json_schema',
          schema: { type: 'object', properties: { city: { type: 'string' }, population: { type: 'integer' } }, required: ['city'] },
        },
      }),
      { timeoutMs: 120_000 },
    );
    expect(result.object).toEqual({ city: 'Paris', population: 2 });
    const turns = turnsSince(before);
    expect(turns).toHaveLength(1);
    const tool = (turns[0]!.json as { tools: Array<{ function: { name: string; parameters: unknown } }> }).tools.find(
      (t) => t.function.name === 'structured_output',
    );
    expect(tool?.function.parameters).toMatchObject({ properties: { city: { type: 'string' } } });
  }, 180_000);

  it('continues a session natively, and forks it', async () => {
    mock.fallback = { kind: 'text', chunks: ['The number is 42.'] };
    const first = await registry.chat('qwen-code', ask('remember FIRST-TURN-6610'), { timeoutMs: 120_000 });
    mock.fallback = { kind: 'text', chunks: ['Still 42.'] };
    const before = mock.requests.length;
    const second = await registry.chat('qwen-code', ask('what was it?', { sessionId: first.sessionId }), { timeoutMs: 120_000 });
    expect(second.sessionId).toBe(first.sessionId);
    expect(second.metadata.nativeSessionId).toBe(first.metadata.nativeSessionId);
    const resumed = sent(turnsSince(before)[0]!);
    expect(resumed).toContain('FIRST-TURN-6610');
    expect(resumed).toContain('The number is 42.');
    const forkAt = mock.requests.length;
    const fork = await registry.chat('qwen-code', ask('and now?', { sessionId: first.sessionId, fork: true }), { timeoutMs: 120_000 });
    expect(fork.sessionId).not.toBe(first.sessionId);
    expect(fork.metadata.nativeSessionId).not.toBe(first.metadata.nativeSessionId);
    const forked = sent(turnsSince(forkAt)[0]!);
    expect(forked).toContain('FIRST-TURN-6610');
    expect(forked).toContain('and now?');
  }, 360_000);

  it('sends an image to a model that takes images', async () => {
    mock.fallback = { kind: 'text', chunks: ['A pixel.'] };
    const before = mock.requests.length;
    const result = await registry.chat(
      'qwen-code',
      {
        model: 'qwen3-vl-plus',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'what is this?' },
              { type: 'image', mediaType: 'image/png', data: PNG },
            ],
          },
        ],
      },
      { timeoutMs: 120_000 },
    );
    expect(result.message.content).toBe('A pixel.');
    // Qwen Code inlines the file it was pointed at (re-encoded as JPEG) as an image part.
    const parts = (turnsSince(before)[0]!.json as { messages: Array<{ content: unknown }> }).messages.at(-1)!.content;
    expect(parts).toContainEqual({ type: 'image_url', image_url: { url: expect.stringMatching(/^data:image\/(png|jpeg);base64,/) } });
  }, 180_000);

  it('workspace-write edits inside the working directory (a file_change step); read-only refuses the write', async () => {
    const cwd = await mkdtemp(path.join(real.home, 'work-'));
    const file = path.join(cwd, 'hello.txt');
    const write = { kind: 'call' as const, name: 'write_file', args: { file_path: file, content: 'written\n' } };
    mock.queue.push(write, { kind: 'text', chunks: ['Refused.'] });
    const denied = await registry.chat('qwen-code', ask('write it', { cwd, permissions: 'read-only' }), { timeoutMs: 120_000 });
    expect(existsSync(file)).toBe(false);
    expect(denied.activities).toEqual([expect.objectContaining({ kind: 'file_change', status: 'failed' })]);
    mock.queue.push(write, { kind: 'text', chunks: ['Done.'] });
    const allowed = await registry.chat('qwen-code', ask('write it', { cwd, permissions: 'workspace-write' }), { timeoutMs: 120_000 });
    expect(allowed.message.content).toBe('Done.');
    expect(allowed.activities).toEqual([
      expect.objectContaining({ kind: 'file_change', status: 'completed', changes: [{ path: 'hello.txt', kind: 'add' }] }),
    ]);
    expect(await readFile(file, 'utf8')).toBe('written\n');
  }, 360_000);

  it('full runs a shell command: a command step with its exit code', async () => {
    const cwd = await mkdtemp(path.join(real.home, 'work-'));
    mock.queue.push(
      { kind: 'call', name: 'run_shell_command', args: { command: 'echo made > made.txt' } },
      { kind: 'text', chunks: ['Ran.'] },
    );
    const result = await registry.chat('qwen-code', ask('run it', { cwd, permissions: 'full' }), { timeoutMs: 120_000 });
    expect(result.activities).toEqual([
      expect.objectContaining({ kind: 'command', status: 'completed', command: 'echo made > made.txt', exitCode: 0 }),
    ]);
    expect(existsSync(path.join(cwd, 'made.txt'))).toBe(true);
  }, 180_000);

  it('mock 401 → ToolAuthError', async () => {
    mock.queue.push({ kind: 'error', status: 401, message: 'Incorrect API key provided' });
    const e = await registry.chat('qwen-code', ask('hi'), { timeoutMs: 120_000 }).catch((x) => x);
    expect(e).toBeInstanceOf(ToolAuthError);
    expect(e).toMatchObject({ code: 'tool_auth_required', toolId: 'qwen-code' });
    expect(e.message).toContain('Incorrect API key provided');
  }, 180_000);

  it('a hanging model is ended by the timeout with no qwen process left', async () => {
    mock.queue.push({ kind: 'hang' });
    let seen: number[] = [];
    const pending = registry.chat('qwen-code', ask('hi'), { timeoutMs: 20_000 }).catch((x) => x);
    await waitFor(() => (seen = qwenLeft()).length > 0, 10_000, 'qwen to start');
    const e = await pending;
    expect(e).toBeInstanceOf(TimeoutError);
    expect(seen.length).toBeGreaterThan(0);
    await waitFor(() => qwenLeft().length === 0, 10_000, 'qwen processes to exit');
  }, 120_000);
});
