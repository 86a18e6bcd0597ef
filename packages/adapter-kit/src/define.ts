import { AGENT_CAPABILITIES, RUNTIME_CAPABILITIES, type AdapterFeatures, type ToolAdapter } from '@toolbridge/core';
import { configPrefix, type AdapterConfig, type KeyDeclaration } from './config.js';

/** What an adapter writes: everything but what the kit derives (capabilities, config schema, empty features). */
export type AdapterSpec = Omit<ToolAdapter, 'capabilities' | 'configSchema' | 'features'> & {
  features?: AdapterFeatures;
  config?: AdapterConfig<Record<string, KeyDeclaration>>;
};

/**
 * Build an adapter from its spec: the spec's capabilities follow its type, the config schema
 * comes from its declaration (every key carrying the tool's prefix), and the contract's rules are
 * checked once here rather than trusted: an id the bridge can route, a login that can both be
 * checked and started.
 */
export function defineAdapter(spec: AdapterSpec): ToolAdapter {
  if (!/^[a-z][a-z0-9-]*$/.test(spec.id)) throw new TypeError(`adapter id "${spec.id}" must be lowercase letters, digits and dashes`);
  if ((typeof spec.checkAuth === 'function') !== (typeof spec.startAuth === 'function')) {
    throw new TypeError(`adapter ${spec.id}: a tool with a login has both checkAuth and startAuth`);
  }
  const prefix = configPrefix(spec.id);
  const configSchema = spec.config?.schema ?? {};
  for (const key of Object.keys(configSchema)) {
    if (!key.startsWith(prefix)) throw new TypeError(`adapter ${spec.id}: config key "${key}" must start with "${prefix}"`);
  }
  const { config: _config, features, ...rest } = spec;
  return {
    ...rest,
    capabilities: spec.type === 'agent' ? AGENT_CAPABILITIES : RUNTIME_CAPABILITIES,
    features: features ?? {},
    configSchema,
  };
}
