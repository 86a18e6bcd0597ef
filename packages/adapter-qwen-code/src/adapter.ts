import { tmpdir } from 'node:os';
import { defineAdapter, probeVersion, resolvePermissions } from '@toolbridge/adapter-kit';
import { InvalidRequestError, ToolUnavailableError, type CallContext, type ToolAdapter } from '@toolbridge/core';
import { checkQwenAuth, manualLogin, readSettings } from './auth.js';
import { NAME, qwenCodeConfig, TOOL_ID } from './config.js';
import { listModels } from './models.js';
import { chooseNode, type NodeChoice } from './node.js';
import type { QwenCodeAdapterOptions } from './options.js';
import { oneShotTurn, runEnv, type QwenTurn } from './spawn.js';
import { QwenWarm } from './warm.js';

/** The Qwen Code adapter (`qwen-code`): drives the `qwen` CLI (on a Node >= 22) with stream-json output. */
export function createQwenCodeAdapter(options: QwenCodeAdapterOptions = {}): ToolAdapter {
  const command = options.command ?? 'qwen';
  const timeoutMs = options.detectTimeoutMs ?? 15_000;
  const warm = new QwenWarm(options);
  const node = (ctx: CallContext): Promise<NodeChoice> => chooseNode(ctx, options.node ?? qwenCodeConfig.read(ctx.config).node, timeoutMs);

  return defineAdapter({
    specificationVersion: 'v1',
    id: TOOL_ID,
    name: NAME,
    type: 'agent',
    config: qwenCodeConfig,
    features: {
      sessions: { resume: true, fork: true },
      structuredOutput: 'native',
      images: true,
      activity: true,
      permissions: ['read-only', 'workspace-write', 'full'],
      additionalDirs: true,
      ...(options.warm === false ? {} : { warm: true, approvals: true, interrupt: true }),
    },

    async detect(ctx) {
      const chosen = await node(ctx);
      if (!chosen.ok) return { available: false, models: [], reason: chosen.reason };
      const probe = await probeVersion(
        { ...ctx, env: runEnv(ctx.env, chosen.path) },
        { command, toolId: TOOL_ID, timeoutMs, cwd: tmpdir() },
      );
      if (!probe.available) return { available: false, models: [], reason: probe.reason };
      const { models, defaultModel, vision } = listModels(await readSettings(ctx.env), ctx.env, qwenCodeConfig.read(ctx.config).model);
      return {
        available: true,
        version: probe.version,
        models,
        ...(defaultModel ? { defaultModel } : {}),
        capabilities: defaultModel && vision.has(defaultModel) ? ['vision'] : [],
      };
    },

    checkAuth: (ctx) => checkQwenAuth(ctx.env),
    startAuth: async (ctx) => manualLogin(command, await checkQwenAuth(ctx.env)),

    stream(request, ctx) {
      const s = qwenCodeConfig.read(ctx.config);
      return (async function* () {
        const chosen = await node(ctx);
        if (!chosen.ok) throw new ToolUnavailableError(chosen.reason, { toolId: TOOL_ID });
        const turn: QwenTurn = { permissions: resolvePermissions(request, ctx), model: request.model ?? s.model, node: chosen.path };
        if (yield* warm.stream(request, ctx, turn)) return;
        // Only the warm process can ask: a one-shot run would do every action the level allows unasked.
        if (ctx.approvals) {
          throw new InvalidRequestError(
            'Qwen Code asks for approvals only on its warm process, and this chat would run one-shot (a JSON answer, images, a fork, a session no process holds, or no warm process free): send it without approvals "ask", or retry',
            { toolId: TOOL_ID, publicDetails: { reason: 'unsupported', feature: 'approvals' } },
          );
        }
        yield* oneShotTurn(options, request, ctx, turn);
      })();
    },

    warmLoad: () => warm.load(),
    dispose: () => warm.close(),
  });
}
