import { LoginManager } from '@toolbridge/adapter-kit';
import type { AuthState } from '@toolbridge/core';
import { cleanStderr, TOOL_ID } from './failures.js';
import { providerDefined, type CodexUserConfig } from './user-config.js';

/** The variable `codex exec` takes an OpenAI API key from without a login (what the official SDK sets). */
export const EXEC_API_KEY_ENV = 'CODEX_API_KEY';

/**
 * The login state a provider setup implies, without asking Codex: `codex login status` knows only
 * Codex's own login (ChatGPT or a stored API key) and says "Not logged in" for a custom provider
 * whose key comes from an environment variable, although such a setup answers every chat. The
 * method names the variable, never its value. Undefined when Codex's own login decides (OpenAI, or
 * a provider with `requires_openai_auth`).
 */
export function providerAuth(user: CodexUserConfig, env: NodeJS.ProcessEnv): AuthState | undefined {
  const p = user.provider;
  if (p.requiresOpenaiAuth) return undefined;
  const label = `provider "${p.name ?? p.id}"`;
  if (!providerDefined(p))
    return { authenticated: false, detail: `Codex's config selects model_provider "${p.id}", which it does not define` };
  if (p.envKey) {
    return env[p.envKey]
      ? { authenticated: true, method: `env:${p.envKey}`, detail: `Codex's ${label} takes its key from $${p.envKey}` }
      : { authenticated: false, detail: `Codex's ${label} reads its key from $${p.envKey}, which is not set` };
  }
  if (p.hasBearerToken) return { authenticated: true, method: 'bearer_token', detail: `Codex's ${label} has a token in its config` };
  return { authenticated: true, method: `provider:${p.id}`, detail: `Codex's ${label} needs no key` };
}

/**
 * `codex login status` read, corrected for what it does not know: a key in `CODEX_API_KEY`, which
 * `codex exec` sends although the status says "Not logged in".
 */
export function loginStatusAuth(output: string, exitCode: number | null, env: NodeJS.ProcessEnv): AuthState {
  const state = parseLoginStatus(output, exitCode);
  if (!state.authenticated && env[EXEC_API_KEY_ENV])
    return { authenticated: true, method: `env:${EXEC_API_KEY_ENV}`, detail: `an OpenAI API key in $${EXEC_API_KEY_ENV}` };
  return state;
}

/** `codex login status` output (stderr) to an auth state. */
export function parseLoginStatus(output: string, exitCode: number | null): AuthState {
  const text = cleanStderr(output);
  if (/not logged in/i.test(text)) return { authenticated: false, detail: 'Codex is not logged in (run `codex login`)' };
  if (/logged in using chatgpt/i.test(text)) return { authenticated: true, method: 'chatgpt' };
  if (/api key configured/i.test(text)) return { authenticated: true, method: 'api_key' };
  const other = /logged in using (.+)/i.exec(text);
  if (other) return { authenticated: true, method: other[1]!.trim().toLowerCase().replace(/\s+/g, '_') };
  if (exitCode === 0) return { authenticated: true };
  // The text is Codex's own status line; a key fragment it prints is already masked.
  return { authenticated: false, detail: text.split('\n').at(-1) || `codex login status exited with code ${exitCode}` };
}

/** `codex login`: a local callback server on port 1455 and a sign-in URL on stderr. */
export function codexLogin(command: string, ttlMs: number, urlWaitMs: number): LoginManager {
  return new LoginManager({
    toolId: TOOL_ID,
    name: 'Codex',
    command,
    args: ['login'],
    ttlMs,
    urlWaitMs,
    cleanOutput: cleanStderr,
    alreadyLoggedInHint: 'Run `codex logout` first to switch accounts.',
    findUrl: (output) => {
      // The URL the user must open stands on a line of its own; the local callback server does not count.
      for (const raw of output.split('\n')) {
        const line = raw.trim();
        if (/^https?:\/\/\S+$/.test(line) && !/^https?:\/\/(localhost|127\.0\.0\.1)[:/]/.test(line)) return line;
      }
      return undefined;
    },
    instructions: (url, within) =>
      (url
        ? `Open ${url} in a browser on this machine and sign in with your ChatGPT account. `
        : 'Follow the output of `codex login` to sign in. ') +
      `The login waits for the browser to return to its local callback server for up to ${within}. ` +
      'On a headless machine run `codex login --device-auth` in a terminal instead, or `codex login --with-api-key`.',
  });
}
