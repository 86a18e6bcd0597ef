import { describe, expect, it } from '@jest/globals';
import { createConfigStore, defaultEnvName, type ConfigKeySchema } from './config.js';
import { InvalidRequestError } from './errors.js';

const keys: Record<string, ConfigKeySchema> = {
  codexModel: { type: 'string', minLength: 1 },
  codexSandbox: { type: 'string', enum: ['read-only', 'workspace-write', 'danger-full-access'] },
  claudeCodeMaxTurns: { type: 'integer', minimum: 1 },
  ollamaHost: {
    type: 'string',
    format: 'http-url',
    env: ['TOOLBRIDGE_OLLAMA_HOST', 'OLLAMA_HOST'],
    fromEnv: (v) => (/^https?:\/\//.test(v) ? v : `http://${v}`),
  },
};

describe('config', () => {
  it('derives env names from keys', () => {
    expect(defaultEnvName('codexModel')).toBe('TOOLBRIDGE_CODEX_MODEL');
    expect(defaultEnvName('claudeCodeMaxTurns')).toBe('TOOLBRIDGE_CLAUDE_CODE_MAX_TURNS');
  });

  it('replaces the whole config; keys not given are removed', () => {
    const store = createConfigStore(keys, { env: {} });
    store.replace({ codexModel: 'gpt-5', codexSandbox: 'read-only' });
    expect(store.replace({ claudeCodeMaxTurns: 3 })).toEqual({ claudeCodeMaxTurns: 3 });
    expect(store.get()).toEqual({ claudeCodeMaxTurns: 3 });
  });

  it.each([
    [{ nope: 1 }, 'config has unknown field "nope"'],
    [{ codexModel: 5 }, 'config key "codexModel" must be a string'],
    [{ claudeCodeMaxTurns: 1.5 }, 'config key "claudeCodeMaxTurns" must be an integer'],
    [{ claudeCodeMaxTurns: 0 }, 'config key "claudeCodeMaxTurns" must be >= 1'],
    [{ codexSandbox: 'yolo' }, 'config key "codexSandbox" must be one of "read-only", "workspace-write", "danger-full-access"'],
    [{ ollamaHost: 'ftp://x' }, 'config key "ollamaHost" must match format "http-url"'],
    [[1], 'config must be a JSON object'],
    [null, 'config must be a JSON object'],
  ])('rejects %j naming the problem', (value, message) => {
    const store = createConfigStore(keys, { env: {} });
    store.replace({ codexModel: 'kept' });
    let error: unknown;
    try {
      store.replace(value);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as Error).message).toBe(message);
    // A rejected config changes nothing.
    expect(store.get()).toEqual({ codexModel: 'kept' });
  });

  it('applies env defaults underneath the explicit config', () => {
    const store = createConfigStore(keys, {
      env: { TOOLBRIDGE_CODEX_MODEL: 'env-model', OLLAMA_HOST: '0.0.0.0:11434', TOOLBRIDGE_CLAUDE_CODE_MAX_TURNS: '4' },
    });
    expect(store.get()).toEqual({});
    expect(store.effective()).toEqual({ codexModel: 'env-model', ollamaHost: 'http://0.0.0.0:11434', claudeCodeMaxTurns: 4 });
    store.replace({ codexModel: 'explicit' });
    expect(store.effective().codexModel).toBe('explicit');
  });

  it('names a bad environment variable', () => {
    expect(() => createConfigStore(keys, { env: { TOOLBRIDGE_CODEX_SANDBOX: 'yolo' } })).toThrow(
      /environment variable TOOLBRIDGE_CODEX_SANDBOX/,
    );
  });

  it('publishes a JSON Schema and notifies on change', () => {
    const store = createConfigStore(keys, { env: {} });
    expect(store.jsonSchema).toMatchObject({ type: 'object', additionalProperties: false });
    const seen: unknown[] = [];
    store.onChange((c) => seen.push(c));
    store.replace({ codexModel: 'a' });
    expect(seen).toEqual([{ codexModel: 'a' }]);
  });
});
