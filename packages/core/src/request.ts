import { stat } from 'node:fs/promises';
import path from 'node:path';
import { InvalidRequestError } from './errors.js';
import { loadImage } from './images.js';
import { LIMITS } from './limits.js';
import { createAjv, describeSchemaError } from './schema-errors.js';
import { compileResponseFormat, type StructuredOutput } from './structured.js';
import { quoted } from './text.js';
import type { ChatMessage, ChatRequest, ContentPart, PermissionLevel, ToolMessage } from './types.js';
import { ChatRequest as ChatRequestSchema } from './wire/chat.js';
import type { McpServerEntry } from './wire/mcp-servers.js';

const VALID = Symbol.for('toolbridge.validChatRequest');

/**
 * A chat request checked once, at the entry (library call or HTTP body): shape, images decoded
 * and matched to their media type, directories that exist, a compilable schema. Every later
 * layer takes this type and checks nothing again.
 */
export interface ValidChatRequest {
  readonly [VALID]: true;
  /** The caller's messages, normalised for adapters (parts, decoded images). */
  messages: ToolMessage[];
  /** The same messages as the caller sent them (path images replaced by their data), for transcripts. */
  original: ChatMessage[];
  model?: string;
  /** Absolute and existing. */
  cwd?: string;
  additionalDirs: string[];
  permissions?: PermissionLevel;
  maxTokens?: number;
  temperature?: number;
  structured?: StructuredOutput;
  sessionId?: string;
  fork: boolean;
  imageCount: number;
  /** `ask`: side-effecting actions are asked first (`ctx.approvals`); absent means `never`. */
  approvals?: 'ask';
  approvalTimeoutMs?: number;
  /** MCP servers the agent gets for this chat (checked: unique names, exactly one of command / url). */
  mcpServers?: McpServerEntry[];
}

export type RequestOrigin = 'library' | 'http';

export function isValidChatRequest(value: unknown): value is ValidChatRequest {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[VALID] === true;
}

const validateShape = createAjv().compile(ChatRequestSchema);

/** Validate a library call's request; throws InvalidRequestError naming the field. */
export async function validateChatRequest(input: unknown, origin: RequestOrigin = 'library'): Promise<ValidChatRequest> {
  if (isValidChatRequest(input)) return input;
  if (!validateShape(input)) throw new InvalidRequestError(describeSchemaError(validateShape, 'chat request'));
  return completeChatRequest(input as ChatRequest, origin);
}

/**
 * The checks a JSON Schema cannot make, on a request whose shape is already valid (the bridge
 * validates its bodies, which embed the chat fields, with one schema of its own).
 */
export async function completeChatRequest(req: ChatRequest, origin: RequestOrigin): Promise<ValidChatRequest> {
  if (!req.messages.some((m) => m.role === 'user'))
    throw new InvalidRequestError('chat request must contain at least one message with role "user"');
  if (req.fork && !req.sessionId) throw new InvalidRequestError('"fork" needs a "sessionId" to fork from');
  let imageCount = 0;
  const messages: ToolMessage[] = [];
  const original: ChatMessage[] = [];
  for (const [i, m] of req.messages.entries()) {
    const parts: ContentPart[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    const toolParts: ToolMessage['content'] = [];
    const kept: ContentPart[] = [];
    for (const [j, part] of parts.entries()) {
      if (part.type === 'text') {
        toolParts.push({ type: 'text', text: part.text });
        kept.push(part);
        continue;
      }
      const where = `messages.${i}.content.${j}`;
      if (m.role !== 'user') throw new InvalidRequestError(`${where}: images may only be sent in user messages`);
      if (++imageCount > LIMITS.maxImages) throw new InvalidRequestError(`a chat request may carry at most ${LIMITS.maxImages} images`);
      const image = await loadImage(part, where, origin);
      toolParts.push(image);
      kept.push({ type: 'image', mediaType: image.mediaType, data: image.data });
    }
    messages.push({ role: m.role, content: toolParts });
    original.push({ role: m.role, content: typeof m.content === 'string' ? m.content : kept });
  }
  const cwd = req.cwd === undefined ? undefined : await directory(req.cwd, 'cwd', origin);
  const additionalDirs: string[] = [];
  for (const [i, d] of (req.additionalDirs ?? []).entries()) additionalDirs.push(await directory(d, `additionalDirs.${i}`, origin));
  return {
    [VALID]: true,
    messages,
    original,
    ...(req.model !== undefined ? { model: req.model } : {}),
    ...(cwd !== undefined ? { cwd } : {}),
    additionalDirs: [...new Set(additionalDirs)],
    ...(req.permissions !== undefined ? { permissions: req.permissions } : {}),
    ...(req.maxTokens !== undefined ? { maxTokens: req.maxTokens } : {}),
    ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
    ...(req.responseFormat !== undefined ? { structured: compileResponseFormat(req.responseFormat) } : {}),
    ...(req.sessionId !== undefined ? { sessionId: req.sessionId } : {}),
    fork: req.fork === true,
    imageCount,
    ...(req.approvals === 'ask' ? { approvals: 'ask' as const } : {}),
    ...(req.approvalTimeoutMs !== undefined ? { approvalTimeoutMs: req.approvalTimeoutMs } : {}),
    ...(req.mcpServers?.length ? { mcpServers: mcpServersOf(req.mcpServers) } : {}),
  };
}

/**
 * The checks of `mcpServers` a schema cannot make. Messages name the entry by index and name,
 * never its env or headers (they hold secrets).
 */
function mcpServersOf(entries: NonNullable<ChatRequest['mcpServers']>): McpServerEntry[] {
  const names = new Set<string>();
  return entries.map((e, i) => {
    const where = `mcpServers.${i} (${quoted(e.name)})`;
    if (names.has(e.name)) throw new InvalidRequestError(`${where}: the name is used twice`);
    names.add(e.name);
    if ((e.command === undefined) === (e.url === undefined)) throw new InvalidRequestError(`${where} needs either "command" or "url"`);
    if (e.command !== undefined) {
      if (e.headers) throw new InvalidRequestError(`${where}: "headers" go with "url", not "command"`);
      return { name: e.name, command: e.command, ...(e.args ? { args: e.args } : {}), ...(e.env ? { env: e.env } : {}) };
    }
    if (e.args || e.env) throw new InvalidRequestError(`${where}: "args" and "env" go with "command", not "url"`);
    let url: URL | undefined;
    try {
      url = new URL(e.url!);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      throw new InvalidRequestError(`${where}: "url" must be an http or https URL`);
    return { name: e.name, url: e.url!, ...(e.headers ? { headers: e.headers } : {}) };
  });
}

/** An existing directory, as an absolute path. Over HTTP a relative path has no meaning: it is refused. */
export async function directory(dir: string, field: string, origin: RequestOrigin): Promise<string> {
  if (dir.includes('\0')) throw new InvalidRequestError(`${field} is not a valid path`);
  if (origin === 'http' && !path.isAbsolute(dir)) throw new InvalidRequestError(`${field} must be an absolute path (got ${quoted(dir)})`);
  const full = path.resolve(dir);
  let s;
  try {
    s = await stat(full);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'cannot be accessed' : `cannot be used (${code ?? 'error'})`;
    throw new InvalidRequestError(`${field} ${quoted(full)} ${why}`);
  }
  if (!s.isDirectory()) throw new InvalidRequestError(`${field} ${quoted(full)} is not a directory`);
  return full;
}

/** The text of a message (image parts left out). */
export function textOf(message: { content: ToolMessage['content'] | string }): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .filter((p): p is { type: 'text'; text: string } => p.type === 'text')
    .map((p) => p.text)
    .join('\n');
}
