import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { classifyFailure, LineProcess, parseJsonLine, processRunning, type LineProcessSpec } from '@toolbridge/adapter-kit';
import { ProviderExecutionError } from '@toolbridge/core';
import { TOOL_ID } from './config.js';
import { CLAUDE_FAILURES, claudeFailure } from './failures.js';
import { initializeLine } from './input.js';
import { CONTROL_TIMEOUT_MS, ControlChannel } from './warm-control.js';

type Json = Record<string, unknown>;

/** How a warm process is started: argv, environment and working directory are fixed for its life. */
export interface ProcessSpec extends LineProcessSpec {
  /** The process's own directory (its TMPDIR, system prompt file, neutral cwd), removed when it ends. */
  dir: string;
  /** Only the first `initialize` of a process applies a schema. */
  jsonSchema?: Record<string, unknown>;
}

/** Bound on start-up (spawn to the `initialize` answer: 0.4-1 s measured, loaded machine). */
const READY_TIMEOUT_MS = 30_000;
/** After closing stdin an idle process exits in ~25 ms; beyond this it is killed. */
const EXIT_GRACE_MS = 2_000;
/** An interrupted turn ends in 15-70 ms (measured, tools' process trees included); beyond this the process is killed. */
const INTERRUPT_SETTLE_MS = 3_000;

/**
 * One long-lived `claude -p --input-format stream-json` process. Nothing is printed before the
 * first input line, so readiness is the answer to the first `initialize` control request. One
 * command (a turn, or `/clear`) runs at a time; its lines are read between Claude Code's
 * `command_lifecycle` "started" for its uuid and its `result`, so output of anything else (a
 * background job's own follow-up turn) never mixes into a chat.
 */
export class ClaudeProcess extends LineProcess<string> {
  /** The Claude Code session the process holds now (after its first turn). */
  conversation?: string;
  /** The model that answered its last turn. */
  model?: string;
  /** Whether it has answered a turn since start or the last `/clear` (a stateless chat then needs `/clear`). */
  used = false;
  /** Turns answered, for recycling. */
  turns = 0;
  private readonly controls = new ControlChannel((line) => this.write(line));
  /** The command whose lines are read now (none: lines of anything else are dropped). */
  private reading?: string;
  private killed = false;

  private constructor(
    readonly key: string,
    private readonly spec: ProcessSpec,
  ) {
    super(spec, TOOL_ID, EXIT_GRACE_MS);
  }

  /** Start a process and wait until it answers its first `initialize`. */
  static async start(key: string, spec: ProcessSpec): Promise<ClaudeProcess> {
    const p = new ClaudeProcess(key, spec);
    try {
      // Only the first `initialize` of a process applies a schema.
      await p.controls.request({ subtype: 'initialize' }, READY_TIMEOUT_MS, (id) => initializeLine(id, spec.jsonSchema));
      return p;
    } catch (e) {
      await p.close();
      throw e;
    }
  }

  /** The working directory it runs in (Claude Code files its sessions under it). */
  get cwd(): string {
    return this.spec.cwd;
  }

  /** Its TMPDIR (Claude Code copies input images there). */
  get tmpDir(): string {
    return this.spec.env.TMPDIR!;
  }

  /**
   * Whether it still runs. Its output ending says so late: a process killed while idle is seen
   * as gone from /proc (or as a zombie) before Node has read its pipes' end, and a chat that
   * arrives in between must not be written into it.
   */
  override get alive(): boolean {
    return super.alive && !this.killed && !this.proc.exited && (this.pid === undefined || processRunning(this.pid));
  }

  protected onLine(line: string): void {
    if (this.controls.handle(parseJsonLine(line))) return;
    if (this.reading) this.deliver(line);
  }

  protected onEnd(): void {
    // Not installed, or refused at start (root and bypassPermissions): the run's own error says so.
    this.controls.failAll(this.failure ?? classifyFailure(claudeFailure(undefined, this.exitInfo), CLAUDE_FAILURES));
  }

  /**
   * Send one user line (with a fresh uuid) and read the command's lines: those after its
   * `command_lifecycle` "started", up to and including the first `result`. Ends early when the
   * process ends. However else it stops (`signal` aborts, the reader leaves early), the command is
   * interrupted and its remaining lines are drained, so the process is idle again for the next
   * chat; a process that does not settle in time is killed.
   */
  async *command(userMessage: Json, signal: AbortSignal): AsyncGenerator<string> {
    const uuid = randomUUID();
    this.clearQueue();
    this.reading = uuid;
    const state = { started: false, finished: false };
    try {
      await this.write(JSON.stringify({ ...userMessage, uuid }) + '\n');
      for (;;) {
        const line = await this.next(signal);
        if (line === undefined) return;
        if (!this.follow(line, uuid, state)) continue;
        yield line;
        if (state.finished) return;
      }
    } finally {
      if (!state.finished && this.alive) await this.interrupt(uuid, state);
      if (this.reading === uuid) this.reading = undefined;
    }
  }

  /** Whether a line belongs to the command (after its start); marks its start and its end. */
  private follow(line: string, uuid: string, state: { started: boolean; finished: boolean }): boolean {
    const json = parseJsonLine(line);
    if (!state.started) {
      state.started = json?.type === 'command_lifecycle' && json.command_uuid === uuid && json.state === 'started';
      // Interrupted while still queued: it will never start.
      if (json?.type === 'command_lifecycle' && json.command_uuid === uuid && json.state === 'cancelled') state.finished = true;
      return false;
    }
    if (json?.type === 'result') state.finished = true;
    return true;
  }

  /** Interrupt the running command (its tools' process trees too) and read on to its end, within a bound. */
  private async interrupt(uuid: string, state: { started: boolean; finished: boolean }): Promise<void> {
    void this.controls.request({ subtype: 'interrupt' }).catch(() => undefined);
    const deadline = AbortSignal.timeout(INTERRUPT_SETTLE_MS);
    try {
      while (!state.finished) {
        const line = await this.next(deadline);
        if (line === undefined) return;
        this.follow(line, uuid, state);
      }
    } catch {
      // It did not settle: it must not take another chat.
      this.kill();
    }
  }

  /** Answers Claude Code's `can_use_tool` requests during the running turn (approvals chats). */
  set onToolUse(handler: ((request: Json) => Promise<Json>) | undefined) {
    this.controls.onToolUse = handler;
  }

  /** Interrupt the running turn at the caller's request; `command` reads on to its `result`. */
  interruptTurn(): void {
    void this.controls.request({ subtype: 'interrupt' }).catch(() => undefined);
  }

  /** Start a fresh conversation (`/clear`: no model call, a new session id). */
  async clear(signal: AbortSignal): Promise<void> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), CONTROL_TIMEOUT_MS);
    const stop = AbortSignal.any([signal, controller.signal]);
    let cleared = false;
    try {
      for await (const line of this.command(
        { type: 'user', message: { role: 'user', content: '/clear' }, parent_tool_use_id: null },
        stop,
      )) {
        const json = parseJsonLine(line);
        if (json?.type === 'result') cleared = json.local_command === 'clear' && json.is_error !== true;
      }
    } finally {
      clearTimeout(timer);
    }
    if (!cleared) throw new ProviderExecutionError('Claude Code did not start a fresh conversation (/clear)', { toolId: TOOL_ID });
    this.used = false;
    this.conversation = undefined;
  }

  /** End it: close stdin (an idle process exits in ~25 ms), then the process group; remove its directory. */
  override async close(): Promise<void> {
    await super.close();
    await rm(this.spec.dir, { recursive: true, force: true }).catch(() => undefined);
  }

  /** Kill it now (a turn that could not be interrupted). */
  override kill(): void {
    this.killed = true;
    super.kill();
  }
}
