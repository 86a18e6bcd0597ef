import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { manualLoginOf, readDotEnv as dotEnv, readJsonFile } from '@toolbridge/adapter-kit';
import type { AuthState } from '@toolbridge/core';
import { NAME, TOOL_ID } from './config.js';

/** `~/.gemini`, or `$GEMINI_CLI_HOME/.gemini` (where Gemini CLI keeps settings, credentials, sessions). */
export function geminiDir(env: NodeJS.ProcessEnv): string {
  return path.join(env.GEMINI_CLI_HOME || env.HOME || homedir(), '.gemini');
}

export { readJsonFile };

const exists = (file: string) =>
  stat(file).then(
    (s) => s.isFile(),
    () => false,
  );

/** The selected sign-in method, as Gemini CLI decides it: its settings first, then the environment. */
export function selectedAuthType(
  settings: Record<string, unknown> | undefined,
  env: Record<string, string | undefined>,
): string | undefined {
  const auth = (settings?.security as { auth?: { selectedType?: unknown; enforcedType?: unknown } } | undefined)?.auth;
  const chosen = auth?.enforcedType ?? auth?.selectedType;
  if (typeof chosen === 'string' && chosen) return chosen;
  if (env.GOOGLE_GENAI_USE_GCA === 'true') return 'oauth-personal';
  if (env.GOOGLE_GENAI_USE_VERTEXAI === 'true') return 'vertex-ai';
  if (env.GOOGLE_GEMINI_BASE_URL) return 'gateway';
  if (env.GEMINI_API_KEY) return 'gemini-api-key';
  if (env.CLOUD_SHELL === 'true' || env.GEMINI_CLI_USE_COMPUTE_ADC === 'true') return 'compute-default-credentials';
  return undefined;
}

/**
 * Whether Gemini CLI can sign in, read offline from its settings, credential files and the
 * environment (no process, no network). A stored Google login counts as signed in; whether its
 * token is still valid only a chat can tell.
 */
export async function checkGeminiAuth(env: NodeJS.ProcessEnv): Promise<AuthState> {
  const dir = geminiDir(env);
  const home = env.HOME || homedir();
  const fileEnv = { ...(await dotEnv(path.join(home, '.env'))), ...(await dotEnv(path.join(dir, '.env'))) };
  const vars: Record<string, string | undefined> = { ...fileEnv, ...env };
  const type = selectedAuthType(await readJsonFile(path.join(dir, 'settings.json')), vars);
  switch (type) {
    case 'gemini-api-key':
      if (vars.GEMINI_API_KEY) return { authenticated: true, method: 'gemini-api-key' };
      // A key saved through Gemini's own dialog lives in the keychain or this encrypted file.
      if (await exists(path.join(dir, 'gemini-credentials.json')))
        return { authenticated: true, method: 'gemini-api-key', detail: 'a stored API key (not verified)' };
      return { authenticated: false, detail: 'Gemini CLI is set to use an API key, but GEMINI_API_KEY is not set' };
    case 'vertex-ai':
      if ((vars.GOOGLE_CLOUD_PROJECT && vars.GOOGLE_CLOUD_LOCATION) || vars.GOOGLE_API_KEY)
        return { authenticated: true, method: 'vertex-ai' };
      return {
        authenticated: false,
        detail: 'Gemini CLI is set to use Vertex AI, but neither GOOGLE_CLOUD_PROJECT with GOOGLE_CLOUD_LOCATION nor GOOGLE_API_KEY is set',
      };
    case 'oauth-personal': {
      const creds = await readJsonFile(path.join(dir, 'oauth_creds.json'));
      if (typeof creds?.refresh_token === 'string' && creds.refresh_token) return { authenticated: true, method: 'oauth-personal' };
      if (await exists(path.join(dir, 'gemini-credentials.json'))) return { authenticated: true, method: 'oauth-personal' };
      return {
        authenticated: false,
        detail: 'Gemini CLI is set to sign in with Google, but no stored login was found (run `gemini` in a terminal)',
      };
    }
    case 'compute-default-credentials':
    case 'cloud-shell':
      return { authenticated: true, method: type, detail: 'Application Default Credentials (not verified)' };
    case 'gateway':
      return {
        authenticated: false,
        detail:
          'GOOGLE_GEMINI_BASE_URL is set without a sign-in method in ~/.gemini/settings.json; headless Gemini CLI refuses that (set "security.auth.selectedType", e.g. "gemini-api-key")',
      };
    case undefined:
      return {
        authenticated: false,
        detail: 'Gemini CLI has no sign-in method: no Google login, no GEMINI_API_KEY, no Vertex AI settings',
      };
    default:
      return { authenticated: false, detail: `Gemini CLI's sign-in method "${type}" is not one a headless run can use` };
  }
}

/**
 * Gemini CLI has no login command and no headless sign-in: the Google login runs inside an
 * interactive session (and headless runs refuse to start it). So the start is `manual`.
 */
export const manualLogin = manualLoginOf(
  TOOL_ID,
  NAME,
  (command) =>
    `${NAME} signs in inside an interactive session: run "${command}" in a terminal, choose "Sign in with Google" and finish in the browser ` +
    `(credentials are stored in ~/.gemini/oauth_creds.json). Or use an API key: set GEMINI_API_KEY (from https://aistudio.google.com/apikey) ` +
    `in the environment Toolbridge runs in, or in ~/.gemini/.env. Vertex AI: GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT and ` +
    `GOOGLE_CLOUD_LOCATION (or GOOGLE_API_KEY).`,
);
