import type { McpServer, PromptResponse } from '@agentclientprotocol/sdk';
import type { PermissionLevel, ToolbridgeError, Usage } from '@toolbridge/core';

type Json = Record<string, unknown>;

/** What `session/prompt` answers (its `stopReason`, and `usage` / `_meta` as each agent reports them). */
export type AcpPromptResponse = PromptResponse;

/** What an agent said outside its answer, as the adapter reads it (`notice` in the spec). */
export type AcpNotice =
  /** Dropped from the answer (kept as a warning). */
  | { kind: 'notice' }
  /** The agent is retrying a failed model request: the turn is ended (see `retrying` in the result). */
  | { kind: 'retrying' }
  /** The turn failed with this error. */
  | { kind: 'failure'; error: ToolbridgeError };

/** The per-turn part of an adapter's ACP spec. */
export interface AcpTurnSpec {
  toolId: string;
  name: string;
  /** The level the chat runs at: the ceiling for every permission answer. */
  level: PermissionLevel;
  /** The session mode to switch a new or loaded session to (`session/set_mode`), when not already in it. */
  modeId?: string;
  /** Session config options to set (`session/set_config_option`), by id. */
  configOptions?: Readonly<Record<string, string>>;
  /** MCP servers for `session/new` / `session/load` (empty by default). */
  mcpServers?: readonly McpServer[];
  /** A JSON-RPC error answer (or other failure) of the agent as a typed error. */
  failure(message: string): ToolbridgeError;
  /** Reads an answer chunk that may be the agent talking about itself (retry notices, errors as text). */
  notice?(text: string): AcpNotice | undefined;
  /**
   * For agents that end the turn at a refused permission (Copilot): the prompt that tells it why
   * and lets it go on. The refusal's message is given.
   */
  continueAfterRefusal?(message: string): string;
  /** The usage and model a prompt's answer reports (`_meta` or `usage`). */
  usage?(response: PromptResponse): Usage | undefined;
  model?(response: PromptResponse, opened: Json): string | undefined;
  /** The adapter's own metadata (permissions report, ...). */
  metadata?: Json;
}

/** How a turn on the warm agent ended, when it did not end in a result. */
export type AcpTurnEnd = { retrying: true; said: boolean } | { loadFailed: Error } | undefined;
