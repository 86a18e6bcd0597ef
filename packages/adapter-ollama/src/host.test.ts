import { describe, expect, it } from '@jest/globals';
import { InvalidRequestError } from '@toolbridge/core';
import { createConfigStore } from '@toolbridge/core/runtime';
import { createOllamaAdapter } from './adapter.js';
import { DEFAULT_OLLAMA_URL, normalizeOllamaHost, resolveBaseUrl } from './host.js';

describe('OLLAMA_HOST parsing (as Ollama reads it)', () => {
  it.each([
    ['127.0.0.1:11434', 'http://127.0.0.1:11434'],
    ['localhost:8080', 'http://localhost:8080'],
    ['0.0.0.0', 'http://127.0.0.1:11434'],
    ['0.0.0.0:11434', 'http://127.0.0.1:11434'],
    [':9999', 'http://127.0.0.1:9999'],
    ['gpu-box', 'http://gpu-box:11434'],
    ['gpu-box.lan:11500', 'http://gpu-box.lan:11500'],
    ['[::1]:11434', 'http://[::1]:11434'],
    ['::1', 'http://[::1]:11434'],
    ['[::]:11434', 'http://127.0.0.1:11434'],
    ['http://example.com', 'http://example.com:80'],
    ['https://example.com', 'https://example.com:443'],
    ['https://example.com:8443/ollama/', 'https://example.com:8443/ollama'],
    ['HTTP://Box:1234', 'http://Box:1234'],
    ['http://0.0.0.0:11434', 'http://127.0.0.1:11434'],
    ['box:notaport', 'http://box:11434'],
    ['box:99999', 'http://box:11434'],
    ['  10.0.0.5:11434  ', 'http://10.0.0.5:11434'],
    ['', DEFAULT_OLLAMA_URL],
    ['ftp://box', 'ftp://box'],
  ])('%j -> %s', (input, expected) => {
    expect(normalizeOllamaHost(input)).toBe(expected);
  });
});

describe('base URL resolution', () => {
  it('defaults to 127.0.0.1:11434', () => {
    expect(resolveBaseUrl({})).toBe('http://127.0.0.1:11434');
  });

  it.each([
    ['http://box:1234', 'http://box:1234'],
    ['http://box:1234/', 'http://box:1234'],
    ['https://box/prefix/', 'https://box/prefix'],
    ['http://0.0.0.0:11434', 'http://127.0.0.1:11434'],
    ['http://[::]:11434', 'http://127.0.0.1:11434'],
  ])('config ollamaHost %s -> %s', (host, expected) => {
    expect(resolveBaseUrl({ ollamaHost: host })).toBe(expected);
  });

  it('refuses a config value that is not an http(s) URL', () => {
    expect(() => resolveBaseUrl({ ollamaHost: 'box:11434x' })).toThrow(InvalidRequestError);
    expect(() => resolveBaseUrl({ ollamaHost: 'file:///etc/passwd' })).toThrow(/http or https URL/);
  });
});

describe('config keys', () => {
  const keys = createOllamaAdapter().configSchema;

  it('take OLLAMA_HOST as a default, normalised, under TOOLBRIDGE_OLLAMA_HOST', () => {
    expect(createConfigStore(keys, { env: { OLLAMA_HOST: '0.0.0.0' } }).effective()).toEqual({ ollamaHost: 'http://127.0.0.1:11434' });
    expect(createConfigStore(keys, { env: { OLLAMA_HOST: 'box:1', TOOLBRIDGE_OLLAMA_HOST: 'https://other' } }).effective()).toEqual({
      ollamaHost: 'https://other:443',
    });
    expect(createConfigStore(keys, { env: { TOOLBRIDGE_OLLAMA_MODEL: 'qwen3:14b' } }).effective()).toEqual({ ollamaModel: 'qwen3:14b' });
  });

  it('explicit config wins over the env default', () => {
    const store = createConfigStore(keys, { env: { OLLAMA_HOST: 'box:1' } });
    store.replace({ ollamaHost: 'http://127.0.0.1:2' });
    expect(resolveBaseUrl(store.effective())).toBe('http://127.0.0.1:2');
  });

  it('validate: ollamaHost must be an http(s) URL, ollamaModel a non-empty string', () => {
    const store = createConfigStore(keys, { env: {} });
    expect(() => store.replace({ ollamaHost: 'box:11434' })).toThrow(/ollamaHost/);
    expect(() => store.replace({ ollamaHost: 'ftp://box' })).toThrow(/ollamaHost/);
    expect(() => store.replace({ ollamaModel: '' })).toThrow(/ollamaModel/);
    expect(() => store.replace({ ollamaModel: 3 })).toThrow(/ollamaModel/);
    expect(store.replace({ ollamaHost: 'https://box:8443', ollamaModel: 'llama3.2' })).toEqual({
      ollamaHost: 'https://box:8443',
      ollamaModel: 'llama3.2',
    });
  });

  it('names OLLAMA_HOST when it has an unusable scheme', () => {
    expect(() => createConfigStore(keys, { env: { OLLAMA_HOST: 'ftp://box' } })).toThrow(/OLLAMA_HOST/);
  });
});
