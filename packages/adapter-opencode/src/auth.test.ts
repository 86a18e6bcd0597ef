import { describe, expect, it } from '@jest/globals';
import { authStateFor, configKeyProviders, parseAuthList } from './auth.js';
import { capture } from './testing/captures.js';

describe('parseAuthList', () => {
  it('reads the recorded empty list (coloured box text)', () => {
    expect(parseAuthList(capture('opencode-auth-list.out'))).toEqual({ credentials: [], credentialCount: 0, environment: [] });
  });

  it('reads stored credentials and environment keys', () => {
    expect(parseAuthList(capture('opencode-auth-list-credentials.out'))).toEqual({
      credentials: [
        { name: 'Anthropic', detail: 'api' },
        { name: 'OpenAI', detail: 'oauth' },
      ],
      credentialCount: 2,
      environment: [
        { name: 'Groq', detail: 'GROQ_API_KEY' },
        { name: 'OpenRouter', detail: 'OPENROUTER_API_KEY' },
      ],
    });
  });

  it('keeps display names with spaces and ignores unrelated text', () => {
    const list = parseAuthList(
      '\u001b[0mwarning: something\n┌  Credentials \u001b[90m~/x\n│\n●  GitHub Copilot \u001b[90moauth\n│\n└  1 credential\n',
    );
    expect(list.credentials).toEqual([{ name: 'GitHub Copilot', detail: 'oauth' }]);
    expect(list.credentialCount).toBe(1);
    expect(authStateFor('github-copilot/gpt-5', list, {})).toMatchObject({ authenticated: true, method: 'oauth' });
  });
});

describe('configKeyProviders', () => {
  it('finds providers with an apiKey and ignores invalid JSON', () => {
    const env = { OPENCODE_CONFIG_CONTENT: JSON.stringify({ provider: { a: { options: { apiKey: 'k' } }, b: { options: {} }, c: null } }) };
    expect([...configKeyProviders(env)]).toEqual(['a']);
    expect([...configKeyProviders({ OPENCODE_CONFIG_CONTENT: '{not json' })]).toEqual([]);
  });
});
