import { approveAction } from '@toolbridge/adapter-kit';
import type { ApprovalRequest, ChatContext, PermissionLevel } from '@toolbridge/core';
import { MCP_ELICITATION, type Notification } from './warm-process.js';
import { findCall } from './rollout.js';

type Json = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

/** The approval requests a thread started with `approvalPolicy: "untrusted"` sends (app-server v2). */
export const APPROVAL_REQUESTS = ['item/commandExecution/requestApproval', 'item/fileChange/requestApproval'] as const;

/**
 * Whether a model's shell call asked to run outside Codex's sandbox. Under `untrusted` an approved
 * call with `sandbox_permissions: "require_escalated"` runs unsandboxed (measured with 0.169: an
 * approved `echo > /outside` wrote the file at read-only and at workspace-write), while an approved
 * plain call runs inside the sandbox (the same write failed with "Read-only file system"). The
 * approval request itself does not say which (a `reason` appears only with a `justification`), so
 * the call's arguments are read from the raw response item that precedes it (a thread started with
 * `experimentalRawEvents`), else from the thread's log (a resumed or forked thread: app-server
 * 0.169 takes that flag only on `thread/start`).
 */
export function leavesSandbox(call: Json): boolean {
  if (call.type === 'local_shell_call') return false;
  if (call.type !== 'function_call') return true;
  let args: Json;
  try {
    const parsed: unknown = typeof call.arguments === 'string' ? JSON.parse(call.arguments) : call.arguments;
    if (!parsed || typeof parsed !== 'object') return true;
    args = parsed as Json;
  } catch {
    return true;
  }
  const override = args.sandbox_permissions;
  return (
    (override !== undefined && override !== null && override !== 'use_default') ||
    args.with_escalated_permissions === true ||
    args.additional_permissions !== undefined
  );
}

const CHANGE_KINDS = new Set(['add', 'update', 'delete']);
/** Looking a call up in the thread's log: up to 1 s (the call is logged before its tool runs, by an asynchronous writer). */
const LOG_ATTEMPTS = 10;
const LOG_RETRY_MS = 100;

/**
 * The approvals of one warm Codex thread (`approvals: "ask"`): every command and file change
 * Codex asks about becomes one `ApprovalRequest`, decided by the kit's `approveAction` (the level
 * first, then the caller), and answered `accept` or `decline`, never `acceptForSession` ("allow for
 * the session" is Toolbridge's, kept by core). Below `full`, a command that would leave the sandbox
 * (or whose call was not seen) is declined unasked: the level is the ceiling.
 *
 * `observe` must see every notification of the thread as it arrives (not when the turn's consumer
 * gets to it): the paths of a file change and the arguments of a shell call come before the
 * request that needs them.
 */
export class ThreadApprovals {
  /** `item/started` file changes by item id: their request carries no path. */
  private readonly changes = new Map<string, NonNullable<ApprovalRequest['changes']>>();
  /** Whether each shell call (by call id = item id) asked to leave the sandbox. */
  private readonly escalation = new Map<string, boolean>();

  constructor(
    private readonly ctx: Pick<ChatContext, 'approvals' | 'cwd'>,
    private readonly level: PermissionLevel,
    private readonly additionalDirs: readonly string[],
    /** The thread's log (`thread.path`), where a call not seen as a raw event is looked up. */
    private readonly rollout?: string,
  ) {}

  observe(n: Notification): void {
    const item = (n.params.item ?? {}) as Json;
    if (n.method === 'rawResponseItem/completed') {
      const callId = str(item.call_id);
      if (callId && (item.type === 'function_call' || item.type === 'local_shell_call')) this.escalation.set(callId, leavesSandbox(item));
    } else if (n.method === 'item/started' && item.type === 'fileChange' && typeof item.id === 'string') {
      const changes = (Array.isArray(item.changes) ? item.changes : []).map((c: Json) => {
        const kind = str((c?.kind as Json | undefined)?.type) ?? str(c?.kind) ?? 'update';
        return { path: str(c?.path) ?? '', kind: (CHANGE_KINDS.has(kind) ? kind : 'update') as 'add' | 'update' | 'delete' };
      });
      this.changes.set(item.id, changes);
    }
  }

  /** The answer to one approval request of the thread. */
  async decide(method: string, params: Json): Promise<Json> {
    if (method === MCP_ELICITATION) return { action: (await this.mcpToolCall(params)) ? 'accept' : 'decline', content: null, _meta: null };
    const itemId = str(params.itemId) ?? '';
    const allowed = method === 'item/fileChange/requestApproval' ? await this.fileChange(itemId) : await this.command(itemId, params);
    return { decision: allowed ? 'accept' : 'decline' };
  }

  private async fileChange(itemId: string): Promise<boolean> {
    const changes = this.changes.get(itemId) ?? [];
    // No paths to check against the level: nothing to show the caller either.
    if (changes.length === 0) return false;
    const title = changes.length === 1 ? `${label(changes[0]!.kind)} ${changes[0]!.path}` : `Change ${changes.length} files`;
    const answer = await approveAction(this.ctx, this.level, { kind: 'file_change', title, changes }, this.additionalDirs);
    return answer.allow;
  }

  /**
   * A call of an MCP server's tool (the chat's `mcpServers`, or the user's own servers), which
   * app-server 0.169 asks about as an elicitation whose `_meta.codex_approval_kind` is
   * "mcp_tool_call" (measured). Any other elicitation is a server's own form: declined, nobody
   * here can fill it in.
   */
  private async mcpToolCall(params: Json): Promise<boolean> {
    const meta = (params._meta ?? {}) as Json;
    if (meta.codex_approval_kind !== 'mcp_tool_call') return false;
    const tool = `${str(params.serverName) ?? 'mcp'}.${str(meta.tool_name) ?? 'tool'}`;
    const input = meta.tool_params;
    const action: ApprovalRequest = { kind: 'tool_call', title: `Call ${tool}`, tool, ...(input !== undefined ? { input } : {}) };
    return (await approveAction(this.ctx, this.level, action, this.additionalDirs)).allow;
  }

  /** Whether the call asked to leave the sandbox; true (refused) when its arguments cannot be found. */
  private async escalates(itemId: string): Promise<boolean> {
    const seen = this.escalation.get(itemId);
    if (seen !== undefined || !this.rollout) return seen ?? true;
    // Codex writes the call to its log before it runs the tool; the writer is asynchronous, so look a few times.
    for (let attempt = 0; attempt < LOG_ATTEMPTS; attempt++) {
      const call = await findCall(this.rollout, itemId).catch(() => undefined);
      if (call) return leavesSandbox(call);
      await new Promise((r) => setTimeout(r, LOG_RETRY_MS));
    }
    return true;
  }

  private async command(itemId: string, params: Json): Promise<boolean> {
    // Unsandboxed is what `full` grants anyway; below it the level would be widened.
    if (this.level !== 'full' && (await this.escalates(itemId))) return false;
    const command = params.kind === 'writeStdin' ? undefined : str(params.command);
    const action: ApprovalRequest = {
      kind: 'command',
      title: command ? `Run ${command}` : 'Write to a running command',
      ...(command ? { command } : {}),
      cwd: str(params.cwd) ?? this.ctx.cwd,
    };
    const answer = await approveAction(this.ctx, this.level, action, this.additionalDirs);
    return answer.allow;
  }
}

function label(kind: 'add' | 'update' | 'delete'): string {
  return kind === 'add' ? 'Create' : kind === 'delete' ? 'Delete' : 'Edit';
}

/** Whether a server request is one `ThreadApprovals` answers. */
export function isApprovalRequest(method: string): boolean {
  return (APPROVAL_REQUESTS as readonly string[]).includes(method) || method === MCP_ELICITATION;
}
