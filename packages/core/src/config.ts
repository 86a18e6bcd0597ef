import type { ValidateFunction } from 'ajv';
import { InvalidRequestError } from './errors.js';
import { createAjv, describeSchemaError } from './schema-errors.js';

/** Process-level provider config. Keys are owned by adapters: each declares the JSON Schema of its own keys. */
export type ToolbridgeConfig = Record<string, unknown>;

/** JSON Schema of one config key, plus where its env default comes from. */
export interface ConfigKeySchema {
  type: 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  enum?: readonly (string | number)[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  pattern?: string;
  format?: string;
  /** Env vars that supply a default, first set wins. Default: `TOOLBRIDGE_<SCREAMING_SNAKE_KEY>`. */
  env?: readonly string[];
  /** Normalises an env value before validation (e.g. `OLLAMA_HOST=host:port` to a URL). */
  fromEnv?: (value: string) => unknown;
  /** Which tool the key belongs to (its id), or `general`; published as `x-toolbridge-group` for grouping (dashboard). */
  group?: string;
}

export function defaultEnvName(key: string): string {
  return 'TOOLBRIDGE_' + key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}

/** The annotation that says which tool a config key belongs to. */
export const CONFIG_GROUP_KEYWORD = 'x-toolbridge-group';

function jsonSchemaOf(key: ConfigKeySchema): Record<string, unknown> {
  const { env: _env, fromEnv: _fromEnv, group, ...schema } = key;
  return group ? { ...schema, [CONFIG_GROUP_KEYWORD]: group } : schema;
}

/** The JSON Schema (draft 2020-12 compatible subset) of a whole config object. */
export function buildConfigJsonSchema(keys: Readonly<Record<string, ConfigKeySchema>>): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(keys)) properties[k] = jsonSchemaOf(v);
  return { type: 'object', additionalProperties: false, properties };
}

const URL_FORMAT = {
  type: 'string' as const,
  validate: (value: string) => {
    try {
      const u = new URL(value);
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0;
    } catch {
      return false;
    }
  },
};

export interface ConfigStore {
  /** The JSON Schema of the config object (published in the OpenAPI document). */
  readonly jsonSchema: Record<string, unknown>;
  /** The config set by `replace()` (without env defaults). */
  get(): ToolbridgeConfig;
  /** Explicit config over env defaults: what adapters see. */
  effective(): ToolbridgeConfig;
  /** Validate and replace the whole config; keys not given are removed. */
  replace(next: unknown): ToolbridgeConfig;
  /** Validate without applying. */
  validate(next: unknown): ToolbridgeConfig;
  /** Called after every successful replace. */
  onChange(listener: (config: ToolbridgeConfig) => void): () => void;
}

/**
 * Build the config store from the adapters' key schemas. Validators are
 * compiled once here. Invalid env defaults throw, naming the variable.
 */
export function createConfigStore(
  keys: Readonly<Record<string, ConfigKeySchema>>,
  options: { env?: NodeJS.ProcessEnv; initial?: unknown } = {},
): ConfigStore {
  const jsonSchema = buildConfigJsonSchema(keys);
  const ajv = createAjv();
  ajv.addFormat('http-url', URL_FORMAT);
  ajv.addKeyword({ keyword: CONFIG_GROUP_KEYWORD, schemaType: 'string' });
  const validateFn: ValidateFunction = ajv.compile(jsonSchema);
  const env = options.env ?? process.env;

  const check = (value: unknown, source: string): ToolbridgeConfig => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new InvalidRequestError(`${source} must be a JSON object`);
    }
    if (!validateFn(value))
      throw new InvalidRequestError(describeSchemaError(validateFn, { subject: source, nameOf: (p) => `${source} key "${p.slice(1)}"` }));
    return structuredClone(value as ToolbridgeConfig);
  };

  const envDefaults: ToolbridgeConfig = {};
  for (const [key, schema] of Object.entries(keys)) {
    for (const name of schema.env ?? [defaultEnvName(key)]) {
      const raw = env[name];
      if (raw === undefined || raw === '') continue;
      let value: unknown = schema.fromEnv ? schema.fromEnv(raw) : raw;
      if (typeof value === 'string' && (schema.type === 'integer' || schema.type === 'number')) {
        value = /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
      }
      if (typeof value === 'string' && schema.type === 'boolean') value = value === 'true' || value === '1';
      check({ [key]: value }, `environment variable ${name}: config`);
      envDefaults[key] = value;
      break;
    }
  }

  let current: ToolbridgeConfig = options.initial === undefined ? {} : check(options.initial, 'config');
  const listeners = new Set<(c: ToolbridgeConfig) => void>();

  return {
    jsonSchema,
    get: () => structuredClone(current),
    effective: () => ({ ...envDefaults, ...current }),
    validate: (next) => check(next, 'config'),
    replace(next) {
      current = check(next, 'config');
      for (const l of listeners) l(structuredClone(current));
      return structuredClone(current);
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
