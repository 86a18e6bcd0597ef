import type { CompletionRequest, CompletionResult, StreamEvent, ToolAdapter } from './adapter.js';
import type { CallScope } from './call-scope.js';
import type { CallOptions } from './context.js';
import { ToolUnavailableError } from './errors.js';
import type { ChatCallOptions } from './execution.js';
import type { HealthOptions } from './health.js';
import type { ValidChatRequest } from './request.js';
import type { ToolStates } from './tool-state.js';
import { withoutPassedWindows } from './usage-limits.js';
import type {
  AuthStartResult,
  AuthState,
  Capability,
  ChatRequest,
  ChatResult,
  LiveHealthRecord,
  Tool,
  ToolType,
  UsageLimits,
} from './types.js';

export interface ConnectedTool {
  readonly id: string;
  readonly name: string;
  readonly type: ToolType;
  readonly capabilities: readonly Capability[];
  readonly features: Tool['features'];
  readonly version?: string;
  readonly models: readonly string[];
  readonly defaultModel?: string;
  chat(input: ChatRequest | ValidChatRequest, options?: ChatCallOptions): Promise<ChatResult>;
  stream(input: ChatRequest | ValidChatRequest, options?: ChatCallOptions): AsyncIterable<StreamEvent>;
  health(options?: HealthOptions): Promise<LiveHealthRecord>;
  /** Only on tools with a login. */
  checkAuth?(options?: CallOptions): Promise<AuthState>;
  /** Only on tools with a login. */
  startAuth?(options?: CallOptions): Promise<AuthStartResult>;
  usageLimits?(options?: CallOptions): Promise<UsageLimits>;
  /** Only on runtimes with the `completion` capability. */
  complete?(input: CompletionRequest, options?: CallOptions): Promise<CompletionResult>;
}

export interface ConnectDeps {
  scope: CallScope;
  states: ToolStates;
  chat(toolId: string, input: ChatRequest | ValidChatRequest, options?: ChatCallOptions): Promise<ChatResult>;
  stream(toolId: string, input: ChatRequest | ValidChatRequest, options?: ChatCallOptions): AsyncIterable<StreamEvent>;
  health(toolId: string, options?: HealthOptions): Promise<LiveHealthRecord>;
}

/** A connected tool over a freshly detected record: unknown ids 404 (before this), unavailable tools 503. */
export function connectedTool(a: ToolAdapter, t: Tool, deps: ConnectDeps): ConnectedTool {
  if (!t.available) throw new ToolUnavailableError(t.reason ?? `${a.name} is not available`, { toolId: a.id });
  const run = <T>(what: string, o: CallOptions | undefined, fn: Parameters<CallScope['run']>[3]) =>
    deps.scope.run(a.id, o, `${a.name} ${what}`, fn) as Promise<T>;
  const connected: ConnectedTool = {
    id: a.id,
    name: a.name,
    type: a.type,
    capabilities: t.capabilities,
    features: t.features,
    version: t.version,
    models: t.models,
    defaultModel: t.defaultModel,
    chat: (input, o) => deps.chat(a.id, input, o),
    stream: (input, o) => deps.stream(a.id, input, o),
    health: (o) => deps.health(a.id, o),
  };
  if (a.checkAuth) {
    connected.checkAuth = (o) =>
      run('auth check', o, async (ctx) => {
        const s = await a.checkAuth!(ctx);
        deps.states.learnAuth(a.id, s);
        return s;
      });
  }
  if (a.startAuth) connected.startAuth = (o) => run('login', o, (ctx) => a.startAuth!(ctx));
  if (a.usageLimits) {
    connected.usageLimits = (o) =>
      run('usage limits', o, async (ctx) => {
        const takenAt = Date.now();
        const limits = withoutPassedWindows(await a.usageLimits!(ctx));
        deps.states.learnUsage(a.id, limits, takenAt);
        return limits;
      });
  }
  if (a.complete) connected.complete = (input, o) => run('completion', o, (ctx) => a.complete!(input, ctx));
  return connected;
}
