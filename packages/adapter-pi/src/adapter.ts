import { defineAdapter, toolFailure } from '@toolbridge/adapter-kit';
import type { CallContext, ChatContext, StreamEvent, ToolAdapter, ToolRequest } from '@toolbridge/core';
import { checkPiAuth, manualLogin } from './auth.js';
import { NAME, piConfig, TOOL_ID } from './config.js';
import { detectPi } from './detect.js';
import { prepareRuntimeDir, userAgentDir } from './dirs.js';
import type { PiAdapterOptions } from './options.js';
import { RpcProcess } from './warm-process.js';
import { jsonTurn } from './spawn.js';
import { commonArgs, runEnv, turnSettings, type TurnSettings } from './turn.js';
import { PiWarm } from './warm.js';
import { rpcTurn } from './warm-turn.js';

/**
 * A chat that needs Pi's RPC channel (the caller asked for approvals) when no warm process can be
 * had: one RPC process for this chat alone.
 */
async function* coldRpcTurn(command: string, request: ToolRequest, ctx: ChatContext, turn: TurnSettings): AsyncGenerator<StreamEvent> {
  const proc = await RpcProcess.start(
    {
      command,
      args: ['--mode', 'rpc', ...commonArgs(turn.runtimeDir, turn.model, turn.thinking)],
      env: runEnv(ctx.env, turn.runtimeDir, { TOOLBRIDGE_PI_ASK: '1' }),
      cwd: ctx.cwd,
    },
    turn.model,
  );
  try {
    for await (const event of rpcTurn(proc, request, ctx, turn)) {
      yield event.type === 'result'
        ? { type: 'result', result: { ...event.result, metadata: { ...event.result.metadata, transport: 'spawn' } } }
        : event;
    }
  } finally {
    proc.kill();
    await proc.close();
  }
}

/**
 * Pi (`pi` on PATH, `@mariozechner/pi-coding-agent`): chats on a warm `pi --mode rpc` process
 * (one per setup, one chat at a time), else `pi --mode json`; Pi's own sessions continued and
 * forked; the permission level enforced by an extension Toolbridge ships (Pi has no permission
 * model), which asks the adapter about every tool call on the warm transport; models from `pi
 * --list-models`; logins read offline from the user's `auth.json` and the provider variables. Pi
 * always runs on Toolbridge's own runtime directory (dirs.ts), so the user's settings are never written.
 */
export function createPiAdapter(options: PiAdapterOptions = {}): ToolAdapter {
  const command = options.command ?? 'pi';
  const timeoutMs = options.versionTimeoutMs ?? 15_000;
  const warm = new PiWarm(options);
  const checkAuth = (ctx: CallContext) => checkPiAuth(userAgentDir(options, ctx.env), ctx.env);

  return defineAdapter({
    specificationVersion: 'v1',
    id: TOOL_ID,
    name: NAME,
    type: 'agent',
    config: piConfig,
    features: {
      sessions: { resume: true, fork: true },
      structuredOutput: 'prompt',
      images: true,
      activity: true,
      permissions: ['read-only', 'workspace-write', 'full'],
      additionalDirs: true,
      warm: options.warm !== false,
      approvals: true,
      interrupt: true,
    },

    async detect(ctx) {
      const runtime = await prepareRuntimeDir(options, ctx.env);
      return detectPi(ctx, { command, timeoutMs, env: runEnv(ctx.env, runtime), userDir: userAgentDir(options, ctx.env) });
    },

    checkAuth,
    startAuth: async (ctx) => manualLogin(command, await checkAuth(ctx)),

    async *stream(request, ctx) {
      let turn: TurnSettings;
      try {
        turn = turnSettings(request, ctx, await prepareRuntimeDir(options, ctx.env));
      } catch (e) {
        throw toolFailure(e, NAME, TOOL_ID);
      }
      const userDir = userAgentDir(options, ctx.env);
      if (!warm.spawnReason(ctx)) {
        try {
          if (yield* warm.stream(request, ctx, turn, userDir)) return;
        } catch (e) {
          throw toolFailure(e, NAME, TOOL_ID);
        }
      }
      if (ctx.approvals) {
        try {
          return yield* coldRpcTurn(command, request, ctx, turn);
        } catch (e) {
          throw toolFailure(e, NAME, TOOL_ID);
        }
      }
      yield* jsonTurn(command, request, ctx, turn);
    },

    warmLoad: () => warm.load(),

    dispose: () => warm.close(),
  });
}
