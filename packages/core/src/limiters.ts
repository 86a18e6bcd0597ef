import type { ToolAdapter } from './adapter.js';
import { InvalidRequestError } from './errors.js';
import { ConcurrencyLimiter, DEFAULT_CONCURRENCY, validateConcurrencyLimit, type ConcurrencyLimit } from './limiter.js';

export interface ConcurrencyOptions extends Partial<ConcurrencyLimit> {
  tools?: Record<string, Partial<ConcurrencyLimit>>;
}

/** One limiter per tool: defaults by tool type, then the options for every tool, then per tool. */
export function createLimiters(adapters: readonly ToolAdapter[], options: ConcurrencyOptions = {}): Map<string, ConcurrencyLimiter> {
  const { tools = {}, ...everyTool } = options;
  for (const id of Object.keys(tools)) {
    if (!adapters.some((a) => a.id === id)) throw new InvalidRequestError(`concurrency is set for unknown tool "${id}"`);
  }
  const limiters = new Map<string, ConcurrencyLimiter>();
  for (const a of adapters) {
    const limit = validateConcurrencyLimit(
      { ...DEFAULT_CONCURRENCY[a.type], ...stripUndefined(everyTool), ...stripUndefined(tools[a.id] ?? {}) },
      `concurrency of ${a.id}`,
    );
    limiters.set(a.id, new ConcurrencyLimiter(limit, { toolId: a.id, name: a.name }));
  }
  return limiters;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
