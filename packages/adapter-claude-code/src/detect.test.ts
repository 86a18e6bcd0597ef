import { describe, expect, it } from '@jest/globals';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { InvalidRequestError } from '@toolbridge/core';
import { pathWithout } from '@toolbridge/test-suite/kit';
import { createClaudeCodeAdapter } from './index.js';
import { capture } from './testing/fake-claude.js';
import { fakeSetups } from './testing/setup.js';

const { setup } = fakeSetups();

/** Write Claude Code's user settings where it reads them. */
async function userSettings(configDir: string, settings: unknown) {
  await mkdir(configDir, { recursive: true });
  await writeFile(path.join(configDir, 'settings.json'), typeof settings === 'string' ? settings : JSON.stringify(settings));
}

describe('detect', () => {
  it('reads the version, offers the aliases, and takes images', async () => {
    const s = await setup({ version: { stdoutFile: capture('claude-version.out') } });
    const [tool] = await s.registry.discover();
    expect(tool).toMatchObject({ id: 'claude-code', available: true, version: '2.1.330', models: ['sonnet', 'opus', 'haiku'] });
    expect(tool!.defaultModel).toBeUndefined();
    expect(tool!.capabilities).toContain('vision');
  });

  it('puts the configured model first and makes it the default, without duplicates', async () => {
    const s = await setup({}, {}, { claudeCodeModel: 'opus' });
    expect(await s.registry.tool('claude-code')).toMatchObject({ models: ['opus', 'sonnet', 'haiku'], defaultModel: 'opus' });
    s.registry.config.replace({ claudeCodeModel: 'claude-sonnet-5-5' });
    expect(await s.registry.tool('claude-code')).toMatchObject({
      models: ['claude-sonnet-5-5', 'sonnet', 'opus', 'haiku'],
      defaultModel: 'claude-sonnet-5-5',
    });
  });

  it("the user's own default model: settings.json in CLAUDE_CONFIG_DIR, ANTHROPIC_MODEL over it, the configured model over both", async () => {
    const s = await setup({});
    await userSettings(s.env.CLAUDE_CONFIG_DIR!, { model: 'claude-haiku-5-5', permissions: {} });
    // ~/.claude is not read when CLAUDE_CONFIG_DIR is set (as Claude Code does).
    await userSettings(path.join(s.env.HOME!, '.claude-elsewhere'), { model: 'elsewhere' });
    const ctx = () => ({ config: {}, env: s.env, signal: new AbortController().signal });
    expect(await s.adapter.detect(ctx())).toMatchObject({
      defaultModel: 'claude-haiku-5-5',
      models: ['claude-haiku-5-5', 'sonnet', 'opus', 'haiku'],
      capabilities: ['vision'],
    });
    s.env.ANTHROPIC_MODEL = 'sonnet';
    expect(await s.adapter.detect(ctx())).toMatchObject({ defaultModel: 'sonnet', models: ['sonnet', 'opus', 'haiku'] });
    expect(await s.adapter.detect({ ...ctx(), config: { claudeCodeModel: 'opus' } })).toMatchObject({ defaultModel: 'opus' });
  });

  it('without CLAUDE_CONFIG_DIR: ~/.claude/settings.json; a broken or model-less file says nothing', async () => {
    const s = await setup({});
    const { CLAUDE_CONFIG_DIR: _unset, ...env } = s.env;
    const detect = () => s.adapter.detect({ config: {}, env, signal: new AbortController().signal });
    await userSettings(path.join(env.HOME!, '.claude'), { model: 'fable' });
    expect((await detect()).defaultModel).toBe('fable');
    await userSettings(path.join(env.HOME!, '.claude'), '{ not json');
    expect((await detect()).defaultModel).toBeUndefined();
    await userSettings(path.join(env.HOME!, '.claude'), { model: 42 });
    expect((await detect()).defaultModel).toBeUndefined();
  });

  it('a default model that is not Anthropic’s (a proxy) is not claimed to take images', async () => {
    const s = await setup({});
    const tool = await s.adapter.detect({ config: { claudeCodeModel: 'gpt-4o-mini' }, env: s.env, signal: new AbortController().signal });
    expect(tool.capabilities).toEqual([]);
  });

  it('not installed, or a broken install, is unavailable with a reason', async () => {
    const s = await setup({ version: { stderr: 'error while loading shared libraries\n', exitCode: 127 } });
    expect(await s.registry.tool('claude-code')).toMatchObject({
      available: false,
      reason: expect.stringMatching(/exited with code 127: error while loading/),
    });
    const adapter = createClaudeCodeAdapter();
    const ctx = { config: {}, env: { PATH: pathWithout() }, signal: new AbortController().signal };
    expect(await adapter.detect(ctx)).toMatchObject({ available: false, models: [], reason: expect.stringMatching(/not installed/) });
  });

  it('rejects invalid config values through the schema', async () => {
    const s = await setup({});
    expect(() => s.registry.config.replace({ claudeCodeMaxTurns: 0 })).toThrow(InvalidRequestError);
    expect(() => s.registry.config.replace({ claudeCodeToolAccess: 'everything' })).toThrow(/must be one of/);
    expect(() => s.registry.config.replace({ claudeCodeModel: 5 })).toThrow(InvalidRequestError);
  });
});
