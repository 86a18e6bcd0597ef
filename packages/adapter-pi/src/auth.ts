import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { manualLoginOf } from '@toolbridge/adapter-kit';
import type { AuthState } from '@toolbridge/core';
import { NAME, TOOL_ID } from './config.js';

/** The environment variables Pi reads a provider's key from (pi-ai's `env-api-keys`, 0.73.1). */
export const PROVIDER_ENV: Readonly<Record<string, readonly string[]>> = {
  anthropic: ['ANTHROPIC_OAUTH_TOKEN', 'ANTHROPIC_API_KEY'],
  'github-copilot': ['COPILOT_GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_TOKEN'],
  openai: ['OPENAI_API_KEY'],
  'azure-openai-responses': ['AZURE_OPENAI_API_KEY'],
  deepseek: ['DEEPSEEK_API_KEY'],
  google: ['GEMINI_API_KEY'],
  'google-vertex': ['GOOGLE_CLOUD_API_KEY'],
  groq: ['GROQ_API_KEY'],
  cerebras: ['CEREBRAS_API_KEY'],
  xai: ['XAI_API_KEY'],
  openrouter: ['OPENROUTER_API_KEY'],
  'vercel-ai-gateway': ['AI_GATEWAY_API_KEY'],
  zai: ['ZAI_API_KEY'],
  mistral: ['MISTRAL_API_KEY'],
  minimax: ['MINIMAX_API_KEY'],
  moonshotai: ['MOONSHOT_API_KEY'],
  huggingface: ['HF_TOKEN'],
  fireworks: ['FIREWORKS_API_KEY'],
  opencode: ['OPENCODE_API_KEY'],
  'kimi-coding': ['KIMI_API_KEY'],
};

async function readJson(file: string): Promise<Record<string, unknown>> {
  try {
    const v: unknown = JSON.parse(await readFile(file, 'utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const rec = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/**
 * Pi's login state, offline: the providers of the user's `auth.json` (an API key, or a
 * subscription login with `type: "oauth"`), the providers whose key variable is set, and the
 * custom providers of `models.json` that carry an `apiKey`. Any one is enough for Pi to chat.
 */
export async function checkPiAuth(userDir: string, env: NodeJS.ProcessEnv): Promise<AuthState> {
  const [auth, models] = await Promise.all([readJson(path.join(userDir, 'auth.json')), readJson(path.join(userDir, 'models.json'))]);
  const logins = Object.entries(auth).filter(([, v]) => {
    const e = rec(v);
    return (e.type === 'oauth' && typeof e.access === 'string') || (e.type === 'api_key' && typeof e.key === 'string' && e.key !== '');
  });
  const oauth = logins.filter(([, v]) => rec(v).type === 'oauth').map(([p]) => p);
  const keyed = logins.filter(([, v]) => rec(v).type === 'api_key').map(([p]) => p);
  const fromEnv = Object.entries(PROVIDER_ENV)
    .filter(([, vars]) => vars.some((name) => env[name]))
    .map(([p]) => p);
  const custom = Object.entries(rec(models.providers))
    .filter(([, v]) => typeof rec(v).apiKey === 'string')
    .map(([p]) => p);
  const providers = [...new Set([...oauth, ...keyed, ...fromEnv, ...custom])];
  if (providers.length === 0) {
    return {
      authenticated: false,
      detail: `${NAME} has no login or API key: run "pi" and "/login" (Claude, ChatGPT or Copilot subscriptions), or set a provider's key (ANTHROPIC_API_KEY, OPENAI_API_KEY, ...).`,
    };
  }
  const method = oauth.length > 0 ? 'oauth' : keyed.length > 0 || custom.length > 0 ? 'api_key' : 'env';
  return { authenticated: true, method, detail: `providers: ${providers.join(', ')}` };
}

/** Pi logs in only inside its interactive UI (`/login`): the user is told how. */
export const manualLogin = manualLoginOf(
  TOOL_ID,
  NAME,
  (command) =>
    `${NAME} signs in inside its interactive UI: run "${command}" in a terminal, type /login and choose a provider ` +
    `(Claude Pro/Max, ChatGPT Plus/Pro, GitHub Copilot, ...); the login is stored in ~/.pi/agent/auth.json. ` +
    `Or set a provider's API key (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, ...) in the environment Toolbridge runs in.`,
);
