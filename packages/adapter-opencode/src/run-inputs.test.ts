import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InvalidRequestError, ProviderExecutionError, type ChatRequest, type ToolbridgeConfig } from '@toolbridge/core';
import { createCallContext } from '@toolbridge/core/runtime';
import { adapterChat, type DirectCallOptions } from '@toolbridge/test-suite/kit';
import { runArgs } from './argv.js';
import { createOpenCodeAdapter } from './index.js';
import { envWithPermissions, opencodePermissions, permissionConfig, sessionRules } from './permissions.js';
import { capture } from './testing/captures.js';
import { fakeOpenCodes, type FakeOpenCode } from './testing/fake-opencode.js';
import { SESSION_TITLE, userWantsTitles } from './titles.js';

const fakes = fakeOpenCodes();
afterAll(() => fakes.cleanup());
const fake = fakes.fake;

/** A chat through the adapter as core runs it; `resume` as core sends it for a native session. */
// The inputs of `opencode run`, so `warm: false` (the warm transport is in real-opencode-warm*.test.ts).
async function chat(f: FakeOpenCode, request: ChatRequest, config: ToolbridgeConfig = {}, options: DirectCallOptions = {}) {
  const { ctx, done } = createCallContext({ config, env: f.env, toolId: 'opencode' }, { timeoutMs: 10_000 });
  try {
    return await adapterChat(createOpenCodeAdapter({ warm: false }), request, ctx, options);
  } finally {
    done();
  }
}

// A 1x1 PNG.
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const say = (content: string) => ({ messages: [{ role: 'user' as const, content }] });

describe('argv', () => {
  it('continues or forks a session in its directory, without a new title, and ends a file list with --', () => {
    expect(runArgs({ dir: '/w', files: [], extraArgs: [], resume: { nativeSessionId: 'ses_1', fork: true }, model: 'a/b' }).join(' ')).toBe(
      'run --format json --thinking --dir /w -m a/b --session ses_1 --fork',
    );
    expect(runArgs({ dir: '/w', files: ['/s/i.png'], extraArgs: ['--agent', 'plan'], title: 'T' }).join(' ')).toBe(
      'run --format json --thinking --dir /w --title T --agent plan -f /s/i.png --',
    );
  });

  it('passes resume to opencode run, with no title (the session has one)', async () => {
    const f = await fake();
    await chat(f, say('again'), {}, { resume: { nativeSessionId: 'ses_abc', fork: false } });
    const { argv } = await f.lastRun();
    expect(argv).toEqual(expect.arrayContaining(['--session', 'ses_abc']));
    expect(argv).not.toContain('--fork');
    expect(argv).not.toContain('--title');
  });

  it('refuses to continue a session from another directory than its own (opencode would hang)', async () => {
    const f = await fake();
    const adapter = createOpenCodeAdapter({ warm: false });
    const run = async (cwd: string, resume?: DirectCallOptions['resume']) => {
      const { ctx, done } = createCallContext({ config: {}, env: f.env, toolId: 'opencode' }, { timeoutMs: 10_000 });
      try {
        return await adapterChat(adapter, { ...say('x'), cwd }, ctx, resume ? { resume } : {});
      } finally {
        done();
      }
    };
    const a = await mkdtemp(path.join(tmpdir(), 'toolbridge-oc-a-'));
    const b = await mkdtemp(path.join(tmpdir(), 'toolbridge-oc-b-'));
    const first = await run(a);
    const id = String(first.metadata.nativeSessionId);
    await expect(run(b, { nativeSessionId: id, fork: false })).rejects.toThrow(/works in .*toolbridge-oc-a-/);
    await expect(run(a, { nativeSessionId: id, fork: false })).resolves.toMatchObject({ message: { content: 'Hello from mock' } });
    expect((await f.invocations()).filter((i) => i.argv[0] === 'run')).toHaveLength(2);
    await rm(a, { recursive: true });
    await rm(b, { recursive: true });
  });

  it('a session OpenCode no longer has is a typed error (recorded stderr), never shown its id', async () => {
    const f = await fake({ run: { stderr: capture('opencode-run-session-unknown.err'), exitCode: 1 } });
    const error = await chat(f, say('again'), {}, { resume: { nativeSessionId: 'ses_gone', fork: false } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderExecutionError);
    expect(error).toMatchObject({ publicDetails: { reason: 'native_session_missing' }, retryable: false });
    expect((error as Error).message).not.toContain('ses_gone');
  });

  it('a tool call OpenCode auto-rejected (an ask rule of the user) says so (recorded run)', async () => {
    const f = await fake({ run: { stdout: capture('opencode-run-ask-rejected.out'), stderr: capture('opencode-run-ask-rejected.err') } });
    const error = await chat(f, say('write it')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderExecutionError);
    expect((error as Error).message).toContain('asked for permission to use a tool and nobody could answer (1 call rejected)');
  });
});

describe('titles', () => {
  it('asks for one model call unless the user configured the title agent', async () => {
    const f = await fake();
    await chat(f, say('hi'));
    expect((await f.lastRun()).argv).toEqual(expect.arrayContaining(['--title', SESSION_TITLE]));
    expect(userWantsTitles({ OPENCODE_CONFIG_CONTENT: '{"agent":{"title":{"model":"a/b"}}}' })).toBe(true);
    expect(userWantsTitles({ OPENCODE_CONFIG_CONTENT: '{"agent":{"title":{"disable":true}}}' })).toBe(false);
    expect(userWantsTitles({ OPENCODE_CONFIG_CONTENT: '{"provider":{}}' })).toBe(false);
    const dir = path.join(f.env.XDG_CONFIG_HOME!, 'opencode');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'opencode.jsonc'), '{\n  // mine\n  "agent": { "title": { "prompt": "http://x" }, },\n}\n');
    expect(userWantsTitles(f.env)).toBe(true);
    await chat(f, say('hi'));
    expect((await f.lastRun()).argv).not.toContain('--title');
  });
});

describe('permissions', () => {
  it('maps each level to rules with no ask left, narrower below full; no shell below full (no sandbox)', () => {
    const ro = permissionConfig('read-only', ['/extra']);
    expect(ro).toMatchObject({ edit: 'deny', bash: 'deny', webfetch: 'deny', question: 'deny', plan_enter: 'deny', plan_exit: 'deny' });
    expect(ro.external_directory).toEqual({ '*': 'deny', '/extra/*': 'allow' });
    expect(permissionConfig('workspace-write', [])).toMatchObject({ edit: 'allow', bash: 'deny', external_directory: { '*': 'deny' } });
    expect(permissionConfig('full', [])).toMatchObject({ '*': 'allow', external_directory: 'allow', question: 'deny' });
    for (const level of ['read-only', 'workspace-write', 'full'] as const) {
      expect(JSON.stringify(permissionConfig(level, []))).not.toContain('ask');
    }
    expect(sessionRules({ bash: 'deny', read: { '*': 'allow', '*.env': 'deny' } })).toEqual([
      { permission: 'bash', pattern: '*', action: 'deny' },
      { permission: 'read', pattern: '*', action: 'allow' },
      { permission: 'read', pattern: '*.env', action: 'deny' },
    ]);
  });

  it('with approvals: commands, edits and tools that are not read-only are asked; the level still bounds edits; subagents refused', () => {
    const ww = sessionRules(permissionConfig('workspace-write', ['/extra'], true));
    const last = (permission: string, pattern = '*') =>
      ww.filter((r) => r.permission === permission && r.pattern === pattern).at(-1)?.action;
    expect([last('*'), last('bash'), last('edit'), last('task'), last('mcp_tool_of_a_server')]).toEqual([
      'ask',
      'ask',
      'ask',
      'deny',
      undefined,
    ]);
    for (const reader of ['read', 'glob', 'grep', 'list', 'webfetch']) expect(last(reader)).toBe('allow');
    expect([last('external_directory'), last('external_directory', '/extra/*')]).toEqual(['deny', 'allow']);
    expect(permissionConfig('full', [], true)).toMatchObject({ '*': 'ask', bash: 'ask', edit: 'ask', external_directory: 'allow' });
    // read-only has nothing to ask: its rules are the same with or without approvals.
    expect(permissionConfig('read-only', ['/extra'], true)).toEqual(permissionConfig('read-only', ['/extra']));
    expect(opencodePermissions({ permissions: 'workspace-write', additionalDirs: [] }, { config: {} }, true).metadata.note).toContain(
      'asked before it runs',
    );
  });

  it('takes the request level, else the permissions config key, else read-only', () => {
    expect(opencodePermissions({ permissions: 'full', additionalDirs: [] }, { config: {} }).level).toBe('full');
    expect(opencodePermissions({ additionalDirs: [] }, { config: { permissions: 'workspace-write' } }).metadata).toMatchObject({
      requested: 'workspace-write',
      applied: 'workspace-write',
      note: expect.stringContaining('bash is refused'),
    });
    expect(opencodePermissions({ additionalDirs: [] }, { config: {} }).level).toBe('read-only');
  });

  it("adds the rules to the user's OPENCODE_CONFIG_CONTENT, replacing their permission section and OPENCODE_PERMISSION", async () => {
    const env = envWithPermissions(
      {
        OPENCODE_CONFIG_CONTENT: '{"provider":{"mock":{}},"permission":{"bash":"allow"}}',
        OPENCODE_PERMISSION: '{"edit":"allow"}',
        HOME: '/h',
      },
      { bash: 'deny' },
    );
    expect(JSON.parse(env.OPENCODE_CONFIG_CONTENT!)).toEqual({ provider: { mock: {} }, permission: { bash: 'deny' } });
    expect(env.OPENCODE_PERMISSION).toBeUndefined();
    expect(env.HOME).toBe('/h');
    expect(() => envWithPermissions({ OPENCODE_CONFIG_CONTENT: '[1]' }, {})).toThrow(/not a JSON object/);

    const f = await fake();
    await chat(f, { ...say('go'), permissions: 'workspace-write' });
    const run = (await f.invocations()).find((i) => i.argv[0] === 'run')!;
    expect(JSON.parse(run.config!).permission).toEqual(permissionConfig('workspace-write', []));
  });
});

describe('images', () => {
  const image = { type: 'image' as const, mediaType: 'image/png' as const, data: PIXEL };
  let scratch = '';
  const withImage: ChatRequest = { messages: [{ role: 'user', content: [{ type: 'text', text: 'see' }, image] }] };

  it('sends a vision model the image as a -f file in the scratch directory of the call, removed after it', async () => {
    const f = await fake({ models: { stdout: capture('opencode-models-verbose.out') } });
    await chat(f, { ...withImage, model: 'mock/vis' }, {}, { onScratch: (d) => (scratch = d) });
    const { argv } = await f.lastRun();
    const file = argv[argv.indexOf('-f') + 1]!;
    expect(file.startsWith(scratch + path.sep)).toBe(true);
    expect(argv.at(-1)).toBe('--');
    expect(file).toMatch(/image-1\.png$/);
    await expect(stat(file)).rejects.toThrow();
    expect((await f.invocations()).map((i) => i.argv.slice(0, 3))).toEqual([
      ['models', 'mock', '--verbose'],
      expect.arrayContaining(['run']),
    ]);
  });

  it('refuses an image to a model without image input, before running', async () => {
    const f = await fake({ models: { stdout: capture('opencode-models-verbose.out') } });
    const error = await chat(f, { ...withImage, model: 'mock/mock-model' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((await f.invocations()).some((i) => i.argv[0] === 'run')).toBe(false);
  });

  it('detect says vision when the default model takes images', async () => {
    const f = await fake({ models: { stdout: capture('opencode-models-verbose.out') } });
    const { ctx, done } = createCallContext({ config: { opencodeModel: 'mock/vis' }, env: f.env, toolId: 'opencode' }, {});
    const d = await createOpenCodeAdapter({ warm: false }).detect(ctx);
    done();
    expect(d.capabilities).toEqual(['vision']);
    expect(d.models).toContain('opencode/big-pickle');
  });
});
