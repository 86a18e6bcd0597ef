import type { ToolAdapter, ToolbridgeConfig } from '@toolbridge/core';

/**
 * Situations an adapter stages with fakes or an in-test server. Each group of the suite runs only
 * for the scenarios an adapter says it can stage (and the features it declares):
 * - `ok`: a working tool answering `expectedText`; `missing`: not installed / unreachable;
 * - `hang`: a tool that never answers; `stall`: one that sends something, then never ends;
 * - `unauthenticated`, `rate-limited`: the tool's own failures;
 * - `json`: answers `expectedJson` as its text (structured output);
 * - `activity`: reports at least one step (a command, a file change, ...) before answering.
 */
export type ConformanceScenario = 'ok' | 'missing' | 'hang' | 'stall' | 'unauthenticated' | 'rate-limited' | 'json' | 'activity';

export interface ConformanceSetup {
  adapter: ToolAdapter;
  /** Environment for the registry: PATH with the fakes, throwaway HOME, ... */
  env: NodeJS.ProcessEnv;
  config?: ToolbridgeConfig;
  cleanup?: () => Promise<void>;
  /** The tool's live processes now (default: processes whose environment has this setup's HOME). */
  processes?: () => number[];
}

export interface ConformanceOptions {
  /** Build the adapter and its environment for a scenario. */
  setup(scenario: ConformanceScenario): Promise<ConformanceSetup>;
  /** The scenarios this adapter's fakes can stage (`ok` and `missing` are required). */
  scenarios: readonly ConformanceScenario[];
  /** The exact answer of the `ok` scenario. */
  expectedText: string;
  /** The value the `json` scenario answers. */
  expectedJson?: unknown;
}
