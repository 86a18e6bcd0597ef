import type { ConfigKeySchema, ToolbridgeConfig } from '@toolbridge/core';

/** One config key as an adapter declares it: the schema without the prefix and group, which the kit adds. */
export type KeyDeclaration = Omit<ConfigKeySchema, 'group'>;

type ValueOf<K> = K extends { enum: readonly (infer E)[] }
  ? E
  : K extends { type: 'string' }
    ? string
    : K extends { type: 'integer' | 'number' }
      ? number
      : boolean;

/** An adapter's config, from one declaration: its keys' schema (prefixed, grouped) and a typed reader. */
export interface AdapterConfig<D extends Record<string, KeyDeclaration>> {
  /** `codex` → `codexModel` for `model`: the prefix every key of the adapter carries. */
  readonly prefix: string;
  /** What the registry merges into the config store (and the bridge publishes). */
  readonly schema: Readonly<Record<string, ConfigKeySchema>>;
  /** The full name of one key (`model` → `codexModel`). */
  key(name: keyof D & string): string;
  /** The adapter's settings from the effective config (checked against `schema` by core's config store: read as they are). */
  read(config: Readonly<ToolbridgeConfig>): { [K in keyof D]?: ValueOf<D[K]> };
}

/** `claude-code` → `claudeCode`: the prefix of a tool's config keys. */
export function configPrefix(toolId: string): string {
  return toolId.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/**
 * Declare an adapter's config keys once, without their prefix: `adapterConfig('codex', { model:
 * {...}, sandbox: {...} })` owns `codexModel` and `codexSandbox`, grouped under `codex` for the
 * dashboard, and reads them typed. Env defaults are `TOOLBRIDGE_CODEX_MODEL` unless `env` says.
 */
export function adapterConfig<const D extends Record<string, KeyDeclaration>>(toolId: string, declaration: D): AdapterConfig<D> {
  const prefix = configPrefix(toolId);
  const full = (name: string) => prefix + name.charAt(0).toUpperCase() + name.slice(1);
  const schema: Record<string, ConfigKeySchema> = {};
  for (const [name, decl] of Object.entries(declaration)) {
    if (!/^[a-z][A-Za-z0-9]*$/.test(name)) throw new TypeError(`config key "${name}" of ${toolId} must be camelCase`);
    // An empty string means "unset" to every adapter: the schema says so, and the store refuses it.
    const nonEmpty = decl.type === 'string' && !decl.enum && !decl.pattern && !decl.format && decl.minLength === undefined;
    schema[full(name)] = { ...(nonEmpty ? { minLength: 1 } : {}), ...decl, group: toolId };
  }
  return {
    prefix,
    schema,
    key: (name) => full(name),
    read(config) {
      const out: Record<string, unknown> = {};
      for (const name of Object.keys(declaration)) {
        const value = config[full(name)];
        if (value !== undefined) out[name] = value;
      }
      return out as { [K in keyof D]?: ValueOf<D[K]> };
    },
  };
}
