import { LoginManager, parseJsonLine } from '@toolbridge/adapter-kit';
import type { AuthState } from '@toolbridge/core';
import { TOOL_ID } from './config.js';

/** Parse `claude auth status` (JSON by default; exit 1 when logged out is an answer, not a failure). */
export function parseAuthStatus(stdout: string): AuthState | undefined {
  const json = parseJsonLine(stdout.replace(/\s*\n\s*/g, ' '));
  if (!json || typeof json.loggedIn !== 'boolean') return undefined;
  const method = typeof json.authMethod === 'string' && json.authMethod !== 'none' ? json.authMethod : undefined;
  const plan = typeof json.subscriptionType === 'string' && json.subscriptionType ? json.subscriptionType : undefined;
  return {
    authenticated: json.loggedIn,
    ...(method ? { method } : {}),
    ...(plan ? { plan } : {}),
    ...(json.loggedIn ? {} : { detail: 'Claude Code is not logged in; run `claude auth login` or set ANTHROPIC_API_KEY' }),
  };
}

export const LOGIN_COMMAND = 'claude auth login';

const INSTRUCTIONS =
  'Open the URL in a browser on this machine and sign in to your Claude account; the login finishes by itself when the browser returns. ' +
  'If the page instead shows a code to paste, run `claude auth login` in a terminal and paste it there.';

/** `claude auth login`: prints a claude.ai sign-in URL (on stdout without a TTY) and waits. */
export function claudeLogin(command: string, ttlMs: number, urlWaitMs: number): LoginManager {
  return new LoginManager({
    toolId: TOOL_ID,
    name: 'Claude Code',
    command,
    args: ['auth', 'login'],
    ttlMs,
    urlWaitMs,
    instructions: (url) => (url ? INSTRUCTIONS : `Run \`${LOGIN_COMMAND}\` in a terminal to sign in to Claude Code.`),
  });
}
