import { describe, expect, it } from '@jest/globals';
import { toOpenAIUsage } from './completions.js';
import { listsModel, modelIdsOf, parseModelId } from './models.js';
import { paramOf } from './request.js';

describe('model ids', () => {
  it.each([
    ['codex', { toolId: 'codex' }],
    ['claude-code', { toolId: 'claude-code' }],
    ['ollama/qwen3:14b', { toolId: 'ollama', model: 'qwen3:14b' }],
    ['opencode/mock/mock-model', { toolId: 'opencode', model: 'mock/mock-model' }],
    ['codex/', { toolId: 'codex' }],
  ])('%s splits on the first slash', (id, ref) => {
    expect(parseModelId(id)).toEqual(ref);
  });

  it('lists a tool and its models, round-tripping through parseModelId', () => {
    const ids = modelIdsOf({ id: 'opencode', models: ['anthropic/claude-sonnet-4', 'opencode/big-pickle'] });
    expect(ids).toEqual(['opencode', 'opencode/anthropic/claude-sonnet-4', 'opencode/opencode/big-pickle']);
    expect(ids.slice(1).map((id) => parseModelId(id).model)).toEqual(['anthropic/claude-sonnet-4', 'opencode/big-pickle']);
  });

  it('matches bare Ollama names to their :latest tag only', () => {
    const tool = { models: ['llama3.2:latest', 'qwen3:14b'] };
    expect(listsModel(tool, 'llama3.2')).toBe(true);
    expect(listsModel(tool, 'qwen3')).toBe(false);
    expect(listsModel(tool, 'qwen3:14b')).toBe(true);
  });
});

describe('usage mapping', () => {
  it('counts Anthropic-style cache tokens into prompt_tokens, since input_tokens excludes them', () => {
    expect(toOpenAIUsage({ input_tokens: 4, cache_creation_input_tokens: 100, cache_read_input_tokens: 2000, output_tokens: 30 })).toEqual({
      prompt_tokens: 2104,
      completion_tokens: 30,
      total_tokens: 2134,
      prompt_tokens_details: { cached_tokens: 2000 },
    });
  });

  it('keeps OpenAI-style cached and reasoning tokens as details of totals', () => {
    expect(toOpenAIUsage({ input_tokens: 11, cached_input_tokens: 3, output_tokens: 4, reasoning_output_tokens: 1 })).toEqual({
      prompt_tokens: 11,
      completion_tokens: 4,
      total_tokens: 15,
      prompt_tokens_details: { cached_tokens: 3 },
      completion_tokens_details: { reasoning_tokens: 1 },
    });
  });

  it('reports zeros for a tool that counts nothing', () => {
    expect(toOpenAIUsage({})).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
  });
});

it('names params the way OpenAI does', () => {
  expect(paramOf('/messages/2/content/0/text')).toBe('messages[2].content[0].text');
  expect(paramOf('/temperature')).toBe('temperature');
  expect(paramOf('')).toBeNull();
});
