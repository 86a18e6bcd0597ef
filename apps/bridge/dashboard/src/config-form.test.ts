import { describe, expect, it } from '@jest/globals';
import { configBody, configFields, groupOf, keyNamedIn, toInputText } from './config-form.js';

/** The shape /openapi.json publishes as components.schemas.Config. */
const schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    codexModel: { type: 'string', minLength: 1, description: 'Model for Codex' },
    codexSandbox: { type: 'string', enum: ['read-only', 'workspace-write', 'danger-full-access'] },
    claudeCodeMaxTurns: { type: 'integer', minimum: 1 },
    ollamaHost: { type: 'string', format: 'http-url' },
    someRatio: { type: 'number', minimum: 0, maximum: 1 },
    someFlag: { type: 'boolean' },
  },
};

describe('configFields', () => {
  it('makes one field per key: enums as selects, numbers, URLs, booleans, text', () => {
    expect(configFields(schema)).toEqual([
      { key: 'codexModel', kind: 'text', group: 'Codex', description: 'Model for Codex' },
      { key: 'codexSandbox', kind: 'select', group: 'Codex', options: ['read-only', 'workspace-write', 'danger-full-access'] },
      { key: 'claudeCodeMaxTurns', kind: 'integer', group: 'Claude Code', constraint: 'whole number ≥ 1' },
      { key: 'ollamaHost', kind: 'url', group: 'Ollama', constraint: 'http:// or https:// URL' },
      { key: 'someRatio', kind: 'number', group: 'Other', constraint: 'number from 0 to 1' },
      { key: 'someFlag', kind: 'boolean', group: 'Other' },
    ]);
  });

  it('copes with a missing or odd schema', () => {
    expect(configFields(undefined)).toEqual([]);
    expect(configFields({ type: 'object' })).toEqual([]);
  });

  it('groups keys by the tool that owns them', () => {
    expect(groupOf('opencodeModel')).toBe('OpenCode');
    expect(groupOf('claudeCodeToolAccess')).toBe('Claude Code');
    expect(groupOf('codexter')).toBe('Other');
  });
});

describe('configBody', () => {
  const fields = configFields(schema);

  it('leaves empty fields out and sends numbers and booleans as JSON values', () => {
    expect(
      configBody(fields, {
        codexModel: ' gpt-5-codex ',
        codexSandbox: '',
        claudeCodeMaxTurns: '3',
        ollamaHost: '',
        someRatio: '0.5',
        someFlag: 'false',
      }),
    ).toEqual({ codexModel: 'gpt-5-codex', claudeCodeMaxTurns: 3, someRatio: 0.5, someFlag: false });
  });

  it('sends what does not parse as typed, so the API can name the mistake', () => {
    expect(configBody(fields, { claudeCodeMaxTurns: 'many', someFlag: 'yes', someRatio: '1,5' })).toEqual({
      claudeCodeMaxTurns: 'many',
      someFlag: 'yes',
      someRatio: '1,5',
    });
    // A decimal for an integer key is still a number; the API says it must be an integer.
    expect(configBody(fields, { claudeCodeMaxTurns: '2.5' })).toEqual({ claudeCodeMaxTurns: 2.5 });
  });

  it('ignores inputs that are not fields', () => {
    expect(configBody(fields, { unknownKey: 'x' })).toEqual({});
  });
});

describe('toInputText and keyNamedIn', () => {
  it('shows config values as input text', () => {
    expect(toInputText(undefined)).toBe('');
    expect(toInputText(3)).toBe('3');
    expect(toInputText(true)).toBe('true');
    expect(toInputText('x')).toBe('x');
  });

  it("finds the key an API message names, if it is one of the form's", () => {
    const keys = ['codexSandbox', 'claudeCodeMaxTurns'];
    expect(keyNamedIn('config key "claudeCodeMaxTurns" must be an integer', keys)).toBe('claudeCodeMaxTurns');
    expect(keyNamedIn('config has unknown field "nope"', keys)).toBeUndefined();
    expect(keyNamedIn('config must be a JSON object', keys)).toBeUndefined();
  });
});
