/**
 * The bridge's HTTP responses as the page reads them. Written out here rather
 * than imported from @toolbridge/core: the page is compiled for the browser on
 * its own, and these shapes are the wire contract, not the library's types.
 */

export interface DiscoveredTool {
  id: string;
  name: string;
  type: string;
  available: boolean;
  version?: string;
  models: string[];
  defaultModel?: string;
  reason?: string;
}

export interface UsageWindow {
  usedPercentage: number;
  remainingPercentage: number;
  resetsAt?: string;
  windowMinutes?: number;
}

export interface UsageLimits {
  status: string;
  source?: string;
  plan?: string;
  windows?: Record<string, UsageWindow>;
  reason?: string;
}

export interface HealthRecord {
  toolId: string;
  status: string;
  available: boolean;
  authSupported: boolean;
  authenticated: boolean;
  authStatus: string;
  authMethod?: string;
  usageLimits?: UsageLimits;
  reason?: string;
  version?: string;
  latencyMs: number;
  checkedAt: string;
}

export interface AggregateHealth {
  status: string;
  version: string;
  uptimeMs: number;
  tools: HealthRecord[];
}

export interface AuthStartResult {
  toolId: string;
  status: string;
  authenticated: boolean;
  command: string;
  instructions: string;
  output: string;
  url?: string;
  checkedAt: string;
}

export interface Attempt {
  toolId: string;
  tryIndex: number;
  stage: string;
  outcome: string;
  reason?: string;
  message?: string;
  latencyMs?: number;
}

export interface ChatDone {
  toolId: string;
  type?: string;
  model?: string;
  result?: { message?: { role?: string; content?: string }; usage?: Record<string, number> };
  latencyMs?: number;
  fallbackUsed?: boolean;
  attempts?: Attempt[];
}

export interface ErrorBody {
  code: string;
  message: string;
  toolId?: string;
  retryable?: boolean;
  retryAfterMs?: number;
  attempts?: Attempt[];
}
