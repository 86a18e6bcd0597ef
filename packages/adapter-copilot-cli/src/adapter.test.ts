import { afterEach, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
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
import { createCopilotCliAdapter } from './adapter.js';
import type { CopilotCliAdapterOptions } from './options.js';
import { fakeCopilotEnv, REPLAYS, type FakeCopilot, type Replay } from './testing/fake-copilot.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const fakes: FakeCopilot[] = [];
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.cleanup();
});

async function setup(
  chat: Replay,
  config: ToolbridgeConfig = { copilotModel: 'mock-model' },
  options: CopilotCliAdapterOptions = {},
  env: NodeJS.ProcessEnv = {},
) {
  const fake = await fakeCopilotEnv(chat);
  fakes.push(fake);
  const adapter = createCopilotCliAdapter(options);
  const ctx = (timeoutMs = 20_000): CallContext => ({ config, env: { ...fake.env, ...env }, signal: AbortSignal.timeout(timeoutMs) });
  return { fake, adapter, ctx };
}

const ask = (text: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({ messages: [{ role: 'user', content: text }], ...extra });
const READ_ONLY = ['--deny-tool=write', '--deny-tool=shell', '--disallow-temp-dir'];

describe('copilot adapter (fake CLI replaying real captures)', () => {
  it('runs one headless turn: prompt on stdin only, JSON events, usage from the report file, read-only flags', async () => {
    const { fake, adapter, ctx } = await setup(REPLAYS.ok);
    let scratch = '';
    const result = await adapterChat(adapter, ask('SECRET-PROMPT-1234 say hi'), ctx(), { onScratch: (d) => (scratch = d) });
    expect(result).toEqual({
      message: { role: 'assistant', content: 'Hello from mock' },
      usage: { input_tokens: 20, output_tokens: 7, cached_input_tokens: 5, cache_write_input_tokens: 0, reasoning_output_tokens: 2 },
      model: 'mock-model',
      metadata: {
        transport: 'spawn',
        nativeSessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        permissions: {
          requested: 'read-only',
          applied: 'read-only',
          note: expect.stringContaining('shell is denied'),
          source: 'default',
          flags: READ_ONLY,
        },
        premiumRequests: 0,
      },
    });
    const [run] = await fake.runs();
    expect(run!.stdin).toBe('SECRET-PROMPT-1234 say hi');
    expect(run!.argv.join(' ')).not.toContain('SECRET');
    expect(run!.argv).toEqual([
      '--output-format=json',
      '--no-auto-update',
      `--usage-output-file=${path.join(scratch, 'usage.json')}`,
      ...READ_ONLY,
      '--model=mock-model',
    ]);
    expect(existsSync(scratch)).toBe(false);
  });

  it.each([
    ['workspace-write', ['--allow-tool=write', '--deny-tool=shell', '--disallow-temp-dir'], REPLAYS.toolsWorkspaceWrite],
    ['full', ['--yolo'], REPLAYS.toolsFull],
  ] as const)('permissions %s → %j', async (level, flags, replay) => {
    const { fake, adapter, ctx } = await setup(replay);
    const result = await adapterChat(adapter, ask('make two files', { permissions: level }), ctx());
    expect(result.metadata.permissions).toEqual({
      requested: level,
      applied: level,
      ...(level === 'full' ? {} : { note: expect.stringContaining('shell is denied') }),
      source: 'request',
      flags,
    });
    const [run] = await fake.runs();
    expect(run!.argv.slice(3, 3 + flags.length)).toEqual(flags);
    expect(result.message.content).toBe('All done.');
  });

  it('reports a level narrowed by the call’s limit as the others do: requested is what was asked', async () => {
    const { adapter, ctx } = await setup(REPLAYS.ok, { copilotModel: 'mock-model', permissions: 'full' });
    const result = await adapterChat(adapter, ask('hi'), { ...ctx(), maxPermissions: 'read-only' });
    expect(result.metadata.permissions).toMatchObject({
      requested: 'full',
      applied: 'read-only',
      source: 'config',
      note: expect.stringMatching(/maxPermissions read-only/),
    });
  });

  it('refuses approvals when warm mode is off (the headless run would act without asking)', async () => {
    const { fake, adapter, ctx } = await setup(REPLAYS.ok, { copilotModel: 'mock-model' }, { warm: false });
    const approvals = { ask: async () => ({ allow: true }) };
    const e = await adapterChat(adapter, ask('write it', { permissions: 'full' }), { ...ctx(), approvals } as CallContext).catch((x) => x);
    expect(e).toMatchObject({ code: 'invalid_request', publicDetails: { reason: 'unsupported', feature: 'approvals' } });
    expect(e.message).toMatch(/asks for approvals only over its warm ACP transport/);
    expect(await fake.runs()).toEqual([]);
  });

  it('drops COPILOT_ALLOW_ALL from the environment below full', async () => {
    const { fake, adapter, ctx } = await setup(REPLAYS.ok, undefined, {}, { COPILOT_ALLOW_ALL: 'true' });
    await adapterChat(adapter, ask('hi'), ctx());
    await adapterChat(adapter, ask('hi', { permissions: 'full' }), ctx());
    expect((await fake.runs()).map((r) => r.env.COPILOT_ALLOW_ALL)).toEqual([undefined, 'true']);
  });

  it('streams tool steps as activities, started and finished', async () => {
    const { adapter, ctx } = await setup(REPLAYS.toolsReadOnly);
    const seen: string[] = [];
    for await (const e of adapterStream(adapter, ask('go'), ctx())) {
      seen.push(e.type === 'activity' ? `${e.activity.kind}:${e.activity.status}` : e.type);
    }
    expect(seen).toEqual(['command:started', 'command:failed', 'file_change:started', 'file_change:failed', 'delta', 'delta', 'result']);
  });

  it('attaches images as private files, and passes additional directories', async () => {
    const { fake, adapter, ctx } = await setup(REPLAYS.ok);
    const extra = path.join(fake.home, 'extra');
    await mkdir(extra, { recursive: true });
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
      additionalDirs: [extra],
    };
    await adapterChat(adapter, request, ctx(), { onScratch: (d) => (scratch = d) });
    const [run] = await fake.runs();
    expect(run!.stdin).toBe('what is this?[image 1: image/png]');
    // In the run's own directory inside the scratch directory (a repair turn gets another).
    const image = Object.keys(run!.scratch).find((n) => n.endsWith('image-1.png'));
    expect(image).toMatch(/^run-[^/]+\/image-1\.png$/);
    expect(run!.argv.slice(-2)).toEqual([`--add-dir=${extra}`, `--attachment=${path.join(scratch, image!)}`]);
    expect(run!.scratch[image!]).toBe(0o600);
  });

  it('resumes a native session; refuses ids and models that would be options', async () => {
    const { fake, adapter, ctx } = await setup(REPLAYS.ok);
    const id = '5fff0a11-371c-4f28-bca4-e70d7c3b60be';
    await adapterChat(adapter, ask('again'), ctx(), { resume: { nativeSessionId: id, fork: false } });
    expect((await fake.runs())[0]!.argv.at(-1)).toBe(`--resume=${id}`);
    await expect(adapterChat(adapter, ask('x'), ctx(), { resume: { nativeSessionId: '--yolo', fork: false } })).rejects.toBeInstanceOf(
      InvalidRequestError,
    );
    await expect(adapterChat(adapter, ask('x', { model: '--yolo' }), ctx())).rejects.toBeInstanceOf(InvalidRequestError);
    expect(await fake.runs()).toHaveLength(1);
  });

  it('ends a run Copilot is retrying at its first retry, typed, with nothing left running', async () => {
    const { fake, adapter, ctx } = await setup({ ...REPLAYS.rateLimited, delayMs: 20 });
    const e = await adapterChat(adapter, ask('hi'), ctx()).catch((x) => x);
    expect(e).toBeInstanceOf(RateLimitError);
    expect(e).toMatchObject({ retryAfterMs: 2000, toolId: 'copilot' });
    // Stopped at the first retry: the final "retried 5 times" message never came.
    expect(e.message).not.toMatch(/retried 5 times/);
    expect(await waitForPidsGone((await fake.runs()).map((r) => r.pid))).toEqual([]);
  });

  it('leaves the retrying to Copilot with cliRetries, and reports its final error', async () => {
    const { adapter, ctx } = await setup(REPLAYS.rateLimited, undefined, { cliRetries: true });
    const e = await adapterChat(adapter, ask('hi'), ctx()).catch((x) => x);
    expect(e).toBeInstanceOf(RateLimitError);
    expect(e.message).toMatch(/retried 5 times/);
  });

  it('a run that retried once and then answered is fine with cliRetries', async () => {
    const { adapter, ctx } = await setup(REPLAYS.retriedThenOk, undefined, { cliRetries: true });
    expect((await adapterChat(adapter, ask('hi'), ctx())).message.content).toBe('Hello from mock');
  });

  it('a weekly rate limit ends the run at once although Copilot never exits', async () => {
    const { fake, adapter, ctx } = await setup(REPLAYS.weeklyLimit);
    const e = await adapterChat(adapter, ask('hi'), ctx()).catch((x) => x);
    expect(e).toBeInstanceOf(QuotaExceededError);
    expect(e.resetsAt).toBeInstanceOf(Date);
    expect(await waitForPidsGone((await fake.runs()).map((r) => r.pid))).toEqual([]);
  });

  it.each([
    ['a provider 401', REPLAYS.unauthorized, ToolAuthError, /HTTP 401|Incorrect API key/],
    ['a GitHub 401', REPLAYS.githubUnauthorized, ToolAuthError, /401 Bad credentials/],
    ['no sign-in', REPLAYS.notSignedIn, ToolAuthError, /No authentication information found/],
    ['premium requests used up', REPLAYS.premiumQuota, QuotaExceededError, /premium request allowance/],
    ['a 500', REPLAYS.serverError, ProviderExecutionError, /500/],
    ['no model for a custom provider', REPLAYS.noModel, ProviderExecutionError, /explicit model/],
    ['an unknown session', REPLAYS.unknownSession, ProviderExecutionError, /No session, task, or name matched/],
    [
      'a crash mid-answer',
      { stdout: REPLAYS.ok.stdout!.split('\n').slice(0, 8).join('\n') + '\n', stderr: 'Segmentation fault\n', exitCode: 139 },
      ProviderExecutionError,
      /Segmentation fault/,
    ],
    ['garbage on stdout', { stdout: 'not an event\n', exitCode: 0 }, ProviderExecutionError, /ended without a result/],
  ] as const)('%s', async (_what, replay, type, message) => {
    const { adapter, ctx } = await setup(replay);
    const e = await adapterChat(adapter, ask('hi'), ctx()).catch((x) => x);
    expect(e).toBeInstanceOf(type);
    expect(e.message).toMatch(message);
  });

  it('a run stopped from outside is cancelled, its process gone', async () => {
    const { fake, adapter, ctx } = await setup(REPLAYS.hang);
    expect(await adapterChat(adapter, ask('hi'), ctx(1500)).catch((x) => x)).toBeInstanceOf(AbortedError);
    expect(await waitForPidsGone((await fake.runs()).map((r) => r.pid))).toEqual([]);
  });

  it('detects the version, the configured model and vision', async () => {
    const { adapter, fake } = await setup(REPLAYS.ok);
    expect(await adapter.detect({ config: { copilotModel: 'gpt-5.4' }, env: fake.env, signal: AbortSignal.timeout(20_000) })).toEqual({
      available: true,
      version: '1.0.102',
      models: ['gpt-5.4'],
      defaultModel: 'gpt-5.4',
      capabilities: ['vision'],
    });
    expect(
      await adapter.detect({ config: {}, env: { ...fake.env, COPILOT_MODEL: 'local' }, signal: AbortSignal.timeout(20_000) }),
    ).toMatchObject({
      models: ['local'],
      defaultModel: 'local',
    });
  });
});
