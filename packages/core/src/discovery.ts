import type { ToolAdapter } from './adapter.js';
import type { CallScope } from './call-scope.js';
import { toToolbridgeError } from './errors.js';
import { TtlCache, type CacheGetOptions } from './ttl-cache.js';
import type { Capability, Tool } from './types.js';

/** Discovery of every tool: one probe per tool per TTL, shared by concurrent callers. */
export class Discovery {
  readonly cache: TtlCache<string, Tool>;

  constructor(
    private readonly adapters: ReadonlyMap<string, ToolAdapter>,
    private readonly scope: CallScope,
    ttlMs: number,
    private readonly detectTimeoutMs: number,
  ) {
    this.cache = new TtlCache((id) => this.detect(this.adapters.get(id)!), ttlMs);
  }

  tool(adapter: ToolAdapter, options?: CacheGetOptions): Promise<Tool> {
    return this.cache.get(adapter.id, options);
  }

  all(options?: CacheGetOptions): Promise<Tool[]> {
    return Promise.all([...this.adapters.values()].map((a) => this.tool(a, options)));
  }

  /** One probe; never rejects: a tool that cannot be detected is an unavailable record with a reason. */
  private async detect(a: ToolAdapter): Promise<Tool> {
    const base = { id: a.id, name: a.name, type: a.type, features: { ...a.features } };
    try {
      const d = await this.scope.run(a.id, { timeoutMs: this.detectTimeoutMs }, `${a.name} detection`, (ctx) => a.detect(ctx));
      const capabilities: Capability[] = [...new Set([...a.capabilities, ...(d.available ? (d.capabilities ?? []) : [])])];
      return {
        ...base,
        capabilities,
        available: d.available,
        ...(d.version ? { version: d.version } : {}),
        models: d.models,
        ...(d.defaultModel ? { defaultModel: d.defaultModel } : {}),
        ...(d.available ? {} : { reason: d.reason ?? `${a.name} is not available` }),
      };
    } catch (e) {
      const err = toToolbridgeError(e);
      const reason = err.code === 'internal_error' ? `${a.name} could not be detected` : err.message;
      return { ...base, capabilities: [...a.capabilities], available: false, models: [], reason };
    }
  }
}
