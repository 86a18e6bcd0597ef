import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { manualLoginOf, readDotEnv, readJsonFile } from '@toolbridge/adapter-kit';
import type { AuthState } from '@toolbridge/core';
import { NAME, TOOL_ID } from './config.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** Where Qwen Code keeps its settings, credentials and sessions: `$QWEN_HOME`, else `~/.qwen`. */
export function qwenDir(env: NodeJS.ProcessEnv): string {
  return env.QWEN_HOME ? path.resolve(env.QWEN_HOME) : path.join(env.HOME || homedir(), '.qwen');
}

/** Qwen Code's user settings (`settings.json`); undefined when absent or unreadable. */
export const readSettings = (env: NodeJS.ProcessEnv) => readJsonFile(path.join(qwenDir(env), 'settings.json'));

/** The key variable of each of Qwen Code's API-key sign-ins (its AUTH_ENV_MAPPINGS, 0.24.4). */
const KEY_VARS: Readonly<Record<string, string>> = {
  openai: 'OPENAI_API_KEY',
  'openai-responses': 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  gemini: 'GEMINI_API_KEY',
  'vertex-ai': 'GOOGLE_API_KEY',
};

/**
 * Whether Qwen Code can sign in, read offline from its settings, credential files and the
 * environment (no process, no network): the selected sign-in (`security.auth.selectedType`, else
 * an `OPENAI_API_KEY` in the environment, which it then uses) and that sign-in's key or stored
 * Qwen OAuth credentials. Whether a key or token is still valid only a chat can tell.
 */
export async function checkQwenAuth(env: NodeJS.ProcessEnv): Promise<AuthState> {
  const dir = qwenDir(env);
  const settings = await readSettings(env);
  const vars: Record<string, string | undefined> = {
    // The `.env` files Qwen Code loads (`~/.qwen/.env` over `~/.env`); the process environment wins.
    ...(await readDotEnv(path.join(env.HOME || homedir(), '.env'))),
    ...(await readDotEnv(path.join(dir, '.env'))),
    ...env,
  };
  const auth = obj(obj(settings?.security)?.auth);
  const type = str(auth?.enforcedType) ?? str(auth?.selectedType) ?? (vars.OPENAI_API_KEY ? 'openai' : undefined);
  if (!type) {
    return {
      authenticated: false,
      detail: `Qwen Code has no sign-in selected (security.auth.selectedType in ${path.join(dir, 'settings.json')}); set OPENAI_API_KEY (with OPENAI_BASE_URL for another provider) or configure a provider in its settings`,
    };
  }
  if (type === 'qwen-oauth') {
    const stored = await stat(path.join(dir, 'oauth_creds.json')).then(
      (s) => s.isFile(),
      () => false,
    );
    return stored
      ? { authenticated: true, method: 'qwen-oauth' }
      : {
          authenticated: false,
          method: 'qwen-oauth',
          detail: 'Qwen OAuth is selected but no credentials are stored (run `qwen` and sign in)',
        };
  }
  const keyVar = KEY_VARS[type];
  if (!keyVar) return { authenticated: true, method: type, detail: `sign-in ${type} is not checked offline` };
  const inSettings = type.startsWith('openai') && str(auth?.apiKey) !== undefined;
  if (vars[keyVar] || inSettings) return { authenticated: true, method: type };
  return { authenticated: false, method: type, detail: `Qwen Code's sign-in ${type} needs ${keyVar} (or a key in its settings)` };
}

/**
 * Qwen Code has no login command (0.24.4: `qwen auth` is removed; its `/auth` dialog runs inside
 * an interactive session), so starting a login says what to do by hand.
 */
export const manualLogin = manualLoginOf(
  TOOL_ID,
  NAME,
  (command) =>
    `${NAME} signs in through its settings: set OPENAI_API_KEY (and OPENAI_BASE_URL and OPENAI_MODEL for another OpenAI-compatible ` +
    `provider such as ModelStudio, OpenRouter or Fireworks) in the environment Toolbridge runs in or in ~/.qwen/.env, or run "${command}" ` +
    `in a terminal and choose a provider with /auth (saved in ~/.qwen/settings.json). ANTHROPIC_API_KEY and GEMINI_API_KEY work with ` +
    `the anthropic and gemini sign-ins.`,
);
