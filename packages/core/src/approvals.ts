/**
 * The approval and interrupt seam between adapters and core.
 *
 * An adapter turns its tool's native request (Codex app-server approval requests, Claude Code's
 * `can_use_tool`, OpenCode's `permission.asked`, ACP `session/request_permission`, a Pi extension
 * hook) into one `ApprovalRequest` and awaits `ctx.approvals.ask()`; core shows it to the caller
 * (the `approval` stream event, `GET /approvals`), remembers "allow for the session", applies the
 * timeout and records every decision in `result.metadata.approvals`. The permission level is
 * checked before asking (the kit's `approveAction`): what the level forbids is refused unasked.
 */
import type { ApprovalKind } from './wire/approvals.js';

/** What an adapter asks about: one action, before it runs. */
export interface ApprovalRequest {
  kind: ApprovalKind;
  /** One line a person can read: "Run npm test", "Edit src/a.ts", "Call github.create_issue". */
  title: string;
  /** `command`: the command line as the tool will run it. */
  command?: string;
  /** `command`: where it runs. */
  cwd?: string;
  /** `file_change`: the paths it changes (absolute, or relative to the chat's cwd). */
  changes?: { path: string; kind: 'add' | 'update' | 'delete' }[];
  /** `tool_call`: the tool's name (`server.tool` for MCP tools). */
  tool?: string;
  /** `tool_call`: its input, as the tool reported it. */
  input?: unknown;
}

/** What the adapter does with the action: run it, or not (telling the agent `message`). */
export interface ApprovalAnswer {
  allow: boolean;
  /** For a denial: what the agent is told (the caller's message, or why it was refused). */
  message?: string;
}

/**
 * Set on `ChatContext.approvals` when the request asked `approvals: "ask"`. `ask` never rejects:
 * a timeout, the turn's abort or interrupt resolve it as a denial.
 */
export interface ApprovalGate {
  ask(request: ApprovalRequest): Promise<ApprovalAnswer>;
}
