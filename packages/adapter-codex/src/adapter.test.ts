import { afterEach, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  AbortedError,
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
import { createCallContext, validateChatRequest } from '@toolbridge/core/runtime';
import { adapterChat, adapterStream, makeTempDir, pathWithout, pidAlive, waitFor, waitForPidsGone } from '@toolbridge/test-suite/kit';
import { renderConversation } from '@toolbridge/adapter-kit';
import { createCodexAdapter } from './adapter.js';
import { parseLoginStatus } from './auth.js';
import type { CodexAdapterOptions } from './options.js';
import { capture, CAPTURES_DIR, fakeCodexEnv, REPLAYS, type FakeCodexScript } from './testing/fake-codex.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const hello: ChatRequest = { messages: [{ role: 'user', content: 'Say hello' }] };

async function setup(script: FakeCodexScript, options: CodexAdapterOptions = {}) {
  const fake = await fakeCodexEnv({ version: REPLAYS.version, ...script });
  cleanups.push(fake.cleanup);
  const adapter = createCodexAdapter(options);
  cleanups.push(async () => adapter.dispose?.());
  const ctx = (config: ToolbridgeConfig = {}, timeoutMs?: number, signal?: AbortSignal) => {
    const managed = createCallContext({ config, env: fake.env, toolId: 'codex' }, { timeoutMs, signal });
    cleanups.push(async () => managed.done());
    return managed.ctx;
  };
  return { adapter, ctx, env: fake.env, dir: fake.dir, codexHome: fake.codexHome };
}

/** A temp dir for what fakes record (argv, stdin, pids). */
async function scratch(): Promise<(name: string) => string> {
  const t = await makeTempDir('toolbridge-codex-rec-');
  cleanups.push(t.cleanup);
  return (name) => path.join(t.dir, name);
}

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

const readPids = async (file: string) => (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean).map(Number);

const jsonl = (...events: unknown[]) => events.map((e) => JSON.stringify(e)).join('\n') + '\n';

describe('chat against a fake codex replaying the real output', () => {
  it('returns the agent message, integer usage, model and thread id; the non-fatal error item is only a warning', async () => {
    const { adapter, ctx } = await setup({ exec: REPLAYS.ok });
    const result = await adapterChat(adapter, hello, ctx({ codexModel: 'mock-model' }));
    expect(result).toEqual({
      message: { role: 'assistant', content: 'Hello from mock' },
      usage: { input_tokens: 1234, cached_input_tokens: 1000, cache_write_input_tokens: 0, output_tokens: 56, reasoning_output_tokens: 7 },
      model: 'mock-model',
      metadata: {
        nativeSessionId: '01a20148-b4b2-79a1-8a35-96c1c4f476c8',
        sandbox: 'read-only',
        permissions: { requested: 'read-only', applied: 'read-only', source: 'default', note: expect.stringContaining('read-only') },
        transport: 'spawn',
        warnings: [
          'Model metadata for `mock-model` not found. Defaulting to fallback metadata; this can degrade performance and cause issues.',
        ],
      },
    });
  });

  it('passes the prompt on stdin only, with sandbox and model flags in argv', async () => {
    const record = (await scratch())('exec.json');
    const fake = await setup({ exec: { ...REPLAYS.ok, readStdinTo: record } }, { extraArgs: ['-c', 'model_provider=mock'] });
    const request: ChatRequest = {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'SECRET-PROMPT-1 what is 2+2?' },
        { role: 'assistant', content: '4' },
        { role: 'user', content: 'SECRET-PROMPT-2 and times 3?' },
      ],
    };
    await adapterChat(fake.adapter, request, fake.ctx({ codexModel: 'gpt-5', codexSandbox: 'workspace-write' }));
    const seen = JSON.parse(await readFile(record, 'utf8')) as { argv: string[]; stdin: string };
    expect(seen.argv).toEqual([
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--sandbox',
      'workspace-write',
      '-m',
      'gpt-5',
      '-c',
      'features.shell_snapshot=false',
      '-c',
      'tools.update_plan.enabled=true',
      // workspace-write stays in the workspace: Codex's own also lets commands write /tmp and $TMPDIR.
      '-c',
      'sandbox_workspace_write.exclude_slash_tmp=true',
      '-c',
      'sandbox_workspace_write.exclude_tmpdir_env_var=true',
      '-c',
      'model_provider=mock',
      '-',
    ]);
    expect(seen.argv.join(' ')).not.toContain('SECRET-PROMPT');
    expect(seen.stdin).toBe(renderConversation((await validateChatRequest(request)).messages));
    expect(seen.stdin).toContain('[System]\nBe brief.');
    expect(seen.stdin).toContain('SECRET-PROMPT-2 and times 3?');

    // Defaults: read-only, no -m; a request's model wins over the config.
    await adapterChat(fake.adapter, hello, fake.ctx());
    expect(JSON.parse(await readFile(record, 'utf8')).argv).toEqual([
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--sandbox',
      'read-only',
      '-c',
      'features.shell_snapshot=false',
      '-c',
      'tools.update_plan.enabled=true',
      '-c',
      'model_provider=mock',
      '-',
    ]);
    await adapterChat(fake.adapter, { ...hello, model: 'o3' }, fake.ctx({ codexModel: 'gpt-5' }));
    expect(JSON.parse(await readFile(record, 'utf8')).argv).toContain('o3');
    expect(JSON.parse(await readFile(record, 'utf8')).stdin).toBe('Say hello');
  });

  it('rejects a model that Codex would read as an option', async () => {
    const { adapter, ctx } = await setup({ exec: REPLAYS.ok });
    await expect(adapterChat(adapter, { ...hello, model: '--dangerously-bypass-approvals-and-sandbox' }, ctx())).rejects.toBeInstanceOf(
      InvalidRequestError,
    );
  });

  it('runs in the working directory it is given (a fresh temporary one, removed afterwards, or the caller’s cwd)', async () => {
    const js = (target: string) => `
      const fs = require('fs');
      process.stdin.resume();
      process.stdin.on('end', () => {
        fs.writeFileSync(${JSON.stringify(target)}, JSON.stringify({ cwd: process.cwd(), exists: fs.existsSync(process.cwd()) }));
        process.stdout.write(${JSON.stringify(capture('codex-mock.out'))});
      });`;
    const record = (await scratch())('cwd.json');
    const { adapter, ctx, dir } = await setup({ exec: { js: js(record) } });
    await adapterChat(adapter, hello, ctx());
    const first = JSON.parse(await readFile(record, 'utf8')) as { cwd: string; exists: boolean };
    expect(first.exists).toBe(true);
    expect(path.basename(first.cwd)).toMatch(/^toolbridge-codex-/);
    expect(existsSync(first.cwd)).toBe(false);

    // Removed on failure too.
    const failing = await setup({ exec: { js: js(record).replace('process.stdout.write', 'process.exitCode = 1; void') } });
    await expect(adapterChat(failing.adapter, hello, failing.ctx())).rejects.toBeInstanceOf(ProviderExecutionError);
    const second = JSON.parse(await readFile(record, 'utf8')) as { cwd: string };
    expect(second.cwd).not.toBe(first.cwd);
    expect(existsSync(second.cwd)).toBe(false);

    const own = path.join(dir, 'project');
    await mkdir(own);
    await adapterChat(adapter, { ...hello, cwd: own }, ctx());
    expect(JSON.parse(await readFile(record, 'utf8')).cwd).toBe(own);
    expect(existsSync(own)).toBe(true);
  });

  it('reads the model from the session log when none is configured', async () => {
    const threadId = '01a20148-b4b2-79a1-8a35-96c1c4f476c8';
    const { adapter, ctx, codexHome } = await setup({ exec: REPLAYS.ok });
    const day = path.join(codexHome, 'sessions', '2026', '11', '22');
    await mkdir(day, { recursive: true });
    const name = `rollout-2026-11-22T03-24-31-${threadId}.jsonl`;
    await copyFile(path.join(CAPTURES_DIR, 'codex-home-sessions', name), path.join(day, name));
    const result = await adapterChat(adapter, hello, ctx());
    expect(result.model).toBe('mock-model');
  });
});

describe('a codex whose app-server would not start', () => {
  it('answers every chat by spawning codex exec, and its load says spawn from then on', async () => {
    // The fake refuses `app-server` at once (exit 2), as a Codex without it does.
    const { adapter, ctx } = await setup({ exec: REPLAYS.ok });
    expect(adapter.warmLoad?.()).toMatchObject({ processes: 0 });
    for (let i = 0; i < 2; i++) expect((await adapterChat(adapter, hello, ctx())).metadata.transport).toBe('spawn');
    // Undefined load: health reports the transport as `spawn`, which is what chats get for the next minute.
    expect(adapter.warmLoad?.()).toBeUndefined();
  });
});

describe('no process outlives a run', () => {
  it('kills helpers codex left running in a session of their own', async () => {
    const pidFile = (await scratch())('straggler.pids');
    // Like Codex's shell snapshot: a helper in a new session (beyond the process group) that outlives its parent.
    const js = `
      const { spawn } = require('child_process');
      const fs = require('fs');
      const helper = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });
      fs.appendFileSync(${JSON.stringify(pidFile)}, helper.pid + '\\n');
      helper.unref();
      process.stdin.resume();
      process.stdin.on('end', () => process.stdout.write(${JSON.stringify(capture('codex-mock.out'))}));`;
    const { adapter, ctx } = await setup({ exec: { js } });
    expect((await adapterChat(adapter, hello, ctx())).message.content).toBe('Hello from mock');
    const pids = await readPids(pidFile);
    expect(pids).toHaveLength(1);
    // Already dead when chat() returns. (A zombie counts as dead: reaping orphans is init's job.)
    expect(pids.filter(pidAlive)).toEqual([]);
  });
});

describe('stream', () => {
  it('yields activity, then the answer as delta, then one result', async () => {
    const { adapter, ctx } = await setup({ exec: REPLAYS.ok });
    const events = await collect(adapterStream(adapter, hello, ctx()));
    expect(events.map((e) => e.type)).toEqual(['activity', 'delta', 'result']);
    expect(events[0]).toEqual({
      type: 'activity',
      activity: {
        kind: 'other',
        rawType: 'error',
        id: 'item_0',
        status: 'completed',
        title: expect.stringContaining('Model metadata'),
        detail: expect.stringContaining('Model metadata'),
      },
    });
    expect(events[1]).toEqual({ type: 'delta', text: 'Hello from mock' });
  });

  it('reports items as normalised activity and only the last agent message as the answer', async () => {
    const stdout = jsonl(
      { type: 'thread.started', thread_id: 't-1' },
      { type: 'turn.started' },
      { type: 'item.completed', item: { id: 'item_0', type: 'reasoning', text: '**Looking at files**' } },
      { type: 'item.completed', item: { id: 'item_1', type: 'agent_message', text: 'Let me list the files.' } },
      {
        type: 'item.started',
        item: {
          id: 'item_2',
          type: 'command_execution',
          command: 'bash -lc ls',
          aggregated_output: '',
          exit_code: null,
          status: 'in_progress',
        },
      },
      {
        type: 'item.completed',
        item: {
          id: 'item_2',
          type: 'command_execution',
          command: 'bash -lc ls',
          aggregated_output: 'a.txt\n',
          exit_code: 0,
          status: 'completed',
        },
      },
      {
        type: 'item.completed',
        item: { id: 'item_3', type: 'file_change', changes: [{ path: 'a.txt', kind: 'update' }], status: 'completed' },
      },
      {
        type: 'item.updated',
        item: {
          id: 'item_4',
          type: 'todo_list',
          items: [
            { text: 'read', completed: true },
            { text: 'answer', completed: false },
          ],
        },
      },
      { type: 'item.completed', item: { id: 'item_5', type: 'agent_message', text: 'There is one file: a.txt.' } },
      {
        type: 'turn.completed',
        usage: { input_tokens: 10, cached_input_tokens: 0, output_tokens: 5, reasoning_output_tokens: 2, brand_new_counter: 3, ratio: 0.5 },
      },
    );
    const { adapter, ctx } = await setup({ exec: { stdout } });
    const events = await collect(adapterStream(adapter, hello, ctx()));
    const activity = events.flatMap((e) => (e.type === 'activity' ? [e.activity] : []));
    expect(activity.map((a) => [a.id, a.kind, a.status, a.title])).toEqual([
      ['item_0', 'reasoning', 'completed', 'Looking at files'],
      ['item_1', 'other', 'completed', 'Let me list the files.'],
      ['item_2', 'command', 'started', 'bash -lc ls'],
      ['item_2', 'command', 'completed', 'bash -lc ls'],
      ['item_3', 'file_change', 'completed', 'update a.txt'],
      ['item_4', 'plan', 'updated', 'Plan (1/2 done)'],
    ]);
    expect(activity[0]).toMatchObject({ text: '**Looking at files**' });
    expect(activity[3]).toMatchObject({ command: 'bash -lc ls', exitCode: 0, outputTail: 'a.txt' });
    expect(activity[4]).toMatchObject({ changes: [{ path: 'a.txt', kind: 'update' }] });
    expect(activity[5]).toMatchObject({
      items: [
        { text: 'read', done: true },
        { text: 'answer', done: false },
      ],
    });
    expect(events.filter((e) => e.type === 'delta')).toEqual([{ type: 'delta', text: 'There is one file: a.txt.' }]);
    const result = events.at(-1);
    expect(result?.type).toBe('result');
    if (result?.type === 'result') {
      expect(result.result.message.content).toBe('There is one file: a.txt.');
      expect(result.result.usage).toEqual({
        input_tokens: 10,
        cached_input_tokens: 0,
        output_tokens: 5,
        reasoning_output_tokens: 2,
        brand_new_counter: 3,
      });
      expect(result.result.metadata.nativeSessionId).toBe('t-1');
    }
  });

  it('kills codex when the consumer stops early', async () => {
    const pidFile = (await scratch())('exec.pids');
    const s = await setup({ exec: { ...REPLAYS.reconnecting, pidFile } });
    for await (const e of adapterStream(s.adapter, hello, s.ctx())) {
      expect(e).toMatchObject({ type: 'activity', activity: { kind: 'other', rawType: 'reconnecting' } });
      break;
    }
    const pids = await readPids(pidFile);
    expect(pids).toHaveLength(1);
    expect(await waitForPidsGone(pids)).toEqual([]);
  });
});

describe('failures', () => {
  it('401 → ToolAuthError', async () => {
    const { adapter, ctx } = await setup({ exec: REPLAYS.unauthorized });
    const e = await adapterChat(adapter, hello, ctx()).catch((x) => x);
    expect(e).toBeInstanceOf(ToolAuthError);
    expect(e).toMatchObject({ code: 'tool_auth_required', httpStatus: 401, toolId: 'codex' });
    expect(e.message).toContain('401 Unauthorized');
  });

  it('a missing API key variable → ToolAuthError', async () => {
    const { adapter, ctx } = await setup({ exec: REPLAYS.missingKey });
    await expect(adapterChat(adapter, hello, ctx())).rejects.toMatchObject({ code: 'tool_auth_required', toolId: 'codex' });
  });

  it('usage limit (429 usage_limit_reached) → QuotaExceededError with the reset time', async () => {
    const { adapter, ctx } = await setup({ exec: REPLAYS.usageLimit });
    const before = Date.now();
    const e = await adapterChat(adapter, hello, ctx()).catch((x) => x);
    expect(e).toBeInstanceOf(QuotaExceededError);
    expect(e).toMatchObject({ code: 'quota_exceeded', httpStatus: 429, retryable: true, toolId: 'codex' });
    const resetsAt = (e as QuotaExceededError).resetsAt!;
    expect(resetsAt.getHours() % 12).toBe(5);
    expect(resetsAt.getMinutes()).toBe(19);
    expect(resetsAt.getTime()).toBeGreaterThan(before - 60_000);
    expect(resetsAt.getTime()).toBeLessThanOrEqual(before + 24 * 3600_000);
  });

  it('429 Too Many Requests → RateLimitError', async () => {
    const { adapter, ctx } = await setup({ exec: REPLAYS.rateLimited });
    const e = await adapterChat(adapter, hello, ctx()).catch((x) => x);
    expect(e).toBeInstanceOf(RateLimitError);
    expect(e).toMatchObject({ code: 'rate_limited', retryable: true, toolId: 'codex' });
  });

  it('a server error → retryable ProviderExecutionError', async () => {
    const { adapter, ctx } = await setup({ exec: REPLAYS.serverError });
    const e = await adapterChat(adapter, hello, ctx()).catch((x) => x);
    expect(e).toBeInstanceOf(ProviderExecutionError);
    expect(e).toMatchObject({ code: 'provider_execution_failed', httpStatus: 502, retryable: true, toolId: 'codex' });
    expect(e.message).toContain('high demand');
  });

  it('a crash (non-zero exit, no events) → ProviderExecutionError with the stderr tail', async () => {
    const { adapter, ctx } = await setup({
      exec: { stderr: capture('codex-mock.err') + "thread 'main' panicked at codex-rs/exec/src/lib.rs:42:5\n", exitCode: 101 },
    });
    const e = await adapterChat(adapter, hello, ctx()).catch((x) => x);
    expect(e).toBeInstanceOf(ProviderExecutionError);
    expect(e.message).toContain("thread 'main' panicked");
    expect(e.message).not.toContain('WARNING: proceeding');
    expect(e).toMatchObject({ toolId: 'codex', details: { exitCode: 101 } });
  });

  it('garbage output → ProviderExecutionError; stray non-JSON lines around real events are skipped', async () => {
    const garbage = await setup({ exec: { stdout: 'Segmentation fault\n<html>502 Bad Gateway</html>\n{"not":"an event"\n', exitCode: 0 } });
    const e = await adapterChat(garbage.adapter, hello, garbage.ctx()).catch((x) => x);
    expect(e).toBeInstanceOf(ProviderExecutionError);
    expect(e.message).toMatch(/without an answer \(3 output line\(s\) were not JSON events\)/);

    const mixed = await setup({ exec: { stdout: 'some banner\n' + capture('codex-mock.out') + 'trailing noise\n' } });
    expect((await adapterChat(mixed.adapter, hello, mixed.ctx())).message.content).toBe('Hello from mock');
  });

  it('exit 0 without an agent message → ProviderExecutionError', async () => {
    const stdout = capture('codex-mock.out')
      .split('\n')
      .filter((l) => !l.includes('agent_message'))
      .join('\n');
    const { adapter, ctx } = await setup({ exec: { stdout } });
    await expect(adapterChat(adapter, hello, ctx())).rejects.toThrow(/finished without an answer/);
  });

  it('handles a huge answer, and fails a run beyond the output cap without leaving codex running', async () => {
    const big = 'x'.repeat(3 * 1024 * 1024);
    const stdout = jsonl(
      { type: 'thread.started', thread_id: 't' },
      { type: 'item.completed', item: { id: 'item_0', type: 'agent_message', text: big } },
      { type: 'turn.completed', usage: { input_tokens: 1, output_tokens: 2 } },
    );
    const ok = await setup({ exec: { stdout } });
    expect((await adapterChat(ok.adapter, hello, ok.ctx())).message.content.length).toBe(big.length);

    const pidFile = (await scratch())('huge.pids');
    const flood = `
      require('fs').appendFileSync(${JSON.stringify(pidFile)}, process.pid + '\\n');
      process.stdin.resume();
      process.stdin.on('end', () => {
        const line = JSON.stringify({ type: 'item.completed', item: { id: 'r', type: 'reasoning', text: 'y'.repeat(1000) } }) + '\\n';
        const pump = () => { while (process.stdout.write(line)) {} process.stdout.once('drain', pump); };
        pump();
      });`;
    const capped = await setup({ exec: { js: flood } }, { maxOutputBytes: 512 * 1024 });
    const e = await adapterChat(capped.adapter, hello, capped.ctx({}, 20_000)).catch((x) => x);
    expect(e).toBeInstanceOf(ProviderExecutionError);
    expect(e.message).toMatch(/more than 524288 bytes/);
    expect(e.toolId).toBe('codex');
    expect(await waitForPidsGone(await readPids(pidFile))).toEqual([]);
  });

  it('offline (Reconnecting... forever) → TimeoutError from the deadline, and codex is killed', async () => {
    const pidFile = (await scratch())('hang.pids');
    const { adapter, ctx } = await setup({ exec: { ...REPLAYS.reconnecting, pidFile } });
    const events: StreamEvent[] = [];
    const error = await (async () => {
      for await (const e of adapterStream(adapter, hello, ctx({}, 3000))) events.push(e);
    })().catch((x) => x);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ code: 'timeout', httpStatus: 504, toolId: 'codex' });
    // The reconnect notices were activity, not failures.
    expect(
      events.filter((e) => e.type === 'activity' && e.activity.kind === 'other' && e.activity.rawType === 'reconnecting'),
    ).toHaveLength(8);
    expect(await waitForPidsGone(await readPids(pidFile))).toEqual([]);
  });

  it('caller abort → AbortedError, and codex is killed', async () => {
    const pidFile = (await scratch())('abort.pids');
    const { adapter, ctx } = await setup({ exec: { ...REPLAYS.reconnecting, pidFile } });
    const controller = new AbortController();
    const pending = adapterChat(adapter, hello, ctx({}, undefined, controller.signal));
    await waitFor(async () => (await readPids(pidFile)).length === 1, 10_000, 'codex to start');
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortedError);
    expect(await waitForPidsGone(await readPids(pidFile))).toEqual([]);
  });
});

describe('detect', () => {
  it('parses the version; without a catalog (`debug models` fails) it lists only the configured model', async () => {
    const { adapter, ctx } = await setup({});
    expect(await adapter.detect(ctx())).toEqual({ available: true, version: '0.169.0', models: [], capabilities: ['vision'] });
    expect(await adapter.detect(ctx({ codexModel: 'gpt-5-codex' }))).toEqual({
      available: true,
      version: '0.169.0',
      models: ['gpt-5-codex'],
      defaultModel: 'gpt-5-codex',
      capabilities: ['vision'],
    });
  });

  it('reports a missing binary as unavailable with a reason', async () => {
    const { adapter, ctx, env } = await setup({});
    env.PATH = pathWithout();
    const d = await adapter.detect(ctx());
    expect(d.available).toBe(false);
    expect(d.reason).toMatch(/^codex is not installed/);
  });

  it('gives up on a --version that hangs', async () => {
    const { adapter, ctx } = await setup({ version: { hang: true } }, { versionTimeoutMs: 300 });
    const d = await adapter.detect(ctx());
    expect(d).toMatchObject({ available: false, reason: '`codex --version` did not answer within 300 ms' });
  });

  it('reports a failing --version with its stderr', async () => {
    const { adapter, ctx } = await setup({ version: { stderr: 'error while loading shared libraries\n', exitCode: 127 } });
    expect(await adapter.detect(ctx())).toMatchObject({
      available: false,
      reason: expect.stringContaining('error while loading shared libraries'),
    });
  });
});

describe('checkAuth', () => {
  it('reads `codex login status` from stderr', async () => {
    const out = await setup({ loginStatus: REPLAYS.notLoggedIn });
    expect(await out.adapter.checkAuth!(out.ctx())).toEqual({ authenticated: false, detail: 'Codex is not logged in (run `codex login`)' });
    const chatgpt = await setup({ loginStatus: REPLAYS.loggedInChatGpt });
    expect(await chatgpt.adapter.checkAuth!(chatgpt.ctx())).toEqual({ authenticated: true, method: 'chatgpt' });
  });

  it('parses the API-key form without repeating the key', () => {
    const state = parseLoginStatus(capture('codex-login-status.err').replace('Not logged in', 'API key configured - sk-test-***bcdef'), 0);
    expect(state).toEqual({ authenticated: true, method: 'api_key' });
    expect(JSON.stringify(state)).not.toContain('sk-');
  });
});
