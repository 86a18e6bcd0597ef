import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'smol-toml';

/** The model provider a Codex setup talks to, as its config files select it. */
export interface CodexProvider {
  /** `model_provider`; `openai` when unset. */
  id: string;
  /** Display name from `[model_providers.<id>]`. */
  name?: string;
  /** Declared in `[model_providers.<id>]` (a custom provider), rather than built in. */
  custom: boolean;
  /** The environment variable the provider's key is read from (`env_key`). */
  envKey?: string;
  /** `requires_openai_auth = true`: the provider uses Codex's own login. */
  requiresOpenaiAuth: boolean;
  /** A literal token in the config (`experimental_bearer_token`); only whether there is one. */
  hasBearerToken: boolean;
}

/** What Toolbridge reads from the user's Codex config (`config.toml`, layered with a profile). */
export interface CodexUserConfig {
  /** `model`, from the profile when it sets one, else from `config.toml`. */
  model?: string;
  provider: CodexProvider;
  /** `shell_environment_policy.exclude`: variables kept from the commands Codex runs. */
  shellExclude?: string[];
  /** Files that were read (for messages); a missing file is no error. */
  files: string[];
  /** A file that could not be parsed: Codex itself refuses to start with it. */
  error?: string;
}

/** Codex 0.169's built-in providers (no table needed); only `openai` serves its model catalog. */
const BUILT_IN = new Set(['openai', 'ollama', 'lmstudio']);

type Table = Record<string, unknown>;
const isTable = (v: unknown): v is Table => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

async function readToml(file: string): Promise<{ table?: Table; error?: string }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return {};
  }
  try {
    return { table: parse(text) as Table };
  } catch (e) {
    // The parser's message names the line and column; it never echoes a value.
    return { error: `${file} is not valid TOML: ${(e as Error).message.split('\n')[0]}` };
  }
}

/** Later tables win key by key; nested tables merge (Codex layers a profile over the base config this way). */
function layer(base: Table, over: Table): Table {
  const out: Table = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = isTable(v) && isTable(out[k]) ? layer(out[k] as Table, v) : v;
  return out;
}

/**
 * Read `$CODEX_HOME/config.toml` and, for a profile, `$CODEX_HOME/<profile>.config.toml` layered
 * over it (Codex 0.169's "v2" profiles, what `-p <profile>` loads). Never throws: a missing file
 * is an empty config, a broken one is reported in `error`.
 */
export async function readCodexUserConfig(codexHome: string, profile?: string): Promise<CodexUserConfig> {
  const files = [path.join(codexHome, 'config.toml'), ...(profile ? [path.join(codexHome, `${profile}.config.toml`)] : [])];
  let merged: Table = {};
  const read: string[] = [];
  let error: string | undefined;
  for (const file of files) {
    const { table, error: e } = await readToml(file);
    if (e) error ??= e;
    if (table) {
      merged = layer(merged, table);
      read.push(file);
    }
  }
  const id = str(merged.model_provider) ?? 'openai';
  const providers = isTable(merged.model_providers) ? merged.model_providers : {};
  const table = isTable(providers[id]) ? (providers[id] as Table) : undefined;
  const provider: CodexProvider = {
    id,
    custom: table !== undefined && !BUILT_IN.has(id),
    requiresOpenaiAuth: table ? table.requires_openai_auth === true : id === 'openai',
    hasBearerToken: table ? str(table.experimental_bearer_token) !== undefined : false,
    ...(str(table?.name) ? { name: str(table?.name) } : {}),
    ...(str(table?.env_key) ? { envKey: str(table?.env_key) } : {}),
  };
  const policy = isTable(merged.shell_environment_policy) ? merged.shell_environment_policy : {};
  const shellExclude = Array.isArray(policy.exclude) ? policy.exclude.filter((p): p is string => typeof p === 'string') : [];
  return {
    ...(str(merged.model) ? { model: str(merged.model) } : {}),
    provider,
    ...(shellExclude.length ? { shellExclude } : {}),
    files: read,
    ...(error ? { error } : {}),
  };
}

/** Whether the provider is one Codex knows without a table; an unknown id makes Codex refuse to start. */
export function providerDefined(provider: CodexProvider): boolean {
  return provider.custom || BUILT_IN.has(provider.id);
}
