import { describe, expect, it } from '@jest/globals';
import { modelId, parseModelId, type ModelRef } from './model-id.js';
import { usageTotals } from './usage.js';

describe('usageTotals', () => {
  it('adds Anthropic-style cache counts to the input, since they are counted beside it', () => {
    expect(usageTotals({ input_tokens: 4, cache_creation_input_tokens: 100, cache_read_input_tokens: 2000, output_tokens: 30 })).toEqual({
      input: 2104,
      cacheRead: 2000,
      cacheWrite: 100,
      output: 30,
    });
  });

  it('keeps OpenAI-style cache counts as parts of the input, and reasoning as part of the output', () => {
    expect(
      usageTotals({ input_tokens: 11, cached_input_tokens: 3, cache_write_input_tokens: 2, output_tokens: 4, reasoning_output_tokens: 1 }),
    ).toEqual({ input: 11, cacheRead: 3, cacheWrite: 2, output: 4, reasoning: 1 });
  });

  it('leaves out what the tool did not report, and ignores negative or non-finite counts', () => {
    expect(usageTotals(undefined)).toEqual({});
    expect(usageTotals({ output_tokens: -1, input_tokens: Number.NaN as unknown as number, eval_count: 5 })).toEqual({});
    expect(usageTotals({ output_tokens: 7 })).toEqual({ output: 7 });
  });
});

describe('parseModelId', () => {
  it.each([
    ['codex', { toolId: 'codex' }],
    ['ollama/qwen3:14b', { toolId: 'ollama', model: 'qwen3:14b' }],
    ['opencode/anthropic/claude-sonnet-4-5', { toolId: 'opencode', model: 'anthropic/claude-sonnet-4-5' }],
    ['codex/', { toolId: 'codex' }],
  ] as Array<[string, ModelRef]>)('reads %s, only the first slash separating tool and model', (id, ref) => {
    expect(parseModelId(id)).toEqual(ref);
    expect(parseModelId(modelId(ref.toolId, ref.model))).toEqual(ref);
  });
});
