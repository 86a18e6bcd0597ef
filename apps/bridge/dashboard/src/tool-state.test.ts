import { describe, expect, it } from '@jest/globals';
import { INSTALL_HINTS, loadFacts, modelEntries, safeHttpUrl, toolView } from './tool-state.js';
import type { LiveHealthRecord, Tool } from '@toolbridge/core/wire';

const codex: Tool = {
  id: 'codex',
  name: 'Codex',
  type: 'agent',
  capabilities: ['chat'],
  available: true,
  version: '0.169.0',
  models: ['gpt-5', 'gpt-5-codex'],
  defaultModel: 'gpt-5-codex',
};

function health(fields: Partial<LiveHealthRecord>): LiveHealthRecord {
  return {
    toolId: 'codex',
    status: 'healthy',
    available: true,
    authSupported: true,
    authenticated: true,
    authStatus: 'authenticated',
    latencyMs: 12,
    checkedAt: '2026-01-01T00:00:00.000Z',
    load: { active: 0, queued: 0, maxConcurrent: 4, maxQueued: 32 },
    ...fields,
  };
}

describe('toolView', () => {
  it('is ready when installed and logged in, with login method, models (default first) and usage windows', () => {
    const view = toolView(
      codex,
      health({
        authMethod: 'chatgpt',
        usageLimits: {
          status: 'available',
          source: 'local_session',
          plan: 'plus',
          windows: {
            five_hour: { usedPercentage: 42.5, remainingPercentage: 57.5, resetsAt: '2026-01-01T05:00:00.000Z' },
            seven_day: { usedPercentage: 7, remainingPercentage: 93 },
          },
        },
      }),
    );
    expect(view).toMatchObject({
      state: 'ready',
      stateLabel: 'Ready',
      authLabel: 'Logged in (chatgpt)',
      canLogIn: false,
      plan: 'plus',
      version: '0.169.0',
    });
    expect(view.models).toEqual([
      { name: 'gpt-5-codex', isDefault: true },
      { name: 'gpt-5', isDefault: false },
    ]);
    expect(view.windows).toEqual([
      { name: 'five_hour', used: 42.5, remaining: 57.5, resetsAt: '2026-01-01T05:00:00.000Z' },
      { name: 'seven_day', used: 7, remaining: 93 },
    ]);
    expect(view.installHint).toBeUndefined();
  });

  it('marks a window the plan lets run on into billed overage', () => {
    const view = toolView(
      codex,
      health({
        usageLimits: {
          status: 'available',
          windows: { premium_requests: { usedPercentage: 100, remainingPercentage: 0, overagePermitted: true } },
        },
      }),
    );
    expect(view.windows).toEqual([{ name: 'premium_requests', used: 100, remaining: 0, overage: true }]);
  });

  it('offers a login when the tool is installed but logged out', () => {
    const view = toolView(codex, health({ authenticated: false, authStatus: 'unauthenticated', reason: 'Not logged in' }));
    expect(view).toMatchObject({
      state: 'needs_login',
      stateLabel: 'Not logged in',
      canLogIn: true,
      reason: 'Not logged in',
      authLabel: 'Not logged in',
    });
  });

  it('explains a missing tool with its reason and install hint', () => {
    const missing = {
      ...codex,
      available: false,
      version: undefined,
      models: [],
      defaultModel: undefined,
      reason: 'codex is not installed (command "codex" was not found on PATH)',
    };
    expect(toolView(missing, undefined)).toMatchObject({
      state: 'not_installed',
      stateLabel: 'Not installed',
      reason: missing.reason,
      installHint: INSTALL_HINTS.codex,
      canLogIn: false,
    });
  });

  it('tells an installed but unreachable tool from a missing one', () => {
    const ollama: Tool = {
      id: 'ollama',
      name: 'Ollama',
      type: 'runtime',
      capabilities: ['chat'],
      available: false,
      models: [],
      reason: 'Ollama is not running at http://127.0.0.1:11434 (connection refused)',
    };
    const view = toolView(ollama, undefined);
    expect(view).toMatchObject({ state: 'unavailable', stateLabel: 'Not available' });
    expect(view.installHint?.url).toBe('https://ollama.com/download');
  });

  it('believes a health check that finds the tool gone after discovery', () => {
    const view = toolView(
      codex,
      health({
        status: 'unavailable',
        available: false,
        authenticated: false,
        authStatus: 'unknown',
        reason: 'health check timed out after 10000 ms',
      }),
    );
    expect(view).toMatchObject({ state: 'unavailable', reason: 'health check timed out after 10000 ms', canLogIn: false });
  });

  it('shows "checking" until health answers, and tools without a login as needing none', () => {
    expect(toolView(codex, undefined).state).toBe('checking');
    const view = toolView(
      { ...codex, id: 'ollama' },
      health({ toolId: 'ollama', authSupported: false, authenticated: true, authStatus: 'not_required' }),
    );
    expect(view).toMatchObject({ state: 'ready', authLabel: 'No login needed', canLogIn: false });
  });

  it('notes why usage limits are missing, and keeps no windows then', () => {
    const view = toolView(
      codex,
      health({ usageLimits: { status: 'unavailable', reason: 'no Codex session logs in /home/u/.codex/sessions' } }),
    );
    expect(view.windows).toEqual([]);
    expect(view.usageNote).toContain('no Codex session logs');
  });
});

describe('modelEntries', () => {
  it('lists a default model the tool did not list, first', () => {
    expect(modelEntries({ models: ['a'], defaultModel: 'b' })).toEqual([
      { name: 'b', isDefault: true },
      { name: 'a', isDefault: false },
    ]);
  });
});

describe('safeHttpUrl', () => {
  it('lets only http(s) URLs become links', () => {
    expect(safeHttpUrl('https://auth.openai.com/oauth/authorize?x=1')).toBe('https://auth.openai.com/oauth/authorize?x=1');
    expect(safeHttpUrl(' http://localhost:1455/ ')).toBe('http://localhost:1455/');
    for (const bad of [
      'javascript:alert(1)',
      'JAVASCRIPT:alert(1)',
      'data:text/html,<b>x</b>',
      'file:///etc/passwd',
      'not a url',
      '',
      undefined,
    ]) {
      expect(safeHttpUrl(bad)).toBeUndefined();
    }
  });
});

describe('loadFacts', () => {
  const load = { active: 0, queued: 0, maxConcurrent: 2, maxQueued: 8 };

  it('shows the transport, the warm processes with their memory and the idle shutdown', () => {
    expect(
      loadFacts({ ...load, transport: 'warm', warm: { processes: 2, busy: 1, rssBytes: 300 * 1024 * 1024, idleTimeoutMs: 600_000 } }),
    ).toEqual([
      ['Transport', 'Warm (a long-lived process answers)'],
      ['Warm processes', '2 (1 busy)'],
      ['Warm memory', '300 MB RSS'],
      ['Idle shutdown', 'after 10 min'],
    ]);
  });

  it('says when warm mode is off, and shows chats running only when there are some', () => {
    expect(loadFacts({ ...load, transport: 'spawn', warm: { processes: 0, busy: 0, rssBytes: 0, idleTimeoutMs: 0 } })).toEqual([
      ['Transport', 'Spawn (a new process per chat)'],
      ['Warm mode', 'off'],
    ]);
    expect(loadFacts({ ...load, active: 2, queued: 1, transport: 'http' })).toEqual([
      ['Transport', 'HTTP (a running server)'],
      ['Chats now', '2 running, 1 waiting (at most 2 at once)'],
    ]);
    expect(loadFacts(undefined)).toEqual([]);
  });

  it('reaches the card through the health record, with the login detail', () => {
    const view = toolView(codex, health({ authDetail: 'OPENAI_API_KEY is set', load: { ...load, transport: 'spawn' } }));
    expect(view.loadFacts).toEqual([['Transport', 'Spawn (a new process per chat)']]);
    expect(view.authDetail).toBe('OPENAI_API_KEY is set');
  });
});
