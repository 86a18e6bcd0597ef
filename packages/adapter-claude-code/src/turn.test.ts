import { describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { InvalidRequestError, ProviderExecutionError } from '@toolbridge/core';
import { adapterChat, makeTempDir, waitForPidsGone } from '@toolbridge/test-suite/kit';
import { accessArgs, refusesBypass } from './permissions.js';
import { capture, captureText, flagOf, readPids, readRecords, stdinLines } from './testing/fake-claude.js';
import { fakeSetups } from './testing/setup.js';

const { setup, defer } = fakeSetups();

const ok = { chat: { stdoutFile: capture('claude-partial-stream.out') } };
const hello = { messages: [{ role: 'user' as const, content: 'Say hello' }] };
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const SESSION = '1982b433-e8b3-4768-8988-15b683071763';

describe('permission levels', () => {
  it('workspace-write: file tools and Bash, edits accepted, prompts denied, extra dirs; the result says what applied', async () => {
    const s = await setup(ok);
    const extra = await makeTempDir('tb-claude-extra-');
    defer(extra.cleanup);
    const result = await s.registry.chat('claude-code', { ...hello, permissions: 'workspace-write', additionalDirs: [extra.dir, s.dir] });
    const [run] = await readRecords(s.recordFile);
    expect(flagOf(run!, '--tools')).toBe('Read,Glob,Grep,Edit,Write,NotebookEdit,Bash');
    expect(flagOf(run!, '--permission-mode')).toBe('acceptEdits');
    expect(flagOf(run!, '--permission-prompts')).toBe('none');
    expect(run!.argv).not.toContain('--allowedTools');
    expect(run!.argv.filter((a, i) => run!.argv[i - 1] === '--add-dir')).toEqual([extra.dir, s.dir]);
    expect(result.metadata.permissions).toEqual({
      requested: 'workspace-write',
      applied: 'workspace-write',
      source: 'request',
      note: expect.stringMatching(/no OS sandbox/),
    });
  });

  it('read-only is exact; a chat nobody set a level for has no tools at all', async () => {
    const s = await setup(ok);
    const ro = await s.registry.chat('claude-code', { ...hello, permissions: 'read-only' });
    await s.registry.chat('claude-code', hello);
    const [first, second] = await readRecords(s.recordFile);
    expect([flagOf(first!, '--tools'), flagOf(first!, '--permission-mode')]).toEqual(['Read,Glob,Grep', 'dontAsk']);
    expect(ro.metadata.permissions).toEqual({ requested: 'read-only', applied: 'read-only', source: 'request' });
    expect(flagOf(second!, '--tools')).toBe('');
    expect(second!.argv).not.toContain('--add-dir');
  });

  it('the permissions config key and claudeCodeToolAccess give the default; the request wins', async () => {
    const s = await setup(ok, {}, { permissions: 'workspace-write', claudeCodeToolAccess: 'edit' });
    const edit = await s.registry.chat('claude-code', hello);
    expect(edit.metadata.permissions).toMatchObject({
      requested: 'workspace-write',
      applied: 'workspace-write',
      note: expect.stringMatching(/^no shell/),
    });
    await s.registry.chat('claude-code', { ...hello, permissions: 'read-only' });
    const runs = await readRecords(s.recordFile);
    expect(flagOf(runs[0]!, '--tools')).toBe('Read,Glob,Grep,Edit,Write,NotebookEdit');
    expect(flagOf(runs[1]!, '--tools')).toBe('Read,Glob,Grep');
  });

  it('full: bypassPermissions, or allow rules where Claude Code refuses it (root without IS_SANDBOX=1), and says so', async () => {
    expect(accessArgs('full', false)).toEqual(['--permission-mode', 'bypassPermissions']);
    expect(accessArgs('full', true)).toEqual([
      '--permission-mode',
      'dontAsk',
      '--permission-prompts',
      'none',
      '--allowedTools',
      'Bash,Edit,Write,NotebookEdit,Read,Glob,Grep,WebFetch,WebSearch',
    ]);
    const s = await setup(ok);
    const result = await s.registry.chat('claude-code', { ...hello, permissions: 'full' });
    const [run] = await readRecords(s.recordFile);
    const root = refusesBypass(s.env);
    expect(flagOf(run!, '--permission-mode')).toBe(root ? 'dontAsk' : 'bypassPermissions');
    expect(result.metadata.permissions).toEqual({
      requested: 'full',
      applied: 'full',
      source: 'request',
      ...(root ? { note: expect.stringMatching(/refuses bypassPermissions to root/) } : {}),
    });
    expect(refusesBypass({ ...s.env, IS_SANDBOX: '1' })).toBe(false);
  });

  it('a root refusal that slipped through is a clear error, not a crash report', async () => {
    const s = await setup({
      chat: { stderr: '--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n', exitCode: 1 },
    });
    const error = await s.registry.chat('claude-code', hello).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderExecutionError);
    expect(error).toMatchObject({ publicDetails: { reason: 'bypass_refused_as_root' }, retryable: false });
  });
});

describe('sessions', () => {
  it('resume and fork continue Claude Code’s own session; only the new message is sent', async () => {
    const s = await setup(ok);
    const ctx = { config: {}, env: s.env, signal: new AbortController().signal };
    await adapterChat(s.adapter, { messages: [{ role: 'user', content: 'and then?' }] }, ctx, {
      resume: { nativeSessionId: SESSION, fork: false },
    });
    await adapterChat(s.adapter, hello, ctx, { resume: { nativeSessionId: SESSION, fork: true } });
    const [resumed, forked] = await readRecords(s.recordFile);
    expect(flagOf(resumed!, '--resume')).toBe(SESSION);
    expect(resumed!.argv).not.toContain('--fork-session');
    expect(stdinLines(resumed!)[0]!.message.content).toEqual([{ type: 'text', text: 'and then?' }]);
    expect(flagOf(forked!, '--resume')).toBe(SESSION);
    expect(forked!.argv).toContain('--fork-session');
    expect(s.adapter.features.sessions).toEqual({ resume: true, fork: true });
  });

  it('an id that is not Claude Code’s is refused before anything runs', async () => {
    const s = await setup(ok);
    const ctx = { config: {}, env: s.env, signal: new AbortController().signal };
    const error = await adapterChat(s.adapter, hello, ctx, {
      resume: { nativeSessionId: '--dangerously-skip-permissions', fork: false },
    }).catch((e) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(await readRecords(s.recordFile)).toEqual([]);
  });

  it('a session Claude Code lost → a typed error (replaying the real answer)', async () => {
    const s = await setup({
      chat: { stdoutFile: capture('claude-resume-missing.out'), stderr: await captureText('claude-resume-missing.err'), exitCode: 1 },
    });
    const ctx = { config: {}, env: s.env, signal: new AbortController().signal };
    const error = await adapterChat(s.adapter, hello, ctx, { resume: { nativeSessionId: SESSION, fork: false } }).catch((e) => e);
    expect(error).toMatchObject({ code: 'provider_execution_failed', publicDetails: { reason: 'native_session_missing' } });
  });

  it('persistSessions: false → no native sessions (core hands the transcript over)', async () => {
    const s = await setup(ok, { persistSessions: false });
    expect(s.adapter.features.sessions).toBeUndefined();
  });
});

describe('input', () => {
  it('images go as native image blocks, in order, on stdin', async () => {
    const s = await setup(ok);
    await s.registry.chat('claude-code', {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image', data: PNG, mediaType: 'image/png' },
          ],
        },
      ],
    });
    const [run] = await readRecords(s.recordFile);
    expect(stdinLines(run!)[0]!.message.content).toEqual([
      { type: 'text', text: 'What is this?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
    ]);
  });

  it('images with a named model that is not Anthropic’s are refused before anything runs', async () => {
    const s = await setup(ok);
    const image = { role: 'user' as const, content: [{ type: 'image' as const, data: PNG, mediaType: 'image/png' as const }] };
    const error = await s.registry.chat('claude-code', { messages: [image], model: 'gpt-4o-mini' }).catch((e) => e);
    expect(error).toMatchObject({ code: 'invalid_request', publicDetails: { reason: 'unsupported', feature: 'images' } });
    expect(await readRecords(s.recordFile)).toEqual([]);
  });

  it('a message that starts with "/" reaches the model, not Claude Code’s command handler', async () => {
    const s = await setup(ok);
    await s.registry.chat('claude-code', { messages: [{ role: 'user', content: '/clear' }] });
    const [run] = await readRecords(s.recordFile);
    expect(stdinLines(run!)[0]!.message.content).toEqual([{ type: 'text', text: '\n/clear' }]);
  });

  it('a JSON answer: the schema goes in the first initialize (not argv), one attempt per run; the answer is the tool call', async () => {
    const s = await setup({ chat: { stdoutFile: capture('claude-structured.out') } });
    const schema = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name', 'age'] };
    const result = await s.registry.chat('claude-code', { ...hello, responseFormat: { type: 'json_schema', schema } });
    expect(result.object).toEqual({ name: 'Ada', age: 36 });
    const [run] = await readRecords(s.recordFile);
    const [init, user] = stdinLines(run!);
    expect(init).toEqual({ type: 'control_request', request_id: 'init', request: { subtype: 'initialize', jsonSchema: schema } });
    expect(user!.type).toBe('user');
    expect(run!.argv.join(' ')).not.toMatch(/json-schema|properties/);
    expect(run!.env.MAX_STRUCTURED_OUTPUT_RETRIES).toBe('1');
  });

  it('a schema that is not an object is wrapped for the tool and unwrapped from the answer', async () => {
    const s = await setup({
      chat: {
        stdout:
          '{"type":"result","subtype":"success","is_error":false,"result":"","structured_output":{"value":["a","b"]},"session_id":"' +
          SESSION +
          '"}\n',
      },
    });
    const result = await s.registry.chat('claude-code', {
      ...hello,
      responseFormat: { type: 'json_schema', schema: { type: 'array', items: { type: 'string' } } },
    });
    expect(result.object).toEqual(['a', 'b']);
    const [run] = await readRecords(s.recordFile);
    expect(stdinLines(run!)[0]!.request.jsonSchema).toEqual({
      type: 'object',
      properties: { value: { type: 'array', items: { type: 'string' } } },
      required: ['value'],
      additionalProperties: false,
    });
  });
});

describe('the run', () => {
  it('a run that stays alive after its answer (a background job) is ended; the answer stands and nothing is left', async () => {
    const s = await setup({ chat: { stdoutFile: capture('claude-mock-stream.out'), hang: true } });
    const started = Date.now();
    const result = await s.registry.chat('claude-code', hello, { timeoutMs: 20_000 });
    expect(result.message.content).toBe('Hello from mock');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await waitForPidsGone(await readPids(s.pidFile))).toEqual([]);
  });

  it('the private TMPDIR is gone after the call', async () => {
    const s = await setup(ok);
    await s.registry.chat('claude-code', hello);
    const [run] = await readRecords(s.recordFile);
    expect(run!.tmpdirMode).toBe(0o700);
    expect(existsSync(run!.env.TMPDIR!)).toBe(false);
    expect(path.basename(run!.env.TMPDIR!)).toBe('tmp');
  });
});
