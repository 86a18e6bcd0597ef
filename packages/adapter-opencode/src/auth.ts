import { stripAnsi } from '@toolbridge/adapter-kit';
import type { AuthState } from '@toolbridge/core';
import { providerOf } from './models.js';

/** One `●` line of `opencode auth list`: a provider's display name and what follows it. */
export interface AuthListEntry {
  name: string;
  /** Credential type (`api`, `oauth`, ...) or, in the environment section, the variable name. */
  detail?: string;
}

export interface AuthList {
  /** Stored credentials (`$XDG_DATA_HOME/opencode/auth.json`). */
  credentials: AuthListEntry[];
  /** The `N credentials` count OpenCode printed. */
  credentialCount: number;
  /** Providers whose key comes from an environment variable. */
  environment: AuthListEntry[];
}

/**
 * Parse the boxed text of `opencode auth list` (it always exits 0):
 * `┌  Credentials <path>`, `●  Anthropic api`, `└  2 credentials`, then an
 * optional `┌  Environment` section listing `●  Groq GROQ_API_KEY`.
 */
export function parseAuthList(stdout: string): AuthList {
  const out: AuthList = { credentials: [], credentialCount: 0, environment: [] };
  let section: 'credentials' | 'environment' | undefined;
  for (const raw of stripAnsi(stdout).split('\n')) {
    const line = raw.trim();
    const head = /^┌\s+(\S+)/.exec(line);
    if (head) {
      const title = head[1]!.toLowerCase();
      section = title.startsWith('credential') ? 'credentials' : title.startsWith('environment') ? 'environment' : undefined;
      continue;
    }
    const item = /^●\s+(.+)$/.exec(line);
    if (item && section) {
      const words = item[1]!.trim().split(/\s+/);
      // The detail is the last word (`api`, `oauth`, `GROQ_API_KEY`); display names may have spaces.
      const entry: AuthListEntry = words.length > 1 ? { name: words.slice(0, -1).join(' '), detail: words.at(-1)! } : { name: words[0]! };
      out[section].push(entry);
      continue;
    }
    const count = /^└\s+(\d+)\s+credentials?\b/.exec(line);
    if (count) out.credentialCount = Number(count[1]);
  }
  out.credentialCount = Math.max(out.credentialCount, out.credentials.length);
  return out;
}

/** Display names (`GitHub Copilot`) and provider ids (`github-copilot`) compare equal. */
function norm(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]/g, '');
}

function matches(entry: AuthListEntry, provider: string, isEnv: boolean): boolean {
  if (norm(entry.name) === norm(provider)) return true;
  return isEnv && entry.detail !== undefined && norm(entry.detail).startsWith(norm(provider) + 'api');
}

/**
 * Providers whose key is in `OPENCODE_CONFIG_CONTENT` (`options.apiKey`, or an `env` list naming a
 * variable that is set): `opencode auth list` does not show them (measured), yet they need no login.
 */
export function configKeyProviders(env: NodeJS.ProcessEnv): Set<string> {
  const found = new Set<string>();
  const raw = env.OPENCODE_CONFIG_CONTENT;
  if (!raw) return found;
  try {
    const providers = (JSON.parse(raw) as { provider?: unknown }).provider;
    if (typeof providers !== 'object' || providers === null) return found;
    for (const [id, p] of Object.entries(providers as Record<string, unknown>)) {
      const provider = p as { options?: { apiKey?: unknown }; env?: unknown } | null;
      const key = provider?.options?.apiKey;
      const vars = Array.isArray(provider?.env) ? provider.env : [];
      if ((typeof key === 'string' && key.length > 0) || vars.some((v) => typeof v === 'string' && !!env[v])) found.add(id);
    }
  } catch {
    // Not JSON: OpenCode will complain about it itself.
  }
  return found;
}

/** Free `opencode/*` models run without a login. */
export function isFreeProvider(provider: string | undefined): boolean {
  return provider === 'opencode';
}

/** Every provider OpenCode has a credential for, once each: stored logins, environment keys, keys in the config. */
export function credentialedProviders(list: AuthList, env: NodeJS.ProcessEnv): string[] {
  const names = new Map<string, string>();
  const add = (name: string) => names.has(norm(name)) || names.set(norm(name), name);
  for (const c of list.credentials) add(c.name);
  for (const e of list.environment) add(e.name);
  for (const id of configKeyProviders(env)) add(id);
  return [...names.values()];
}

const FREE = 'the free opencode/* models need none';

/** "Credentials for Anthropic, Groq; the free ... need none" (or that there are none). */
function credentialText(providers: readonly string[]): string {
  return providers.length > 0
    ? `OpenCode has credentials for ${providers.join(', ')}; ${FREE}`
    : `OpenCode has no provider credentials; ${FREE}`;
}

/** A short list for the dashboard's login row: "Anthropic, Groq +2 more". */
function shortList(providers: readonly string[]): string {
  return providers.length <= 3 ? providers.join(', ') : `${providers.slice(0, 3).join(', ')} +${providers.length - 3} more`;
}

/**
 * What the login state means for the model OpenCode will use. The row never reads "logged in
 * (none)": it names how the model's provider is authenticated, the providers that have
 * credentials, or that only the free models (which need no login) are usable.
 */
export function authStateFor(model: string | undefined, list: AuthList, env: NodeJS.ProcessEnv): AuthState {
  const provider = providerOf(model);
  const providers = credentialedProviders(list, env);
  const all = credentialText(providers);
  if (provider === undefined) {
    return {
      authenticated: true,
      method: providers.length > 0 ? shortList(providers) : 'free models only',
      detail: `No model configured, OpenCode picks its default. ${all}.`,
    };
  }
  if (isFreeProvider(provider)) {
    return { authenticated: true, method: 'free model', detail: `${model} is a free OpenCode model and needs no login. ${all}.` };
  }
  const credential = list.credentials.find((c) => matches(c, provider, false));
  if (credential) {
    return {
      authenticated: true,
      method: credential.detail === 'api' ? 'api_key' : (credential.detail ?? 'stored'),
      detail: `${credential.name} credential stored by opencode auth login. ${all}.`,
    };
  }
  const fromEnv = list.environment.find((e) => matches(e, provider, true));
  if (fromEnv)
    return { authenticated: true, method: 'env', detail: `${fromEnv.name} key from ${fromEnv.detail ?? 'the environment'}. ${all}.` };
  if (configKeyProviders(env).has(provider))
    return { authenticated: true, method: 'config', detail: `API key for "${provider}" set in OPENCODE_CONFIG_CONTENT. ${all}.` };
  return {
    authenticated: false,
    detail: `No OpenCode credential for provider "${provider}" (model ${model}). ${all}. Run "opencode auth login" in a terminal, or use a free opencode/* model.`,
  };
}
