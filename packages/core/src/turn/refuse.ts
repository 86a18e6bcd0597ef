import type { ToolAdapter } from '../adapter.js';
import { InvalidRequestError, ToolUnavailableError, type ToolbridgeError } from '../errors.js';
import type { ValidChatRequest } from '../request.js';
import type { Tool } from '../types.js';

/**
 * What refuses a request before anything runs, decided here once for a single-tool chat
 * (`refusalOf`: refused) and a fallback chat (the orchestrator's preflight: the tool is skipped).
 */

/** What discovery knew of a tool the last time it looked (undefined: not looked yet). */
export type KnownTool = Pick<Tool, 'available' | 'reason' | 'capabilities' | 'unknown' | 'defaultModel'>;

/**
 * Tool policy for a single-tool chat (library `chatWith`/`connect().chat`, `/chat/:toolId`,
 * `/v1`): a tool the last discovery found unavailable is refused (503) without starting anything;
 * images to a tool that cannot take them, approvals to an agent that cannot ask and MCP servers to
 * a tool that cannot be given them are refused (400). (An unknown id was refused before, with 404.)
 */
export function refusalOf(adapter: ToolAdapter, request: ValidChatRequest, known: KnownTool | undefined): ToolbridgeError | undefined {
  const cannotAsk = approvalsRefusal(adapter, request);
  if (cannotAsk) return cannotAsk;
  if (known && !known.available)
    return new ToolUnavailableError(known.reason ?? `${adapter.name} is not available`, { toolId: adapter.id });
  return imagesRefusal(adapter, request, known) ?? mcpServersRefusal(adapter, request);
}

/**
 * Images to a tool that cannot take them. Discovery speaks for the default model; a model the
 * request names is the adapter's to judge (with `imagesUnsupported`). Capabilities a probe could
 * not read are unknown, not "no", and so is a tool not probed yet: the chat may try.
 */
export function imagesRefusal(
  adapter: ToolAdapter,
  request: Pick<ValidChatRequest, 'imageCount' | 'model'>,
  known: KnownTool | undefined,
): InvalidRequestError | undefined {
  if (request.imageCount === 0) return undefined;
  const vision =
    adapter.features.images === true &&
    (request.model !== undefined || !known || known.capabilities.includes('vision') || known.unknown?.includes('capabilities') === true);
  if (vision) return undefined;
  return imagesUnsupported(adapter.id, `${adapter.name} cannot take images${known?.defaultModel ? ` (model ${known.defaultModel})` : ''}`);
}

/** The one error for images a tool (or one of its models) cannot take: 400, `details: {reason: 'unsupported', feature: 'images'}`. */
export function imagesUnsupported(toolId: string, message: string, details: Record<string, unknown> = {}): InvalidRequestError {
  return new InvalidRequestError(message, { toolId, publicDetails: { reason: 'unsupported', feature: 'images', ...details } });
}

/** `mcpServers` to a tool that cannot take them: refused (one tool) or skipped (fallback), never silently dropped. */
export function mcpServersRefusal(adapter: ToolAdapter, request: Pick<ValidChatRequest, 'mcpServers'>): InvalidRequestError | undefined {
  if (!request.mcpServers?.length || adapter.features.mcpServers) return undefined;
  return new InvalidRequestError(`${adapter.name} cannot be given MCP servers`, {
    toolId: adapter.id,
    publicDetails: { reason: 'unsupported', feature: 'mcpServers' },
  });
}

/**
 * An agent that cannot ask (no `features.approvals`) would run every action unasked: a request
 * with `approvals: "ask"` is refused rather than silently not asked. A runtime has no actions to ask about.
 */
export function approvalsRefusal(adapter: ToolAdapter, request: Pick<ValidChatRequest, 'approvals'>): InvalidRequestError | undefined {
  if (request.approvals !== 'ask' || adapter.type !== 'agent' || adapter.features.approvals) return undefined;
  return new InvalidRequestError(`${adapter.name} cannot ask for approvals yet`, {
    toolId: adapter.id,
    publicDetails: { reason: 'unsupported', feature: 'approvals' },
  });
}
