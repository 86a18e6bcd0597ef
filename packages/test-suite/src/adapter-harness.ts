import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  type CallContext,
  type ChatContext,
  type ChatRequest,
  type ChatResult,
  type StreamEvent,
  type ToolAdapter,
  type ToolRequest,
} from '@toolbridge/core';
import { collectStream, toolRequestSettings, validateChatRequest } from '@toolbridge/core/runtime';

export interface DirectCallOptions {
  /** Continue a native session (what core sends for a `sessionId`). */
  resume?: ToolRequest['resume'];
  /** Called with the scratch directory the call used (to check it is gone afterwards). */
  onScratch?: (dir: string) => void;
}

/**
 * Drive one adapter directly, as core does for one turn but without a registry: validate the
 * request, give the adapter a working directory (the request's `cwd`, else a fresh temporary one)
 * and a scratch directory, both removed afterwards. For adapter unit tests that look at argv,
 * stdin and parsing; behaviour across tools is the conformance suite's, through a registry.
 */
export async function* adapterStream(
  adapter: ToolAdapter,
  input: ChatRequest,
  ctx: CallContext,
  options: DirectCallOptions = {},
): AsyncGenerator<StreamEvent> {
  const req = await validateChatRequest(input);
  const ownCwd = req.cwd === undefined ? await mkdtemp(path.join(tmpdir(), `toolbridge-${adapter.id}-cwd-`)) : undefined;
  let scratch: Promise<string> | undefined;
  const chatCtx: ChatContext = {
    ...ctx,
    cwd: req.cwd ?? ownCwd!,
    scratchDir: () =>
      (scratch ??= mkdtemp(path.join(tmpdir(), `toolbridge-${adapter.id}-scratch-`)).then((d) => {
        options.onScratch?.(d);
        return d;
      })),
  };
  // What core sends: the same settings, the messages, and `resume` where a session continues.
  const request: ToolRequest = {
    messages: req.messages,
    ...toolRequestSettings(req),
    ...(options.resume ? { resume: options.resume } : {}),
  };
  try {
    yield* adapter.stream(request, chatCtx);
  } finally {
    if (scratch) await rm(await scratch, { recursive: true, force: true }).catch(() => undefined);
    if (ownCwd) await rm(ownCwd, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** `adapterStream` drained to its result. */
export function adapterChat(adapter: ToolAdapter, input: ChatRequest, ctx: CallContext, options?: DirectCallOptions): Promise<ChatResult> {
  return collectStream(adapterStream(adapter, input, ctx, options), adapter.name, adapter.id);
}

/**
 * The adapter, with the scratch directories its chats asked core for recorded in `dirs`: for tests
 * that run it through a registry and check afterwards that every one is gone.
 */
export function recordingScratch(adapter: ToolAdapter, dirs: string[]): ToolAdapter {
  const wrapped = Object.create(adapter) as ToolAdapter;
  Object.defineProperty(wrapped, 'stream', {
    value: (request: Parameters<ToolAdapter['stream']>[0], ctx: ChatContext) =>
      adapter.stream(request, {
        ...ctx,
        scratchDir: async () => {
          const dir = await ctx.scratchDir();
          if (!dirs.includes(dir)) dirs.push(dir);
          return dir;
        },
      }),
  });
  return wrapped;
}
