import { existsSync } from 'node:fs';
import path from 'node:path';
import { groupRssBytes, warmFingerprint, WarmTransport, type WarmLease } from '@toolbridge/adapter-kit';
import type { CallContext, ChatContext, StreamEvent, ToolRequest, WarmLoad } from '@toolbridge/core';
import { claudeCodeConfig, LEVEL_OF } from './config.js';
import type { ClaudeCodeAdapterOptions } from './options.js';
import { claudeConfigDir } from './settings.js';
import type { TurnSettings } from './spawn.js';
import type { RateLimitInfo } from './usage-limits.js';
import { launchOf, plainEquivalent, processSpec, type Launch } from './warm-launch.js';
import { ClaudeProcess } from './warm-process.js';
import { warmTurn } from './warm-turn.js';

/** A process that answered this many turns is replaced (Claude Code's memory grows with use: 160 MiB idle, ~250 after a dozen agent turns). */
const MAX_TURNS_PER_PROCESS = 100;
const MAX_RSS_BYTES = 600 * 1024 * 1024;

interface Recipe {
  launch: Launch;
  resume?: string;
}

/**
 * Claude Code's warm transport: long-lived `claude -p --input-format stream-json` processes, one
 * chat at a time each. What is fixed per process (tools and permission mode, model, working
 * directory, extra directories, system prompt, schema, environment) picks the process; a
 * stateless chat gets a fresh conversation (`/clear` in a process that answered before), a
 * session continues in the process that holds it, else in one started with `--resume`. A process
 * is replaced when the CLI, the user's settings, login or project files change, when it crashed,
 * after `warmIdleMs` idle, or when it started a background job. Forks take the spawn path.
 */
export class ClaudeWarm {
  private readonly recipes = new Map<string, Recipe>();
  private readonly members = new Set<ClaudeProcess>();
  /** Retirements under way: a new process waits for them, so stale ones do not hold the pool's places. */
  private readonly retiring = new Set<Promise<void>>();
  private readonly warm: WarmTransport<ClaudeProcess>;
  private seq = 0;
  /** Whether the last call's settings had warm mode on (unknown, so off, before the first call). */
  private enabled = false;

  constructor(
    private readonly o: ClaudeCodeAdapterOptions,
    private readonly stateDir: (env: NodeJS.ProcessEnv) => string,
  ) {
    this.warm = new WarmTransport<ClaudeProcess>({
      mode: 'exclusive',
      maxMembers: o.warmMaxProcesses ?? 4,
      start: async (key) => {
        const recipe = this.recipes.get(key)!;
        const member = await ClaudeProcess.start(
          key,
          await processSpec(o, recipe.launch, this.parentDir(recipe.launch.env), recipe.resume),
        );
        this.members.add(member);
        return member;
      },
    });
  }

  private parentDir(env: NodeJS.ProcessEnv): string {
    return path.join(this.stateDir(env), 'claude-code-warm');
  }

  /** Why this chat takes the spawn path, or undefined when a warm process can take it. */
  spawnReason(ctx: CallContext, request: ToolRequest): string | undefined {
    this.enabled = this.o.warm !== false && claudeCodeConfig.read(ctx.config).warm !== false && this.warm.configure(ctx.config) > 0;
    if (!this.enabled) {
      void this.warm.pool.closeAll();
      return 'warm transport turned off (claudeCodeWarm, warmIdleMs or the warm option)';
    }
    // A fork is a new process either way (`--fork-session` is a launch flag).
    if (request.resume?.fork) return 'a fork';
    return undefined;
  }

  /**
   * Run one turn on a warm process; returns false without a word when none can be had (warm mode
   * off, a fork, the pool at its limit, a process that would not start): the caller spawns then.
   * A process that dies before the turn said anything is replaced once, transparently.
   */
  async *stream(
    request: ToolRequest,
    ctx: ChatContext,
    turn: TurnSettings,
    onRateLimit: (info: RateLimitInfo) => Promise<void>,
  ): AsyncGenerator<StreamEvent, boolean> {
    if (this.spawnReason(ctx, request)) return false;
    const plain = turn.access.access === 'none' && (await plainEquivalent(ctx.cwd, this.parentDir(ctx.env)));
    const launch = launchOf(this.o, request, ctx.env, turn, plain ? undefined : ctx.cwd);
    return yield* this.warm.run({
      signal: ctx.signal,
      // The retry takes a process started for it: another pooled one may have died the same way (all killed at once).
      lease: (attempt) => this.acquire(launch, request, turn.persist, ctx.signal, attempt > 0),
      progress: () => ({ said: false, background: false }),
      turn: async function* (member, progress) {
        const result = yield* warmTurn(member, request, ctx, {
          ...(launch.structured ? { structured: launch.structured } : {}),
          continues: request.resume !== undefined,
          onRateLimit,
          progress,
          ...(turn.access.asks ? { asks: LEVEL_OF[turn.access.access] } : {}),
        });
        yield {
          type: 'result',
          result: { ...result, metadata: { ...result.metadata, permissions: turn.access.report, transport: 'warm' } },
        };
        return true;
      },
      // An interrupted turn that settled leaves the process usable; one that did not was killed.
      reusable: (member, progress) => !progress.background && this.healthy(member),
    });
  }

  private healthy(member: ClaudeProcess): boolean {
    if (!member.alive || member.turns >= MAX_TURNS_PER_PROCESS) return false;
    return member.turns % 10 !== 0 || !member.pid || groupRssBytes(member.pid) < MAX_RSS_BYTES;
  }

  /**
   * The process for a chat: the one holding its session, an idle one with the same launch (fresh
   * first), or a new one; only a new one when `startNew` (a retry).
   */
  private async acquire(
    launch: Launch,
    request: ToolRequest,
    persist: boolean,
    signal: AbortSignal,
    startNew: boolean,
  ): Promise<WarmLease<ClaudeProcess> | undefined> {
    const resume = request.resume?.nativeSessionId;
    const candidates = this.idle(launch).filter((m) => {
      if (startNew) return false;
      const started = this.recipes.get(m.key)!.launch;
      if (resume)
        return (
          m.conversation === resume &&
          (!launch.model || launch.model === started.model || launch.model === m.model) &&
          !this.sessionGone(m, launch.env, persist)
        );
      return started.system === launch.system && started.model === launch.model;
    });
    candidates.sort((a, b) => Number(a.used) - Number(b.used));
    for (const m of candidates) {
      const lease = await this.lease(m.key, launch.fingerprint, signal);
      if (lease?.member === m) return lease;
      lease?.release(true);
    }
    await Promise.all(this.retiring);
    const key = `${launch.base}#${++this.seq}`;
    this.recipes.set(key, { launch, ...(resume ? { resume } : {}) });
    const lease = await this.lease(key, launch.fingerprint, signal);
    if (!lease) this.recipes.delete(key);
    return lease;
  }

  /**
   * Whether the session a live process holds was deleted on Claude Code's side (its transcript
   * file is gone): the process is retired, and the chat resumes through `--resume`, which fails
   * as a lost session does on the spawn path. A stored session is filed under its process's cwd.
   */
  private sessionGone(m: ClaudeProcess, env: NodeJS.ProcessEnv, persist: boolean): boolean {
    if (!persist || !m.conversation) return false;
    const slug = m.cwd.replace(/[^a-zA-Z0-9]/g, '-');
    if (existsSync(path.join(claudeConfigDir(env), 'projects', slug, `${m.conversation}.jsonl`))) return false;
    m.conversation = undefined;
    this.retire(m, this.recipes.get(m.key)!.launch.fingerprint);
    return true;
  }

  /** Idle live processes of this launch. Any idle process whose files changed since it started is shut down on the way. */
  private idle(launch: Launch): ClaudeProcess[] {
    const out: ClaudeProcess[] = [];
    for (const m of [...this.members]) {
      const recipe = this.recipes.get(m.key);
      if (!m.alive || !recipe) {
        this.members.delete(m);
        this.recipes.delete(m.key);
        continue;
      }
      if (this.warm.activeTurns(m) > 0 || this.warm.isRetired(m)) continue;
      const started = recipe.launch.fingerprint;
      if (warmFingerprint({}, recipe.launch.files) !== started) this.retire(m, started);
      else if (recipe.launch.base === launch.base && started === launch.fingerprint) out.push(m);
    }
    return out;
  }

  private retire(m: ClaudeProcess, fingerprint: string): void {
    this.warm.retire(m); // never chosen again meanwhile
    const done = this.warm.pool
      .acquire(m.key, fingerprint, this.warm.idleMs)
      .then((lease) => lease?.release(false))
      .catch(() => undefined)
      .finally(() => this.retiring.delete(done));
    this.retiring.add(done);
  }

  private lease(key: string, fingerprint: string, signal: AbortSignal): Promise<WarmLease<ClaudeProcess> | undefined> {
    return this.warm.lease({ key, fingerprint }, signal);
  }

  /** Start a process for plain chats of the configured defaults ahead of the first chat (`serve` start-up). */
  async prewarm(ctx: CallContext, turn: TurnSettings): Promise<void> {
    const request: ToolRequest = { messages: [], additionalDirs: [] };
    if (this.spawnReason(ctx, request) || turn.access.access !== 'none') return;
    const launch = launchOf(this.o, request, ctx.env, turn, undefined);
    if (this.idle(launch).length > 0) return;
    const key = `${launch.base}#${++this.seq}`;
    this.recipes.set(key, { launch });
    await this.warm.prewarm({ key, fingerprint: launch.fingerprint });
  }

  load(): WarmLoad | undefined {
    return this.warm.load(this.enabled);
  }

  close(): Promise<void> {
    return this.warm.close();
  }
}
