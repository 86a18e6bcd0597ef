import { afterAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  InvalidRequestError,
  ProviderExecutionError,
  QuotaExceededError,
  RateLimitError,
  TimeoutError,
  ToolAuthError,
  type ChatRequest,
  type StreamEvent,
  type ToolbridgeConfig,
} from '@toolbridge/core';
import { createCallContext, createRegistry } from '@toolbridge/core/runtime';
import { adapterChat, adapterStream, pathWithout, waitForPidsGone } from '@toolbridge/test-suite/kit';
import { createOpenCodeAdapter } from './index.js';
import { capture } from './testing/captures.js';
import { eventLine, fakeOpenCodes, type FakeOpenCode, type FakeOpenCodeSpec } from './testing/fake-opencode.js';

const fakes = fakeOpenCodes();
afterAll(() => fakes.cleanup());
const fake = fakes.fake;

function ctxOf(env: NodeJS.ProcessEnv, config: ToolbridgeConfig = {}, timeoutMs?: number) {
  return createCallContext({ config, env, toolId: 'opencode' }, { timeoutMs });
}

const hello: ChatRequest = { messages: [{ role: 'user', content: 'Say hello' }] };

// The fake opencode has no `serve`: these chats are the spawn path's (the warm one is in real-opencode-warm*.test.ts).
async function chat(f: FakeOpenCode, request: ChatRequest = hello, config: ToolbridgeConfig = {}, options = {}) {
  const { ctx, done } = ctxOf(f.env, config, 10_000);
  try {
    return await adapterChat(createOpenCodeAdapter({ warm: false, ...options }), request, ctx);
  } finally {
    done();
  }
}

async function chatError(f: FakeOpenCode, config: ToolbridgeConfig = {}) {
  return chat(f, hello, config).then(
    () => {
      throw new Error('expected the chat to fail');
    },
    (e: unknown) => e,
  );
}

describe('detect', () => {
  it('reads the version and the model list from the real outputs', async () => {
    const f = await fake();
    const { ctx, done } = ctxOf(f.env);
    const d = await createOpenCodeAdapter().detect(ctx);
    done();
    expect(d).toEqual({
      available: true,
      version: '1.18.33',
      models: capture('opencode-models.out').trim().split('\n'),
      defaultModel: 'opencode/big-pickle',
    });
    const argvs = (await f.invocations()).map((i) => i.argv);
    expect(argvs).toEqual(expect.arrayContaining([['--version'], ['models', '--verbose']]));
    expect(argvs).toHaveLength(2);
  });

  it('uses the configured model as the default, listing it even when OpenCode does not', async () => {
    const f = await fake();
    const { ctx, done } = ctxOf(f.env, { opencodeModel: 'opencode/space-bunny-free' });
    const listed = await createOpenCodeAdapter().detect(ctx);
    expect(listed.defaultModel).toBe('opencode/space-bunny-free');
    expect(listed.models).toHaveLength(8);
    const other = await createOpenCodeAdapter().detect({ ...ctx, config: { opencodeModel: 'mock/mock-model' } });
    done();
    expect(other.defaultModel).toBe('mock/mock-model');
    expect(other.models[0]).toBe('mock/mock-model');
    expect(other.models).toHaveLength(9);
  });

  it('skips ANSI colour, blank lines and non-model lines in the model list', async () => {
    const f = await fake({
      models: {
        stdout:
          'Warning: cache is stale\n\n\u001b[1manthropic/claude-sonnet-4-5\u001b[0m\n  opencode/big-pickle  \n{"json":1}\nnot a model\n',
      },
    });
    const { ctx, done } = ctxOf(f.env);
    const d = await createOpenCodeAdapter().detect(ctx);
    done();
    expect(d.models).toEqual(['anthropic/claude-sonnet-4-5', 'opencode/big-pickle']);
  });

  it('stays available when the model listing fails, its models and capabilities unknown (never "none")', async () => {
    const f = await fake({ models: { stderr: 'Error: database is locked\n', exitCode: 1 } });
    const { ctx, done } = ctxOf(f.env);
    const d = await createOpenCodeAdapter().detect(ctx);
    done();
    expect(d).toEqual({ available: true, version: '1.18.33', models: [], unknown: ['models', 'defaultModel', 'capabilities'] });
  });

  it('reports a missing binary as not installed', async () => {
    const { ctx, done } = ctxOf({ PATH: pathWithout() });
    const d = await createOpenCodeAdapter().detect(ctx);
    done();
    expect(d.available).toBe(false);
    expect(d.reason).toMatch(/not installed/);
  });

  it('bounds a --version that never answers', async () => {
    const f = await fake({ version: { hang: true }, models: { hang: true } });
    const { ctx, done } = ctxOf(f.env);
    const d = await createOpenCodeAdapter({ versionTimeoutMs: 300, modelsTimeoutMs: 300 }).detect(ctx);
    done();
    expect(d.available).toBe(false);
    expect(d.reason).toMatch(/did not answer within 300 ms/);
  });

  it('reports a --version that crashes', async () => {
    const f = await fake({ version: { stderr: 'Segmentation fault\n', exitCode: 139 } });
    const { ctx, done } = ctxOf(f.env);
    const d = await createOpenCodeAdapter().detect(ctx);
    done();
    expect(d.available).toBe(false);
    expect(d.reason).toContain('exited with code 139');
    expect(d.reason).toContain('Segmentation fault');
  });
});

describe('chat', () => {
  it('answers from the real event stream with usage and metadata', async () => {
    const f = await fake();
    const result = await chat(f, hello, { opencodeModel: 'mock/mock-model' });
    expect(result).toEqual({
      message: { role: 'assistant', content: 'Hello from mock' },
      usage: {
        input_tokens: 11,
        cached_input_tokens: 0,
        cache_write_input_tokens: 0,
        output_tokens: 4,
        reasoning_output_tokens: 0,
        total_tokens: 15,
      },
      model: 'mock/mock-model',
      metadata: {
        steps: 1,
        nativeSessionId: 'ses_dfeb65ab4ffek89bycDTFLfjRq',
        finishReason: 'stop',
        costUsd: 0,
        transport: 'spawn',
        permissions: {
          requested: 'read-only',
          applied: 'read-only',
          source: 'default',
          note: expect.stringContaining('removed from the model'),
        },
      },
    });
  });

  it('passes the prompt on stdin only, the model with -m, and runs in a temporary directory it removes', async () => {
    const f = await fake();
    const secret = 'prompt-secret-7b1c "quoted" --not-a-flag';
    await chat(
      f,
      { messages: [{ role: 'user', content: secret }] },
      { opencodeModel: 'mock/mock-model' },
      { extraArgs: ['--agent', 'plan'] },
    );
    const run = await f.lastRun();
    const inv = (await f.invocations()).find((i) => i.argv[0] === 'run')!;
    expect(run.argv.join(' ')).toBe(
      `run --format json --thinking --dir ${inv.cwd} -m mock/mock-model --title Toolbridge chat --agent plan`,
    );
    expect(run.stdin).toBe(secret);
    expect(JSON.stringify(run.argv)).not.toContain('prompt-secret');
    expect(path.basename(inv.cwd)).toMatch(/^toolbridge-opencode-/);
    expect(existsSync(inv.cwd)).toBe(false);
  });

  it('renders a conversation with labelled turns and lets the request choose model and directory', async () => {
    const f = await fake();
    const cwd = await mkdtemp(path.join(tmpdir(), 'toolbridge-oc-cwd-'));
    const result = await chat(
      f,
      {
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: 'Hello!' },
          { role: 'user', content: 'Name a colour' },
        ],
        model: 'anthropic/claude-sonnet-4-5',
        cwd,
      },
      { opencodeModel: 'mock/mock-model' },
    );
    expect(result.model).toBe('anthropic/claude-sonnet-4-5');
    const run = await f.lastRun();
    expect(run.argv.join(' ')).toBe(`run --format json --thinking --dir ${cwd} -m anthropic/claude-sonnet-4-5 --title Toolbridge chat`);
    expect(run.stdin).toContain('[System]\nBe brief.');
    expect(run.stdin).toContain('[Assistant]\nHello!');
    expect(run.stdin.endsWith('[User]\nName a colour')).toBe(true);
    const inv = (await f.invocations()).find((i) => i.argv[0] === 'run')!;
    expect(inv.cwd).toBe(cwd);
    expect(existsSync(cwd)).toBe(true);
    await rm(cwd, { recursive: true, force: true });
  });

  it('leaves the model to OpenCode when none is configured', async () => {
    const f = await fake();
    const result = await chat(f);
    expect((await f.lastRun()).argv).not.toContain('-m');
    expect(result.model).toBeUndefined();
  });

  it('rejects a malformed model or a missing directory before running anything', async () => {
    const f = await fake();
    await expect(chat(f, { ...hello, model: '--help' })).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(chat(f, { ...hello, model: 'no-provider' })).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(chat(f, { ...hello, cwd: path.join(tmpdir(), 'toolbridge-no-such-dir-oc') })).rejects.toBeInstanceOf(InvalidRequestError);
    expect(await f.invocations()).toEqual([]);
  });
});

describe('stream', () => {
  const multiStep =
    eventLine('step_start', { type: 'step-start' }) +
    eventLine('reasoning', { id: 'prt_r1', type: 'reasoning', text: 'Looking at the files' }) +
    eventLine('text', { id: 'prt_t1', type: 'text', text: 'Let me check.' }) +
    eventLine('tool_use', {
      id: 'prt_u1',
      type: 'tool',
      callID: 'call_1',
      tool: 'bash',
      state: { status: 'completed', title: 'ls', input: { command: 'ls' }, output: 'a.txt' },
    }) +
    eventLine('step_finish', {
      type: 'step-finish',
      reason: 'tool-calls',
      tokens: { total: 130, input: 100, output: 10, reasoning: 5, cache: { write: 5, read: 10 } },
      cost: 0.25,
    }) +
    eventLine('step_start', { type: 'step-start' }) +
    eventLine('text', { id: 'prt_t2', type: 'text', text: 'There is one file.' }) +
    eventLine('step_finish', {
      type: 'step-finish',
      reason: 'stop',
      tokens: { total: 60, input: 20, output: 8, reasoning: 2, cache: { write: 0, read: 30 } },
      cost: 0.5,
    });

  it('yields text parts, activity, and one result with usage summed over steps', async () => {
    const f = await fake({ run: { stdout: multiStep } });
    const { ctx, done } = ctxOf(f.env, { opencodeModel: 'anthropic/claude-sonnet-4-5' }, 10_000);
    const events: StreamEvent[] = [];
    for await (const e of adapterStream(createOpenCodeAdapter(), hello, ctx)) events.push(e);
    done();
    expect(events.map((e) => e.type)).toEqual(['activity', 'delta', 'activity', 'activity', 'delta', 'result']);
    expect(events[0]).toEqual({
      type: 'activity',
      activity: { kind: 'reasoning', id: 'prt_r1', status: 'completed', title: 'Looking at the files', text: 'Looking at the files' },
    });
    // `run` prints a tool once it has finished: the step is announced as started first.
    expect(events[2]).toMatchObject({ type: 'activity', activity: { kind: 'command', id: 'call_1', status: 'started', command: 'ls' } });
    expect(events[3]).toMatchObject({
      type: 'activity',
      activity: { kind: 'command', id: 'call_1', status: 'completed', title: 'ls', command: 'ls', outputTail: 'a.txt' },
    });
    const deltas = events.flatMap((e) => (e.type === 'delta' ? [e.text] : []));
    expect(deltas).toEqual(['Let me check.', '\n\nThere is one file.']);
    const last = events.at(-1)!;
    if (last.type !== 'result') throw new Error('no result');
    expect(last.result.message.content).toBe(deltas.join(''));
    expect(last.result.usage).toEqual({
      input_tokens: 165,
      cached_input_tokens: 40,
      cache_write_input_tokens: 5,
      output_tokens: 25,
      reasoning_output_tokens: 7,
      total_tokens: 190,
    });
    expect(last.result.metadata).toMatchObject({ steps: 2, finishReason: 'stop', costUsd: 0.75 });
  });

  it('delivers text before the tool exits, and a consumer that stops early ends the process', async () => {
    const f = await fake({ run: { stdout: eventLine('text', { type: 'text', text: 'first part' }), hang: true } });
    const { ctx, done } = ctxOf(f.env, {}, 20_000);
    const iterator = adapterStream(createOpenCodeAdapter(), hello, ctx)[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.value).toEqual({ type: 'delta', text: 'first part' });
    const pids = await f.pids();
    expect(pids).toHaveLength(1);
    await iterator.return!(undefined);
    done();
    expect(await waitForPidsGone(pids, 5000)).toEqual([]);
    const inv = (await f.invocations()).find((i) => i.argv[0] === 'run')!;
    expect(existsSync(inv.cwd)).toBe(false);
  });
});

describe('failures', () => {
  it('maps the recorded 429 to a RateLimitError with Retry-After', async () => {
    const f = await fake({ run: { stdout: capture('oc-err.out'), exitCode: 1 } });
    const e = await chatError(f);
    expect(e).toBeInstanceOf(RateLimitError);
    expect(e).not.toBeInstanceOf(QuotaExceededError);
    expect(e).toMatchObject({ code: 'rate_limited', retryable: true, toolId: 'opencode', retryAfterMs: 1000 });
    expect((e as Error).message).toContain('Rate limit reached');
  });

  it('maps the recorded 401 to a ToolAuthError', async () => {
    const f = await fake({ run: { stdout: capture('opencode-run-401.out'), exitCode: 1 } });
    const e = await chatError(f);
    expect(e).toBeInstanceOf(ToolAuthError);
    expect(e).toMatchObject({ code: 'tool_auth_required', httpStatus: 401, toolId: 'opencode' });
    expect((e as Error).message).toContain('Invalid API key');
  });

  it('maps the recorded UnknownError to a ProviderExecutionError with its message', async () => {
    const f = await fake({ run: { stdout: capture('opencode-run-json-anthropic.out'), exitCode: 1 } });
    const e = await chatError(f);
    expect(e).toBeInstanceOf(ProviderExecutionError);
    expect(e).toMatchObject({ toolId: 'opencode', retryable: false, details: { errorName: 'UnknownError' } });
    expect((e as Error).message).toContain('Unexpected server error. Check server logs for details.');
  });

  it('maps the recorded offline failure to a retryable ProviderExecutionError', async () => {
    const f = await fake({ run: { stdout: capture('opencode-run-offline.out'), exitCode: 1 } });
    const e = await chatError(f);
    expect(e).toBeInstanceOf(ProviderExecutionError);
    expect(e).toMatchObject({ toolId: 'opencode', retryable: true });
    expect((e as Error).message).toContain('Cannot connect to API');
  });

  it('reports a crash without events with the exit code and stderr tail', async () => {
    const f = await fake({ run: { stderr: 'panic: runtime error: index out of range\n', exitCode: 2 } });
    const e = await chatError(f);
    expect(e).toBeInstanceOf(ProviderExecutionError);
    expect((e as Error).message).toMatch(/exited with code 2: panic: runtime error/);
  });

  it('reports a process killed by a signal', async () => {
    const f = await fake({ run: { raw: "process.kill(process.pid, 'SIGKILL');" } });
    const e = await chatError(f);
    expect(e).toBeInstanceOf(ProviderExecutionError);
    expect((e as Error).message).toContain('SIGKILL');
  });

  it('fails on garbage output instead of returning an empty answer', async () => {
    const f = await fake({ run: { stdout: 'Segmentation fault\n<html>502 Bad Gateway</html>\n{"not":"an event"}\n{truncated\n' } });
    const e = await chatError(f);
    expect(e).toBeInstanceOf(ProviderExecutionError);
    expect((e as Error).message).toContain('no answer (4 unrecognised output lines)');
  });

  it('fails when a run succeeds without any text', async () => {
    const f = await fake({
      run: {
        stdout:
          eventLine('step_start', { type: 'step-start' }) +
          eventLine('step_finish', {
            type: 'step-finish',
            reason: 'stop',
            tokens: { total: 3, input: 3, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
          }),
      },
    });
    const e = await chatError(f);
    expect(e).toBeInstanceOf(ProviderExecutionError);
    expect((e as Error).message).toMatch(/finished with no answer/);
  });

  it('times out a run that never ends and leaves no process behind', async () => {
    const f = await fake({ run: { stdout: eventLine('step_start', { type: 'step-start' }), hang: true } });
    const registry = createRegistry({ adapters: [createOpenCodeAdapter()], env: f.env });
    const e = await registry.chat('opencode', hello, { timeoutMs: 3000 }).catch((x: unknown) => x);
    await registry.close();
    expect(e).toBeInstanceOf(TimeoutError);
    expect(e).toMatchObject({ toolId: 'opencode', httpStatus: 504 });
    const pids = await f.pids();
    expect(pids).toHaveLength(1);
    expect(await waitForPidsGone(pids, 5000)).toEqual([]);
  });
});

describe('auth', () => {
  const withCredentials: FakeOpenCodeSpec = {
    authList: { stdout: capture('opencode-auth-list-credentials.out'), stderr: capture('opencode-auth-list-credentials.err') },
  };

  async function checkAuth(f: FakeOpenCode, config: ToolbridgeConfig, env: NodeJS.ProcessEnv = {}) {
    const { ctx, done } = ctxOf({ ...f.env, ...env }, config, 10_000);
    try {
      return await createOpenCodeAdapter().checkAuth!(ctx);
    } finally {
      done();
    }
  }

  it('needs no login for free opencode/* models, and still says which providers have credentials', async () => {
    const f = await fake(withCredentials);
    const state = await checkAuth(f, { opencodeModel: 'opencode/big-pickle' });
    expect(state).toEqual({
      authenticated: true,
      method: 'free model',
      detail:
        'opencode/big-pickle is a free OpenCode model and needs no login. OpenCode has credentials for Anthropic, OpenAI, Groq, OpenRouter; the free opencode/* models need none.',
    });
  });

  it('reports a paid provider without a credential as not logged in', async () => {
    const f = await fake();
    const state = await checkAuth(f, { opencodeModel: 'anthropic/claude-sonnet-4-5' });
    expect(state.authenticated).toBe(false);
    expect(state.detail).toMatch(/No OpenCode credential for provider "anthropic".*no provider credentials.*opencode auth login/);
    expect(state.method).toBeUndefined();
    expect((await f.invocations()).map((i) => i.argv)).toEqual([['auth', 'list']]);
  });

  it('finds stored credentials and environment keys for the configured provider', async () => {
    const f = await fake(withCredentials);
    expect(await checkAuth(f, { opencodeModel: 'anthropic/claude-sonnet-4-5' })).toMatchObject({ authenticated: true, method: 'api_key' });
    expect(await checkAuth(f, { opencodeModel: 'openai/gpt-5' })).toMatchObject({ authenticated: true, method: 'oauth' });
    expect(await checkAuth(f, { opencodeModel: 'groq/llama-4' })).toMatchObject({
      authenticated: true,
      method: 'env',
      detail: expect.stringContaining('GROQ_API_KEY'),
    });
    expect(await checkAuth(f, { opencodeModel: 'google/gemini-2.5-pro' })).toMatchObject({ authenticated: false });
  });

  it('accepts an apiKey given in OPENCODE_CONFIG_CONTENT', async () => {
    const f = await fake();
    const content = JSON.stringify({ provider: { mock: { options: { baseURL: 'http://127.0.0.1:1/v1', apiKey: 'dummy' } } } });
    expect(await checkAuth(f, { opencodeModel: 'mock/mock-model' }, { OPENCODE_CONFIG_CONTENT: content })).toMatchObject({
      authenticated: true,
      method: 'config',
    });
    expect(await checkAuth(f, { opencodeModel: 'mock/mock-model' })).toMatchObject({ authenticated: false });
  });

  it('without a configured model, names the providers with credentials, or says only the free models are usable', async () => {
    expect(await checkAuth(await fake(), {})).toMatchObject({
      authenticated: true,
      method: 'free models only',
      detail: expect.stringContaining('OpenCode has no provider credentials; the free opencode/* models need none'),
    });
    // A key in the config counts, whether given directly or through a variable the provider's `env` names.
    const content = JSON.stringify({ provider: { mock: { options: { apiKey: 'k' } }, corp: { env: ['CORP_KEY'] } } });
    const env = { OPENCODE_CONFIG_CONTENT: content, CORP_KEY: 'x' };
    expect(await checkAuth(await fake(withCredentials), {}, env)).toMatchObject({
      authenticated: true,
      method: 'Anthropic, OpenAI, Groq +3 more',
      detail: expect.stringContaining('credentials for Anthropic, OpenAI, Groq, OpenRouter, mock, corp'),
    });
  });

  it('startAuth returns manual instructions without running the interactive login', async () => {
    const f = await fake();
    const { ctx, done } = ctxOf(f.env, { opencodeModel: 'anthropic/claude-sonnet-4-5' }, 10_000);
    const r = await createOpenCodeAdapter().startAuth!(ctx);
    done();
    expect(r).toMatchObject({ toolId: 'opencode', status: 'manual', authenticated: false, command: 'opencode auth login', output: '' });
    expect(r.instructions).toMatch(/needs a terminal/);
    expect(r.instructions).toContain('"anthropic"');
    expect(new Date(r.checkedAt).toISOString()).toBe(r.checkedAt);
    expect((await f.invocations()).map((i) => i.argv)).toEqual([['auth', 'list']]);
  });

  it('reports usage limits as not available, with a reason', async () => {
    const { ctx, done } = ctxOf({});
    const limits = await createOpenCodeAdapter().usageLimits!(ctx);
    done();
    expect(limits).toEqual({ status: 'unavailable', reason: 'OpenCode does not expose usage limits locally' });
  });

  it('shows auth and limits in the health record', async () => {
    const f = await fake();
    const registry = createRegistry({ adapters: [createOpenCodeAdapter()], env: f.env });
    registry.config.replace({ opencodeModel: 'anthropic/claude-sonnet-4-5' });
    const h = await registry.health('opencode');
    await registry.close();
    expect(h).toMatchObject({
      status: 'healthy',
      available: true,
      version: '1.18.33',
      authSupported: true,
      authenticated: false,
      authStatus: 'unauthenticated',
      usageLimits: { status: 'unavailable' },
    });
  });
});
