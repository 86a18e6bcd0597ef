import { describe, expect, it } from '@jest/globals';
import { waitForPidsGone } from '@toolbridge/test-suite/kit';
import { AbortedError, FallbackExhaustedError, TimeoutError, ToolAuthError, ToolbridgeError, ToolUnavailableError } from './index.js';
import { useToolbridgeFixture } from './testing/fixture.js';

const hello = { messages: [{ role: 'user' as const, content: 'Say hello (secret prompt 42)' }] };
const { setup } = useToolbridgeFixture();

describe('toolbridge fallback chat over the default adapters, end to end', () => {
  it('falls back past a logged-out tool, then skips it in preflight', async () => {
    const { tb, clis } = await setup();
    await clis.setMode('claude', 'logged_out');
    const first = await tb.chat(hello, { providers: ['claude-code', 'codex'], timeoutMs: 30_000 });
    expect(first).toMatchObject({
      toolId: 'codex',
      type: 'agent',
      fallbackUsed: true,
      result: { message: { content: 'Hello from mock' } },
    });
    expect(first.attempts.map((a) => [a.toolId, a.stage, a.outcome, a.reason])).toEqual([
      ['claude-code', 'execution', 'failed', 'unauthenticated'],
      ['codex', 'execution', 'succeeded', undefined],
    ]);
    const chatsBefore = (await clis.runs('claude')).filter((r) => r.argv[0] === '-p').length;
    const second = await tb.chat(hello, { providers: ['claude-code', 'codex'] });
    expect(second.attempts[0]).toMatchObject({ toolId: 'claude-code', stage: 'preflight', outcome: 'skipped', reason: 'unauthenticated' });
    expect((await clis.runs('claude')).filter((r) => r.argv[0] === '-p').length).toBe(chatsBefore);
  });

  it('skips a tool that is not installed and reports it typed', async () => {
    const { tb } = await setup({}, ['codex']);
    const response = await tb.chat(hello, { providers: ['opencode', 'codex'] });
    expect(response.attempts[0]).toMatchObject({ toolId: 'opencode', stage: 'preflight', outcome: 'skipped', reason: 'unavailable' });
    expect(response.toolId).toBe('codex');
    const error = await tb.connect('claude-code').catch((e) => e);
    expect(error).toBeInstanceOf(ToolUnavailableError);
    expect(error).toMatchObject({ code: 'tool_unavailable', httpStatus: 503, toolId: 'claude-code' });
  });

  it('throws FallbackExhaustedError with the attempts when every tool fails', async () => {
    const { tb, clis } = await setup();
    await clis.setMode('claude', 'logged_out');
    await clis.setMode('codex', 'fail');
    const error = await tb.chat(hello, { providers: ['codex', 'claude-code'] }).catch((e) => e);
    expect(error).toBeInstanceOf(FallbackExhaustedError);
    expect(error).toBeInstanceOf(ToolbridgeError);
    expect(error).toMatchObject({ code: 'tool_auth_required', httpStatus: 401 });
    expect((error as FallbackExhaustedError).lastError).toBeInstanceOf(ToolAuthError);
    expect((error as FallbackExhaustedError).attempts.map((a) => [a.toolId, a.outcome])).toEqual([
      ['codex', 'failed'],
      ['claude-code', 'failed'],
    ]);
  });

  it('times out a hanging tool with TimeoutError and kills its process', async () => {
    const { tb, clis } = await setup();
    await clis.setMode('codex', 'hang');
    const error = await tb.chatWith('codex', hello, { timeoutMs: 800 }).catch((e) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(TimeoutError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'timeout', httpStatus: 504, toolId: 'codex' });
    const pids = (await clis.runs('codex')).filter((r) => r.argv[0] === 'exec').map((r) => r.pid);
    expect(pids).toHaveLength(1);
    expect(await waitForPidsGone(pids, 5000)).toEqual([]);
  });

  it('a caller abort during a fallback chat kills the running tool and throws AbortedError', async () => {
    const { tb, clis } = await setup();
    await clis.setMode('codex', 'hang');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 700);
    const error = await tb.chat(hello, { providers: ['codex', 'opencode'], signal: controller.signal }).catch((e) => e);
    expect(error).toBeInstanceOf(AbortedError);
    const pids = (await clis.runs('codex')).filter((r) => r.argv[0] === 'exec').map((r) => r.pid);
    expect(await waitForPidsGone(pids, 5000)).toEqual([]);
    expect((await clis.runs('opencode')).filter((r) => r.argv[0] === 'run')).toHaveLength(0);
  });

  it('an overall deadline ends a fallback chat as a 504 carrying the attempts', async () => {
    const { tb, clis } = await setup();
    await clis.setMode('codex', 'hang');
    const error = await tb.chat(hello, { providers: ['codex', 'opencode'], timeoutMs: 800 }).catch((e) => e);
    expect(error).toBeInstanceOf(FallbackExhaustedError);
    expect(error).toMatchObject({ code: 'timeout', httpStatus: 504 });
    expect((error as FallbackExhaustedError).attempts).toEqual([expect.objectContaining({ toolId: 'codex', reason: 'timeout' })]);
  });

  it('defaults providers to every tool in registry order', async () => {
    const { tb, clis } = await setup();
    await clis.setMode('codex', 'fail');
    const response = await tb.chat(hello);
    expect(response.toolId).toBe('claude-code');
    expect(response.fallbackUsed).toBe(true);
    expect(response.attempts[0]).toMatchObject({ toolId: 'codex', outcome: 'failed' });
  });

  it('streams a fallback chat: attempts, deltas, done', async () => {
    const { tb, clis } = await setup();
    await clis.setMode('codex', 'fail');
    const kinds: string[] = [];
    let done;
    for await (const e of tb.streamChat(hello, { providers: ['codex', 'ollama'] })) {
      kinds.push(e.type);
      if (e.type === 'done') done = e.response;
    }
    // Codex reports a progress item before it fails; that is passed through, and fallback is still allowed before a delta.
    expect(kinds.indexOf('attempt')).toBeGreaterThanOrEqual(0);
    expect(kinds.indexOf('attempt')).toBeLessThan(kinds.indexOf('delta'));
    expect(kinds.at(-1)).toBe('done');
    expect(done).toMatchObject({ toolId: 'ollama', fallbackUsed: true, result: { message: { content: 'Hello from ollama' } } });
  });
});
