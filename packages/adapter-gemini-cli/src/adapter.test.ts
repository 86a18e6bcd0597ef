import { afterEach, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  AbortedError,
  InvalidRequestError,
  ProviderExecutionError,
  QuotaExceededError,
  RateLimitError,
  ToolAuthError,
  type CallContext,
  type ChatRequest,
  type ToolbridgeConfig,
} from '@toolbridge/core';
import { adapterChat, adapterStream, waitForPidsGone } from '@toolbridge/test-suite/kit';
import { createGeminiCliAdapter } from './adapter.js';
import type { GeminiCliAdapterOptions } from './options.js';
import { fakeGeminiEnv, REPLAYS, type FakeGemini, type Replay } from './testing/fake-gemini.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const fakes: FakeGemini[] = [];
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.cleanup();
});

async function setup(chat: Replay, config: ToolbridgeConfig = { geminiModel: 'gemini-2.5-flash' }, options: GeminiCliAdapterOptions = {}) {
  const fake = await fakeGeminiEnv(chat);
  fakes.push(fake);
  const adapter = createGeminiCliAdapter(options);
  const ctx = (timeoutMs = 20_000): CallContext => ({
    config,
    env: { ...fake.env, GEMINI_API_KEY: 'k' },
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { fake, adapter, ctx };
}

const ask = (text: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({ messages: [{ role: 'user', content: text }], ...extra });

describe('gemini adapter (fake CLI replaying real captures)', () => {
  it('runs one headless turn: prompt on stdin only, stream-json, one process, a read-only policy', async () => {
    const { fake, adapter, ctx } = await setup(REPLAYS.ok);
    let scratch = '';
    const result = await adapterChat(adapter, ask('SECRET-PROMPT-4711 say hi'), ctx(), { onScratch: (d) => (scratch = d) });
    expect(result).toMatchObject({
      message: { role: 'assistant', content: 'Hello from mock' },
      usage: { input_tokens: 20, cached_input_tokens: 5, output_tokens: 7, total_tokens: 29 },
      model: 'mock-model',
      metadata: {
        nativeSessionId: 'f1fe03fd-e2fb-4c3d-abb2-5a8428d7cd61',
        permissions: {
          requested: 'read-only',
          applied: 'read-only',
          note: expect.stringContaining('shell and MCP tools are denied'),
          source: 'default',
          approvalMode: 'default',
          deniedTools: ['run_shell_command', 'write_file', 'replace', 'mcp_*'],
        },
      },
    });
    const [run] = await fake.runs();
    expect(run!.stdin).toBe('SECRET-PROMPT-4711 say hi');
    expect(run!.argv.join(' ')).not.toContain('SECRET');
    expect(run!.argv).toEqual([
      '--output-format',
      'stream-json',
      '--skip-trust',
      '--approval-mode',
      'default',
      '--model',
      'gemini-2.5-flash',
      '--admin-policy',
      path.join(scratch, 'toolbridge-policy.toml'),
    ]);
    expect(run!.env).toMatchObject({ GEMINI_CLI_NO_RELAUNCH: 'true', TMPDIR: scratch });
    expect(run!.policy).toMatch(/toolName = "run_shell_command"\ndecision = "deny"/);
    expect(run!.scratch['toolbridge-policy.toml']).toBe(0o600);
    // The scratch directory (policy, Gemini's error reports) is gone once the call is over.
    expect(existsSync(scratch)).toBe(false);
  });

  it.each([
    ['workspace-write', 'auto_edit', ['run_shell_command', 'mcp_*']],
    ['full', 'yolo', []],
  ] as const)('permissions %s → --approval-mode %s, denying %j', async (level, mode, denied) => {
    const { fake, adapter, ctx } = await setup(REPLAYS.tools);
    const result = await adapterChat(adapter, ask('make two files', { permissions: level }), ctx());
    expect(result.metadata.permissions).toEqual({
      requested: level,
      applied: level,
      ...(level === 'full' ? {} : { note: expect.stringContaining('shell and MCP tools are denied') }),
      source: 'request',
      approvalMode: mode,
      deniedTools: denied,
    });
    const [run] = await fake.runs();
    expect(run!.argv[run!.argv.indexOf('--approval-mode') + 1]).toBe(mode);
    expect(run!.argv.includes('--admin-policy')).toBe(denied.length > 0);
    expect(result.message.content).toBe('All done.');
  });

  it('refuses approvals where only the headless spawn path could run the chat (it would act without asking)', async () => {
    const approvals = { ask: async () => ({ allow: true }) };
    const cases = [
      { options: { warm: false }, resume: undefined, why: /warm transport turned off/ },
      {
        options: {},
        resume: { nativeSessionId: '0e0c4f0e-6f1e-4d57-9a3c-3b8d1f2a7c11', fork: true },
        why: /a fork runs on the spawn path/,
      },
    ];
    for (const { options, resume, why } of cases) {
      const { fake, adapter, ctx } = await setup(REPLAYS.ok, { geminiModel: 'gemini-2.5-flash' }, options);
      const e = await adapterChat(
        adapter,
        ask('write it', { permissions: 'full' }),
        { ...ctx(), approvals } as CallContext,
        resume ? { resume } : {},
      ).catch((x) => x);
      expect(e).toMatchObject({ code: 'invalid_request', publicDetails: { reason: 'unsupported', feature: 'approvals' } });
      expect(e.message).toMatch(/asks for approvals only over its warm ACP transport/);
      expect(e.message).toMatch(why);
      expect(await fake.runs()).toEqual([]);
    }
  });

  it('fails retryably, and runs nothing headless, when approvals are asked and no ACP agent will start', async () => {
    // The fake speaks no ACP: `gemini --acp` ends at once.
    const { fake, adapter, ctx } = await setup(REPLAYS.ok);
    const approvals = { ask: async () => ({ allow: true }) };
    const e = await adapterChat(adapter, ask('write it', { permissions: 'full' }), { ...ctx(), approvals } as CallContext).catch((x) => x);
    await adapter.dispose?.();
    expect(e).toMatchObject({ code: 'provider_execution_failed', retryable: true });
    expect(e.message).toBe('Gemini CLI could not start its ACP agent, and only it asks for approvals');
    expect((await fake.runs()).filter((r) => !r.argv.includes('--acp'))).toEqual([]);
  });

  it('reports a level narrowed by the call’s limit as the others do: requested is what was asked', async () => {
    const { adapter, ctx } = await setup(REPLAYS.ok, { geminiModel: 'm', permissions: 'full' });
    const result = await adapterChat(adapter, ask('hi'), { ...ctx(), maxPermissions: 'workspace-write' });
    expect(result.metadata.permissions).toMatchObject({
      requested: 'full',
      applied: 'workspace-write',
      source: 'config',
      note: expect.stringMatching(/maxPermissions workspace-write/),
    });
  });

  it('takes the `permissions` config key, never more than asked', async () => {
    const { fake, adapter, ctx } = await setup(REPLAYS.ok, { geminiModel: 'm', permissions: 'workspace-write' });
    expect((await adapterChat(adapter, ask('hi'), ctx())).metadata.permissions).toMatchObject({
      applied: 'workspace-write',
      source: 'config',
    });
    expect((await adapterChat(adapter, ask('hi', { permissions: 'read-only' }), ctx())).metadata.permissions).toMatchObject({
      applied: 'read-only',
      approvalMode: 'default',
    });
    expect((await fake.runs()).map((r) => r.argv[r.argv.indexOf('--approval-mode') + 1])).toEqual(['auto_edit', 'default']);
  });

  it('streams tool steps as activities between deltas', async () => {
    const { adapter, ctx } = await setup(REPLAYS.tools);
    const kinds: string[] = [];
    for await (const e of adapterStream(adapter, ask('go', { permissions: 'full' }), ctx())) {
      kinds.push(e.type === 'activity' ? `${e.activity.kind}:${e.activity.status}` : e.type);
    }
    expect(kinds).toEqual([
      'command:started',
      'command:completed',
      'file_change:started',
      'file_change:completed',
      'delta',
      'delta',
      'result',
    ]);
  });

  it('writes images as private files Gemini inlines through @path, in an included directory', async () => {
    const { fake, adapter, ctx } = await setup(REPLAYS.ok);
    let scratch = '';
    const request: ChatRequest = {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image', mediaType: 'image/png', data: PNG },
          ],
        },
      ],
    };
    await adapterChat(adapter, request, ctx(), { onScratch: (d) => (scratch = d) });
    const [run] = await fake.runs();
    // In the run's own directory inside the scratch directory (a repair turn gets another).
    const image = Object.keys(run!.scratch).find((n) => n.endsWith('image-1.png'));
    expect(image).toMatch(/^run-[^/]+\/image-1\.png$/);
    expect(run!.stdin).toBe(`what is this?[image 1: image/png]\n\n[image 1]: @${path.join(scratch, image!)}`);
    expect(run!.scratch[image!]).toBe(0o600);
    expect(run!.argv.slice(-2)).toEqual(['--include-directories', scratch]);
  });

  it('passes additional directories, and refuses one Gemini would split at its comma', async () => {
    const { fake, adapter, ctx } = await setup(REPLAYS.ok);
    const extra = path.join(fake.home, 'extra');
    await mkdir(extra);
    await adapterChat(adapter, ask('hi', { additionalDirs: [extra] }), ctx());
    expect((await fake.runs())[0]!.argv.slice(-2)).toEqual(['--include-directories', extra]);
    const comma = path.join(fake.home, 'a,b');
    await mkdir(comma);
    await expect(adapterChat(adapter, ask('hi', { additionalDirs: [comma] }), ctx())).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(adapterChat(adapter, ask('hi', { model: '--yolo' }), ctx())).rejects.toBeInstanceOf(InvalidRequestError);
    expect(await fake.runs()).toHaveLength(1);
  });

  it('resumes a native session with --resume, and forks one from a copy of its file', async () => {
    const { fake, adapter, ctx } = await setup(REPLAYS.ok);
    const id = '1d9fc18b-564b-4d64-8702-b6eb4076b545';
    await adapterChat(adapter, ask('again'), ctx(), { resume: { nativeSessionId: id, fork: false } });
    const chats = path.join(fake.home, '.gemini', 'tmp', 'work', 'chats');
    await mkdir(chats, { recursive: true });
    const file = path.join(chats, `session-2026-11-23T08-17-${id.slice(0, 8)}.jsonl`);
    await writeFile(file, `{"sessionId":"${id}","projectHash":"x","startTime":"t","lastUpdated":"t","kind":"main"}\n`);
    await adapterChat(adapter, ask('fork'), ctx(), { resume: { nativeSessionId: id, fork: true } });
    const [resumed, forked] = await fake.runs();
    expect(resumed!.argv.slice(-2)).toEqual(['--resume', id]);
    expect(forked!.argv.slice(-2)).toEqual(['--session-file', file]);
    const missing = await adapterChat(adapter, ask('fork'), ctx(), {
      resume: { nativeSessionId: 'aaaaaaaa-0000-0000-0000-000000000000', fork: true },
    }).catch((e) => e);
    expect(missing).toBeInstanceOf(ProviderExecutionError);
    await expect(adapterChat(adapter, ask('x'), ctx(), { resume: { nativeSessionId: '--yolo', fork: false } })).rejects.toBeInstanceOf(
      InvalidRequestError,
    );
  });

  it('ends a run Gemini is retrying at the first failed attempt: a rate limit with its wait, nothing left running', async () => {
    const { fake, adapter, ctx } = await setup(REPLAYS.retryingRateLimit);
    const started = Date.now();
    const e = await adapterChat(adapter, ask('hi'), ctx()).catch((x) => x);
    expect(e).toBeInstanceOf(RateLimitError);
    expect(e).toMatchObject({ retryable: true, retryAfterMs: 2000, toolId: 'gemini' });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await waitForPidsGone((await fake.runs()).map((r) => r.pid))).toEqual([]);
  });

  it('leaves the retrying to Gemini with cliRetries (then only the caller ends it)', async () => {
    const { adapter, ctx } = await setup(REPLAYS.retryingRateLimit, undefined, { cliRetries: true });
    // Without the option this replay ends at once with a RateLimitError (above).
    expect(await adapterChat(adapter, ask('hi'), ctx(1500)).catch((x) => x)).toBeInstanceOf(AbortedError);
  });

  it.each([
    ['a 401', REPLAYS.unauthorized, ToolAuthError, /API key not valid/],
    ['no sign-in method', REPLAYS.notSignedIn, ToolAuthError, /Please set an Auth method/],
    ['a daily quota', REPLAYS.dailyQuota, QuotaExceededError, /daily quota/],
    ['a retried 500', REPLAYS.retryingServerError, ProviderExecutionError, /status 500/],
    ['an unknown session', REPLAYS.unknownSession, ProviderExecutionError, /Invalid session identifier/],
    ['an empty answer', REPLAYS.emptyResponse, ProviderExecutionError, /empty response/],
    ['the turn limit', REPLAYS.maxTurns, ProviderExecutionError, /max session turns/],
    ['an untrusted folder', REPLAYS.untrusted, ProviderExecutionError, /untrusted/],
    [
      'a crash mid-answer',
      { stdout: REPLAYS.ok.stdout!.split('\n').slice(0, 3).join('\n') + '\n', stderr: 'Segmentation fault\n', exitCode: 139 },
      ProviderExecutionError,
      /Segmentation fault/,
    ],
    ['garbage on stdout', { stdout: 'not an event\n', exitCode: 0 }, ProviderExecutionError, /without a result \(1 output line/],
  ] as const)('%s', async (_what, replay, type, message) => {
    const { adapter, ctx } = await setup(replay);
    const e = await adapterChat(adapter, ask('hi'), ctx()).catch((x) => x);
    expect(e).toBeInstanceOf(type);
    expect(e.message).toMatch(message);
    expect(e.message).not.toContain('hi\n');
  });

  it('detects the version, the models with the default from Gemini settings, and vision', async () => {
    const { fake, adapter } = await setup(REPLAYS.ok);
    await writeFile(path.join(fake.home, '.gemini', 'settings.json'), JSON.stringify({ model: { name: 'gemini-2.5-pro' } }));
    const ctx: CallContext = { config: {}, env: fake.env, signal: AbortSignal.timeout(20_000) };
    expect(await adapter.detect(ctx)).toEqual({
      available: true,
      version: '0.61.0',
      models: ['gemini-2.5-pro', 'auto', 'pro', 'flash', 'flash-lite'],
      defaultModel: 'gemini-2.5-pro',
      capabilities: ['vision'],
    });
    await adapterChat(adapter, ask('hi'), ctx);
    expect((await fake.runs())[0]!.argv).toContain('gemini-2.5-pro');
  });
});
