/**
 * Library types that are not wire shapes (those are in ./wire and re-exported here).
 */
import type { Activity, ChatRole, Capability, Usage } from './wire/index.js';

export type * from './wire/index.js';

export const AGENT_CAPABILITIES: readonly Capability[] = ['agent-task', 'code-analysis', 'code-edit', 'chat', 'health-check'];
export const RUNTIME_CAPABILITIES: readonly Capability[] = ['chat', 'completion', 'model-list', 'health-check'];

/** What the library's `chat()` resolves to: `{ message, usage, metadata }`, plus what Toolbridge adds. */
export interface ChatResult {
  message: { role: 'assistant'; content: string };
  usage: Usage;
  /** The model that answered, when the tool reports it. */
  model?: string;
  /** The parsed answer, when a `responseFormat` was asked for (validated against its schema). */
  object?: unknown;
  /** Toolbridge's session id (`tbs_…`); send it back as `sessionId` to continue. */
  sessionId?: string;
  /** Agents: each step's final state, in the order the steps started. */
  activities?: Activity[];
  metadata: Record<string, unknown>;
}

/** A message as an adapter receives it: content always a list of parts, images decoded and checked. */
export interface ToolMessage {
  role: ChatRole;
  content: ToolPart[];
}

export type ToolPart = { type: 'text'; text: string } | ToolImage;

/** An image checked by core: its media type matches its bytes, within the size limit. */
export interface ToolImage {
  type: 'image';
  mediaType: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
  /** Base64 of the bytes. */
  data: string;
  bytes: number;
}

/** What an adapter's `checkAuth()` reports. */
export interface AuthState {
  authenticated: boolean;
  /** How the user is logged in (`chatgpt`, `api_key`, `claude.ai`, a provider key's name, ...). */
  method?: string;
  /** Plan/subscription name when the tool reports one. */
  plan?: string;
  detail?: string;
}
