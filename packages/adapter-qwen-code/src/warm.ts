import path from 'node:path';
import {
  DEFAULT_WARM_IDLE_MS,
  permissionReport,
  renderConversation,
  toolFailure,
  warmFingerprint,
  warmIdleMs,
  WarmPool,
  whichOnPath,
} from '@toolbridge/adapter-kit';
import type { CallContext, ChatContext, StreamEvent, ToolRequest, WarmLoad } from '@toolbridge/core';
import { buildArgs } from './argv.js';
import { qwenDir } from './auth.js';
import { APPROVAL_MODE_OF, NAME, qwenCodeConfig, TOOL_ID, type QwenApprovalMode } from './config.js';
import { QwenStreamParser } from './events.js';
import type { QwenCodeAdapterOptions } from './options.js';
import { PERMISSION_NOTES, runEnv, type QwenTurn } from './spawn.js';
import { approvalRequestOf, decideToolUse } from './warm-approvals.js';
import { controlAnswer, QwenProcess, userLine, type ProcessSpec } from './warm-process.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);

/** An interrupt answers in milliseconds; a turn that has not ended by then is ended with its process. */
const INTERRUPT_SETTLE_MS = 5_000;

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
  private readonly pool: WarmPool<QwenProcess>;
  private readonly members = new Set<QwenProcess>();
  private idleMs = DEFAULT_WARM_IDLE_MS;
  /** Whether the last call's settings had warm mode on (off until the first call). */
  private on = false;

  constructor(private readonly o: QwenCodeAdapterOptions) {
    this.pool = new WarmPool<QwenProcess>({
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
    this.idleMs = warmIdleMs(ctx.config);
    const on = this.o.warm !== false && qwenCodeConfig.read(ctx.config).warm !== false && this.idleMs > 0;
    if (!on) void this.pool.closeAll();
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
    const { key, fingerprint } = this.setup(ctx, request, turn, mode);
    if (request.resume && ![...this.members].some((m) => m.alive && m.session === request.resume!.nativeSessionId)) return false;
    const lease = await this.pool.acquire(key, fingerprint, this.idleMs).catch(() => undefined);
    if (!lease) return false;
    const member = lease.member;
    if (request.resume && member.session !== request.resume.nativeSessionId) {
      lease.release(true);
      return false;
    }
    let reusable = false;
    try {
      if (!request.resume && member.used) {
        await member.write(userLine('/clear'));
        const cleared = new QwenStreamParser();
        while (!cleared.done) {
          const line = await member.next(ctx.signal);
          if (line === undefined) return (cleared.finish(member.exitInfo), false);
          cleared.push(line);
        }
        member.used = false;
      }
      const result = yield* this.turn(member, request, ctx, turn);
      reusable = result;
      return true;
    } catch (e) {
      throw toolFailure(e, NAME, TOOL_ID);
    } finally {
      lease.release(reusable);
    }
  }

  /** One turn on a process that is ready for it; whether the process can take another. */
  private async *turn(member: QwenProcess, request: ToolRequest, ctx: ChatContext, turn: QwenTurn): AsyncGenerator<StreamEvent, boolean> {
    const parser = new QwenStreamParser();
    let interrupted = false;
    const onInterrupt = () => {
      interrupted = true;
      void member.request({ subtype: 'interrupt' }, INTERRUPT_SETTLE_MS).catch(() => undefined);
    };
    ctx.interrupt?.addEventListener('abort', onInterrupt, { once: true });
    try {
      await member.write(userLine(renderConversation(request.messages)));
      while (!parser.done) {
        const line = await member.next(ctx.signal);
        if (line === undefined) {
          parser.finish(member.exitInfo);
          return false;
        }
        const control = line.startsWith('{"type":"control_request"') ? obj(JSON.parse(line)) : undefined;
        const asked = obj(control?.request);
        if (control && asked?.subtype === 'can_use_tool') {
          const action = approvalRequestOf(String(asked.tool_name ?? 'tool'), obj(asked.input) ?? {}, ctx.cwd);
          const answer = await decideToolUse(ctx, turn.permissions.level, action, request.additionalDirs);
          const response = answer.allow
            ? { behavior: 'allow', updatedInput: obj(asked.input) ?? {} }
            : { behavior: 'deny', message: answer.message ?? 'Refused by the user' };
          await member.write(controlAnswer(String(control.request_id), response));
          continue;
        }
        for (const event of parser.push(line)) yield event;
      }
      member.used = true;
      member.session = parser.nativeSessionId ?? member.session;
      const level = turn.permissions.level;
      const permissions = permissionReport(turn.permissions, level, ctx.approvals ? undefined : PERMISSION_NOTES[level]);
      if (interrupted) {
        yield {
          type: 'result',
          result: {
            message: { role: 'assistant', content: parser.textSoFar },
            usage: {},
            ...(parser.modelName ? { model: parser.modelName } : {}),
            metadata: { nativeSessionId: member.session, finishReason: 'interrupted', permissions, transport: 'warm' },
          },
        };
        return true;
      }
      const result = parser.finish(member.exitInfo);
      yield { type: 'result', result: { ...result, metadata: { ...result.metadata, permissions, transport: 'warm' } } };
      return true;
    } finally {
      ctx.interrupt?.removeEventListener('abort', onInterrupt);
    }
  }

  load(): WarmLoad | undefined {
    return this.on ? { ...this.pool.load(), idleTimeoutMs: this.idleMs } : undefined;
  }

  async close(): Promise<void> {
    await this.pool.close();
    this.members.clear();
  }
}
