import { LoginManager } from '@toolbridge/adapter-kit';
import type { AuthState } from '@toolbridge/core';
import { cleanStderr, TOOL_ID } from './failures.js';

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
