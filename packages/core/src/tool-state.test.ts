import { describe, expect, it } from '@jest/globals';
import { scriptedAdapter } from '@toolbridge/test-suite/kit';
import { ToolAuthError } from './errors.js';
import { createRegistry } from './registry.js';

const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };

/** A tool whose login check reads files (it always says "logged in"), and whose provider may refuse a chat. */
function refusingTool() {
  let refuse = false;
  const tool = scriptedAdapter('files-login', {
    login: { authenticated: true, method: 'oauth-personal' },
    script: () =>
      refuse
        ? { error: new ToolAuthError('files-login is not signed in or was refused: 401', { toolId: 'files-login' }) }
        : { deltas: ['ok'] },
  });
  const registry = createRegistry({ adapters: [tool], healthTtlMs: 0 });
  return { tool, registry, refuse: (v: boolean) => (refuse = v) };
}

describe('a chat the provider refused (401) outweighs a login check that reads files', () => {
  it('health says unauthenticated (source: chat) until a later chat succeeds', async () => {
    const { registry, refuse } = refusingTool();
    expect(await registry.health('files-login', { refresh: true })).toMatchObject({ authenticated: true, authSource: 'check' });
    refuse(true);
    await expect(registry.chat('files-login', ask)).rejects.toBeInstanceOf(ToolAuthError);
    const after = await registry.health('files-login', { refresh: true });
    expect(after).toMatchObject({ authenticated: false, authStatus: 'unauthenticated', authSource: 'chat', authMethod: 'oauth-personal' });
    expect(after.reason).toContain('401');
    // Checked again: the files have not changed, so the refusal stands.
    expect(await registry.health('files-login', { refresh: true })).toMatchObject({ authenticated: false, authSource: 'chat' });
    refuse(false);
    await registry.chat('files-login', ask);
    expect(await registry.health('files-login', { refresh: true })).toMatchObject({ authenticated: true, authSource: 'check' });
    await registry.close();
  });

  it('a changed login ends it', async () => {
    const { tool, registry, refuse } = refusingTool();
    await registry.health('files-login', { refresh: true });
    refuse(true);
    await expect(registry.chat('files-login', ask)).rejects.toBeInstanceOf(ToolAuthError);
    expect(await registry.health('files-login', { refresh: true })).toMatchObject({ authenticated: false, authSource: 'chat' });
    tool.setAuth({ authenticated: true, method: 'gemini-api-key' });
    expect(await registry.health('files-login', { refresh: true })).toMatchObject({
      authenticated: true,
      authSource: 'check',
      authMethod: 'gemini-api-key',
    });
    await registry.close();
  });
});
