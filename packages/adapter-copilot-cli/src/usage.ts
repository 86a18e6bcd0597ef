import { readFile } from 'node:fs/promises';
import type { Usage } from '@toolbridge/core';

const RENAME: Readonly<Record<string, string>> = {
  inputTokens: 'input_tokens',
  outputTokens: 'output_tokens',
  cacheReadTokens: 'cached_input_tokens',
  cacheWriteTokens: 'cache_write_input_tokens',
  reasoningTokens: 'reasoning_output_tokens',
};

/**
 * Token usage of a run from the `--usage-output-file` Copilot writes at exit (the JSON events
 * carry none): `modelMetrics.<model>.usage`, summed over the models the run used. Input counts
 * include the cached ones, as OpenAI's do.
 */
export function usageFromReport(report: unknown): { usage: Usage; models: string[] } {
  const metrics = (report as { modelMetrics?: Record<string, { usage?: Record<string, unknown> }> } | null)?.modelMetrics;
  const usage: Usage = {};
  const models: string[] = [];
  for (const [model, m] of Object.entries(metrics ?? {})) {
    models.push(model);
    for (const [key, value] of Object.entries(m?.usage ?? {})) {
      const name = RENAME[key];
      if (name && typeof value === 'number' && Number.isInteger(value)) usage[name] = (usage[name] ?? 0) + value;
    }
  }
  return { usage, models };
}

/** The usage file of a run; empty usage when Copilot wrote none. */
export async function readUsageFile(file: string): Promise<{ usage: Usage; models: string[] }> {
  try {
    return usageFromReport(JSON.parse(await readFile(file, 'utf8')));
  } catch {
    return { usage: {}, models: [] };
  }
}
