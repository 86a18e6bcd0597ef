import { describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  InvalidRequestError,
  ProviderExecutionError,
  QuotaExceededError,
  RateLimitError,
  TimeoutError,
  ToolAuthError,
  type ChatMessage,
  type StreamEvent,
} from '@toolbridge/core';
import { validateChatRequest } from '@toolbridge/core/runtime';
import { makeTempDir, waitForPidsGone } from '@toolbridge/test-suite/kit';
import { renderConversation } from '@toolbridge/adapter-kit';
import { capture, readPids, readRecords, stdinLines } from './testing/fake-claude.js';
import { fakeSetups } from './testing/setup.js';
import { STATE_FILE_NAME } from './usage-limits.js';

const { setup, defer } = fakeSetups();

/**
 * A recording with its reset epochs moved to `offsetsS` seconds from now: the
 * adapter rightly ignores windows whose reset has passed, so replaying the
 * recorded (past) times would test nothing after the day they were recorded.
 */
async function withFutureResets(name: string, offsetsS: Record<number, number>): Promise<{ stdout: string; at: Record<number, number> }> {
  let stdout = await readFile(capture(name), 'utf8');
  const base = Math.floor(Date.now() / 1000);
  const at: Record<number, number> = {};
  for (const [recorded, offset] of Object.entries(offsetsS)) {
    at[Number(recorded)] = base + offset;
    stdout = stdout.split(recorded).join(String(base + offset));
  }
  return { stdout, at };
}

const ok = { chat: { stdoutFile: capture('claude-partial-stream.out') } };
const hello = { messages: [{ role: 'user' as const, content: 'Say hello' }] };

describe('chat', () => {
  const conversation: ChatMessage[] = [
    { role: 'system', content: 'SYSTEM-SECRET be terse' },
    { role: 'user', content: 'USER-SECRET first question' },
    { role: 'assistant', content: 'an answer' },
    { role: 'user', content: 'USER-SECRET follow-up' },
  ];

  it('runs print mode with safe flags; prompt on stdin, system prompt in a private file, the session’s private cwd', async () => {
    const s = await setup(ok);
    const result = await s.registry.chat('claude-code', { messages: conversation });
    expect(result.message).toEqual({ role: 'assistant', content: 'Hello from mock' });
    expect(result.usage).toEqual({ input_tokens: 21, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 5 });
    expect(result.model).toBe('claude-sonnet-5-5');
    expect(result.metadata).toMatchObject({
      toolId: 'claude-code',
      numTurns: 1,
      nativeSessionId: expect.any(String),
      totalCostUsd: expect.any(Number),
    });
    expect(result.sessionId).toMatch(/^tbs_/);

    const [run] = await readRecords(s.recordFile);
    expect(run!.argv.slice(0, 7)).toEqual([
      '-p',
      '--input-format',
      'stream-json',
      '--output-format',
      'stream-json',
      '--verbose',
      '--include-partial-messages',
    ]);
    const flag = (name: string) => run!.argv[run!.argv.indexOf(name) + 1];
    expect(run!.argv).toContain('--tools');
    expect(flag('--tools')).toBe('');
    expect(run!.argv).toContain('--strict-mcp-config');
    expect(flag('--permission-prompts')).toBe('none');
    // Kept, so the session can be resumed.
    expect(run!.argv).not.toContain('--no-session-persistence');
    expect(run!.argv).not.toContain('--model');
    expect(run!.argv).not.toContain('--dangerously-skip-permissions');
    for (const a of run!.argv) expect(a).not.toMatch(/SECRET/);
    const rendered = renderConversation((await validateChatRequest({ messages: conversation })).messages, { includeSystem: false });
    expect(stdinLines(run!)).toEqual([
      { type: 'user', message: { role: 'user', content: [{ type: 'text', text: rendered }] }, parent_tool_use_id: null },
    ]);
    expect(run!.stdin).not.toMatch(/SYSTEM-SECRET/);
    expect(run!.systemPrompt).toEqual({ text: 'SYSTEM-SECRET be terse', mode: 0o600 });
    expect(path.basename(flag('--system-prompt-file')!)).toBe('system-prompt.md');
    expect(run!.env.CLAUDE_CODE_MAX_RETRIES).toBe('0');
    // A private TMPDIR beside the system prompt, gone with it.
    expect(path.dirname(run!.env.TMPDIR!)).toBe(path.dirname(flag('--system-prompt-file')!));
    expect(run!.tmpdirMode).toBe(0o700);
    // The working directory is the session's own (0700, kept with the session); the system prompt's scratch directory is gone.
    expect(run!.cwd).toBe(path.join(s.stateDir, 'sessions', result.sessionId!, 'work'));
    expect((await stat(run!.cwd)).mode & 0o777).toBe(0o700);
    expect(existsSync(path.dirname(flag('--system-prompt-file')!))).toBe(false);
  });

  it('a lone user message goes on stdin as is, with no system prompt flag', async () => {
    const s = await setup(ok);
    await s.registry.chat('claude-code', hello);
    const [run] = await readRecords(s.recordFile);
    expect(stdinLines(run!)[0]!.message.content).toEqual([{ type: 'text', text: 'Say hello' }]);
    expect(run!.argv.some((a) => a.includes('system-prompt'))).toBe(false);
  });

  it('applies config, request model and cwd, and adapter options', async () => {
    const { dir, cleanup } = await makeTempDir();
    defer(cleanup);
    const s = await setup(
      ok,
      { maxRetries: 2, persistSessions: false, extraArgs: ['--effort', 'low'] },
      {
        claudeCodeModel: 'opus',
        claudeCodeMaxTurns: 3,
        claudeCodeToolAccess: 'read-only',
      },
    );
    await s.registry.chat('claude-code', { messages: [{ role: 'system', content: 'sys' }, ...hello.messages], model: 'haiku', cwd: dir });
    const [run] = await readRecords(s.recordFile);
    const flag = (name: string) => run!.argv[run!.argv.indexOf(name) + 1];
    expect(flag('--model')).toBe('haiku');
    expect(flag('--max-turns')).toBe('3');
    expect(flag('--tools')).toBe('Read,Glob,Grep');
    expect(flag('--permission-mode')).toBe('dontAsk');
    expect(run!.argv).toContain('--append-system-prompt-file');
    expect(run!.argv).toContain('--no-session-persistence');
    expect(run!.argv.slice(-2)).toEqual(['--effort', 'low']);
    expect(run!.env.CLAUDE_CODE_MAX_RETRIES).toBe('2');
    expect(run!.cwd).toBe(dir);
  });

  it('maps the tool-access levels to Claude Code flags', async () => {
    const s = await setup(ok);
    const seen: Record<string, string[]> = {};
    for (const level of ['edit', 'workspace-write'] as const) {
      s.registry.config.replace({ claudeCodeToolAccess: level });
      await s.registry.chat('claude-code', hello);
      seen[level] = (await readRecords(s.recordFile)).at(-1)!.argv;
    }
    expect(seen.edit![seen.edit!.indexOf('--tools') + 1]).toBe('Read,Glob,Grep,Edit,Write,NotebookEdit');
    expect(seen.edit![seen.edit!.indexOf('--permission-mode') + 1]).toBe('acceptEdits');
    expect(seen['workspace-write']![seen['workspace-write']!.indexOf('--tools') + 1]).toBe('Read,Glob,Grep,Edit,Write,NotebookEdit,Bash');
  });

  it('rejects a cwd that is not a directory without running claude', async () => {
    const s = await setup(ok);
    await expect(s.registry.chat('claude-code', { ...hello, cwd: path.join(s.dir, 'missing') })).rejects.toBeInstanceOf(
      InvalidRequestError,
    );
    expect(await readRecords(s.recordFile)).toEqual([]);
  });

  it('streams deltas as they arrive, then one result', async () => {
    const s = await setup({ chat: { stdoutFile: capture('claude-partial-stream.out'), delayMs: 20 } });
    const events: StreamEvent[] = [];
    for await (const e of s.registry.stream('claude-code', hello)) events.push(e);
    expect(events.map((e) => e.type)).toEqual(['delta', 'delta', 'result']);
    expect(
      events
        .filter((e) => e.type === 'delta')
        .map((e) => (e as { text: string }).text)
        .join(''),
    ).toBe('Hello from mock');
  });

  it('a consumer that stops early leaves no claude process behind', async () => {
    const s = await setup({ chat: { stdoutFile: capture('claude-partial-stream.out'), hang: true } });
    for await (const e of s.registry.stream('claude-code', hello)) if (e.type === 'delta') break;
    const pids = await readPids(s.pidFile);
    expect(pids).toHaveLength(1);
    expect(await waitForPidsGone(pids)).toEqual([]);
  });
});

describe('failures', () => {
  const fail = async (chat: object) => {
    const s = await setup({ chat });
    const error = await s.registry.chat('claude-code', hello, { timeoutMs: 20_000 }).catch((e) => e);
    return { error, s };
  };

  it('logged out → ToolAuthError', async () => {
    const { error } = await fail({ stdoutFile: capture('claude-p-stream.out'), exitCode: 1 });
    expect(error).toBeInstanceOf(ToolAuthError);
    expect(error).toMatchObject({ toolId: 'claude-code', httpStatus: 401 });
  });

  it('401 → ToolAuthError; 429 and 529 → retryable RateLimitError', async () => {
    expect((await fail({ stdoutFile: capture('claude-401-stream.out'), exitCode: 1 })).error).toBeInstanceOf(ToolAuthError);
    for (const f of ['claude-429-stream.out', 'claude-529-stream.out']) {
      const { error } = await fail({ stdoutFile: capture(f), exitCode: 1 });
      expect(error).toBeInstanceOf(RateLimitError);
      expect(error).toMatchObject({ retryable: true, toolId: 'claude-code' });
    }
  });

  it('a used-up window → QuotaExceededError; the registry cools the tool down until the reset', async () => {
    const { stdout, at } = await withFutureResets('claude-quota-stream.out', { 1795322251: 3600 });
    const { error, s } = await fail({ stdout, exitCode: 1 });
    expect(error).toBeInstanceOf(QuotaExceededError);
    expect((error as QuotaExceededError).resetsAt).toEqual(new Date(at[1795322251]! * 1000));
    expect(s.registry.state('claude-code')).toMatchObject({ coolDownReason: 'quota_exceeded', coolDownUntil: at[1795322251]! * 1000 });
  });

  it('garbage, a crash and a missing result → ProviderExecutionError with the stderr tail', async () => {
    const garbage = (await fail({ stdout: 'Welcome to Claude!\n\u001b[31mnope\u001b[0m\n' })).error;
    expect(garbage).toBeInstanceOf(ProviderExecutionError);
    expect(garbage.message).toMatch(/not stream-json/);
    const crash = (await fail({ stderr: 'panic: something broke\n', exitCode: 134 })).error;
    expect(crash).toBeInstanceOf(ProviderExecutionError);
    expect(crash.message).toMatch(/\(it exited with code 134\): panic: something broke/);
    const truncated = (await fail({ stdout: '{"type":"system","subtype":"init","model":"m"}\n' })).error;
    expect(truncated).toBeInstanceOf(ProviderExecutionError);
    expect(truncated.message).toMatch(/ended without a result/);
  });

  it('a hanging claude → TimeoutError, and its process group is gone', async () => {
    const partial = (await readFile(capture('claude-partial-stream.out'), 'utf8')).split('\n').slice(0, 5).join('\n') + '\n';
    const s = await setup({ chat: { stdout: partial, hang: true } });
    const started = Date.now();
    const error = await s.registry.chat('claude-code', hello, { timeoutMs: 800 }).catch((e) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(Date.now() - started).toBeLessThan(10_000);
    const pids = await readPids(s.pidFile);
    expect(pids).toHaveLength(1);
    expect(await waitForPidsGone(pids)).toEqual([]);
  });
});

describe('usage limits', () => {
  it('none observed → unavailable with a reason', async () => {
    const s = await setup({});
    expect((await s.registry.health('claude-code')).usageLimits).toMatchObject({ status: 'unavailable', reason: expect.any(String) });
  });

  it('a rate_limit_event is persisted (0600) and reported by a new adapter instance', async () => {
    const { stdout, at } = await withFutureResets('claude-rl.out', { 1795322251: 3600, 1795405051: 86_400 });
    const s = await setup({
      chat: { stdout },
      authStatus: { stdout: '{"loggedIn":true,"authMethod":"claude.ai","subscriptionType":"max"}\n' },
    });
    const tool = await s.registry.connect('claude-code');
    expect(await tool.checkAuth!()).toEqual({ authenticated: true, method: 'claude.ai', plan: 'max' });
    await tool.chat(hello);
    const file = path.join(s.stateDir, STATE_FILE_NAME);
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    // A fresh adapter (a restarted bridge) reads the snapshot back.
    const fresh = await setup({ authStatus: { stdoutFile: capture('claude-auth-status-oauthenv.out') } }, { stateDir: s.stateDir });
    const health = await fresh.registry.health('claude-code');
    expect(health.usageLimits).toEqual({
      status: 'available',
      source: 'local_session',
      plan: 'max',
      observedAt: expect.any(String),
      windows: {
        five_hour: {
          usedPercentage: 42,
          remainingPercentage: 58,
          resetsAt: new Date(at[1795322251]! * 1000).toISOString(),
          windowMinutes: 300,
        },
        seven_day: {
          usedPercentage: 7,
          remainingPercentage: 93,
          resetsAt: new Date(at[1795405051]! * 1000).toISOString(),
          windowMinutes: 10080,
        },
      },
    });
    expect(health).toMatchObject({ authenticated: true, authStatus: 'authenticated', authMethod: 'oauth_token' });
  });
});
