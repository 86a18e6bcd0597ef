import type { DetectResult, ProbedField, ToolAdapter } from './adapter.js';

/** How soon a record with a field its probe could not fill is probed again. */
const UNKNOWN_REPROBE_MS = 15_000;
import type { CallScope } from './call-scope.js';
import { toToolbridgeError } from './errors.js';
import { TtlCache, type CacheGetOptions } from './ttl-cache.js';
import type { Capability, Tool } from './types.js';

/** Discovery of every tool: one probe per tool per TTL, shared by concurrent callers. */
export class Discovery {
  readonly cache: TtlCache<string, Tool>;
  /** Per tool, the last answer of each probed field that was known (a failed probe never overwrites it). */
  private readonly lastGood = new Map<string, Partial<Pick<DetectResult, ProbedField>>>();

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

  /** The probe's answer with the fields it could not fill taken from the last probe that could. */
  private withLastGood(toolId: string, d: DetectResult): DetectResult {
    const good = { ...this.lastGood.get(toolId) };
    const unknown = new Set(d.unknown ?? []);
    const out: DetectResult = { ...d };
    for (const field of ['models', 'defaultModel', 'capabilities'] as const) {
      if (!unknown.has(field)) {
        (good as Record<string, unknown>)[field] = d[field];
      } else if (good[field] !== undefined) {
        (out as unknown as Record<string, unknown>)[field] = good[field];
        unknown.delete(field);
      }
    }
    this.lastGood.set(toolId, good);
    return { ...out, unknown: [...unknown] };
  }

  all(options?: CacheGetOptions): Promise<Tool[]> {
    return Promise.all([...this.adapters.values()].map((a) => this.tool(a, options)));
  }

  /** One probe; never rejects: a tool that cannot be detected is an unavailable record with a reason. */
  private async detect(a: ToolAdapter): Promise<Tool> {
    const base = { id: a.id, name: a.name, type: a.type, features: { ...a.features } };
    try {
      const d = await this.scope.run(a.id, { timeoutMs: this.detectTimeoutMs }, `${a.name} detection`, (ctx) => a.detect(ctx));
      const filled = d.available ? this.withLastGood(a.id, d) : d;
      const unknown = d.available ? [...(filled.unknown ?? [])] : [];
      // Something could not be probed: look again soon rather than for a whole TTL.
      if (d.available && d.unknown?.length) setTimeout(() => this.cache.invalidate(a.id), UNKNOWN_REPROBE_MS).unref();
      const capabilities: Capability[] = [...new Set([...a.capabilities, ...(d.available ? (filled.capabilities ?? []) : [])])];
      return {
        ...base,
        capabilities,
        available: d.available,
        ...(d.version ? { version: d.version } : {}),
        models: filled.models,
        ...(filled.defaultModel ? { defaultModel: filled.defaultModel } : {}),
        ...(unknown.length ? { unknown } : {}),
        ...(d.available ? {} : { reason: d.reason ?? `${a.name} is not available` }),
      };
    } catch (e) {
      const err = toToolbridgeError(e);
      const reason = err.code === 'internal_error' ? `${a.name} could not be detected` : err.message;
      return { ...base, capabilities: [...a.capabilities], available: false, models: [], reason };
    }
  }
}
