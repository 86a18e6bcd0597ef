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
  authDetail?: string;
  /** `chat`: a chat its provider refused (401) says so, until a chat succeeds or the login changes. */
  authSource?: 'check' | 'chat';
  usageLimits?: UsageLimits;
  reason?: string;
  version?: string;
  latencyMs: number;
  checkedAt: string;
  /** Live: chats running and queued, and the transport (warm processes and their memory). */
  load?: ToolLoad;
}

export interface WarmLoad {
  processes: number;
  busy: number;
  rssBytes: number;
  idleTimeoutMs: number;
}

export interface ToolLoad {
  active: number;
  queued: number;
  maxConcurrent: number;
  maxQueued: number;
  transport?: string;
  warm?: WarmLoad;
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
  sessionId?: string;
  result?: {
    message?: { role?: string; content?: string };
    usage?: Record<string, number>;
    object?: unknown;
    metadata?: Record<string, unknown>;
  };
  activities?: Activity[];
  latencyMs?: number;
  fallbackUsed?: boolean;
  attempts?: Attempt[];
}

/** One step of an agent; later events with the same `id` update it. Fields beyond the common ones depend on `kind`. */
export interface Activity {
  id: string;
  kind: string;
  status: string;
  title: string;
  command?: string;
  exitCode?: number;
  outputTail?: string;
  changes?: Array<{ path: string; kind: string }>;
  name?: string;
  server?: string;
  input?: string;
  output?: string;
  query?: string;
  text?: string;
  items?: Array<{ text: string; done: boolean }>;
  rawType?: string;
  detail?: string;
}

export interface TextPart {
  type: 'text';
  text: string;
}

export interface ImagePart {
  type: 'image';
  data?: string;
  mediaType?: string;
  path?: string;
  url?: string;
}

export type ContentPart = TextPart | ImagePart;

export interface SessionSummary {
  id: string;
  toolId: string;
  model?: string;
  createdAt: string;
  updatedAt: string;
  turns: number;
  title: string;
  cwd?: string;
  forkedFrom?: string;
}

export interface TranscriptMessage {
  role: string;
  content: string | ContentPart[];
  toolId?: string;
  at: string;
}

export interface SessionDetail extends SessionSummary {
  messages: TranscriptMessage[];
  toolChanges: Array<{ from: string; to: string; at: string }>;
}

export interface ErrorBody {
  code: string;
  message: string;
  toolId?: string;
  retryable?: boolean;
  retryAfterMs?: number;
  attempts?: Attempt[];
  details?: Record<string, unknown>;
}

/** GET /usage. */
export interface UsageGroup {
  key: string;
  chats: number;
  succeeded: number;
  failed: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  costUsd?: number;
}

export interface UsageSummary {
  since: string;
  until: string;
  groupBy: string;
  groups: UsageGroup[];
}

/** GET /usage/windows. */
export interface WindowSnapshot {
  toolId: string;
  at: string;
  windows: Record<string, UsageWindow>;
}

/** An action waiting for an answer (SSE `approval`, `GET /approvals`). */
export interface Approval {
  id: string;
  sessionId?: string;
  toolId: string;
  kind: 'command' | 'file_change' | 'tool_call';
  title: string;
  command?: string;
  cwd?: string;
  changes?: Array<{ path: string; kind: 'add' | 'update' | 'delete' }>;
  tool?: string;
  input?: unknown;
  options: Array<'allow' | 'allow_session' | 'deny'>;
  expiresAt: string;
}
