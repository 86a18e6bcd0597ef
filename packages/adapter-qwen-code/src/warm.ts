import path from 'node:path';
import { toolFailure, warmFingerprint, WarmTransport, whichOnPath } from '@toolbridge/adapter-kit';
import type { CallContext, ChatContext, StreamEvent, ToolRequest, WarmLoad } from '@toolbridge/core';
import { buildArgs } from './argv.js';
import { qwenDir } from './auth.js';
import { APPROVAL_MODE_OF, NAME, qwenCodeConfig, TOOL_ID, type QwenApprovalMode } from './config.js';
import type { QwenCodeAdapterOptions } from './options.js';
import { runEnv, type QwenTurn } from './spawn.js';
import { QwenProcess, type ProcessSpec } from './warm-process.js';
import { clearConversation, warmTurn } from './warm-turn.js';

/**
 * Qwen Code's warm transport: long-lived `qwen --input-format stream-json` processes, one chat at
 * a time each, keyed by what is fixed per process (working directory, approval mode, model, extra
 * directories, the Node and the CLI). A stateless chat gets a fresh conversation (`/clear` in a
 * process that answered before: a new session id, no model call, ~0.3 s); a session continues in
 * the process that holds it. JSON answers (`--json-schema` refuses stream-json input), images
 * (referenced from the call's own directory), forks and sessions no process holds take the spawn path.
 */
export class QwenWarm {
  private readonly specs = new Map<string, ProcessSpec>();
  private readonly warm: WarmTransport<QwenProcess>;
  private readonly members = new Set<QwenProcess>();
  /** Whether the last call's settings had warm mode on (off until the first call). */
  private on = false;

  constructor(private readonly o: QwenCodeAdapterOptions) {
    this.warm = new WarmTransport<QwenProcess>({
      mode: 'exclusive',
      maxMembers: o.warmMaxProcesses ?? 4,
      start: async (key) => {
        const member = await QwenProcess.start(this.specs.get(key)!);
        this.members.add(member);
        return member;
      },
    });
  }

  private enabled(ctx: CallContext): boolean {
    const on = this.o.warm !== false && qwenCodeConfig.read(ctx.config).warm !== false && this.warm.configure(ctx.config) > 0;
    if (!on) void this.warm.pool.closeAll();
    this.on = on;
    return on;
  }

  /** The process set-up of a chat: its key, fingerprint and spec. */
  private setup(ctx: CallContext & { cwd: string }, request: Pick<ToolRequest, 'additionalDirs'>, turn: QwenTurn, mode: QwenApprovalMode) {
    const command = this.o.command ?? 'qwen';
    const args = buildArgs({
      approvalMode: mode,
      model: turn.model,
      includeDirectories: request.additionalDirs,
      streamInput: true,
      extraArgs: this.o.extraArgs ?? [],
    });
    const env = runEnv(ctx.env, turn.node);
    const key = JSON.stringify({ cwd: ctx.cwd, args, node: turn.node, command });
    // A process is retired when the CLI or the settings it read at start change.
    const fingerprint = warmFingerprint({ key }, [whichOnPath(command, env), path.join(qwenDir(ctx.env), 'settings.json')]);
    this.specs.set(key, { command, args, env, cwd: ctx.cwd });
    return { key, fingerprint };
  }

  /**
   * Run the chat on a warm process; false (nothing yielded) when it takes the spawn path.
   */
  async *stream(request: ToolRequest, ctx: ChatContext, turn: QwenTurn): AsyncGenerator<StreamEvent, boolean> {
    if (!this.enabled(ctx)) return false;
    const images = request.messages.some((m) => m.content.some((p) => p.type === 'image'));
    if (request.responseFormat || images || request.resume?.fork) return false;
    const level = turn.permissions.level;
    // With a caller to ask, edits and commands are asked (`default`); read-only stays `plan`.
    const mode: QwenApprovalMode = ctx.approvals && level !== 'read-only' ? 'default' : APPROVAL_MODE_OF[level];
    const setup = this.setup(ctx, request, turn, mode);
    const session = request.resume?.nativeSessionId;
    if (session && ![...this.members].some((m) => m.alive && m.session === session)) return false;
    try {
      return yield* this.warm.run({
        signal: ctx.signal,
        lease: async () => {
          const lease = await this.warm.lease(setup, ctx.signal);
          if (!session || lease?.member.session === session) return lease;
          lease?.release(true);
          return undefined;
        },
        progress: () => ({ said: false, reusable: false }),
        turn: async function* (member, progress) {
          if (!session && member.used && !(await clearConversation(member, ctx.signal))) return false;
          progress.reusable = yield* warmTurn(member, request, ctx, turn);
          return true;
        },
        reusable: (_member, progress) => progress.reusable,
      });
    } catch (e) {
      throw toolFailure(e, NAME, TOOL_ID);
    }
  }

  load(): WarmLoad | undefined {
    return this.warm.load(this.on);
  }

  async close(): Promise<void> {
    await this.warm.close();
    this.members.clear();
  }
}
