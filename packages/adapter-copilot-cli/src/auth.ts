import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { LoginManager, stripAnsi } from '@toolbridge/adapter-kit';
import type { AuthStartResult, AuthState, CallContext } from '@toolbridge/core';
import { NAME, TOOL_ID } from './config.js';

/** `~/.copilot`, or `$COPILOT_HOME` (Copilot's config and state). */
export function copilotHome(env: NodeJS.ProcessEnv): string {
  return env.COPILOT_HOME || path.join(env.HOME || homedir(), '.copilot');
}

/** Copilot's `config.json` starts with `//` comment lines before the JSON. */
export function parseConfigJson(text: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(text.replace(/^\s*\/\/.*$/gm, ''));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

interface LoggedInUser {
  host?: string;
  login?: string;
}

/** The GitHub CLI's stored login (`hosts.yml`): Copilot falls back to its token. */
async function ghLogin(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const dir = env.GH_CONFIG_DIR || path.join(env.XDG_CONFIG_HOME || path.join(env.HOME || homedir(), '.config'), 'gh');
  const text = await readFile(path.join(dir, 'hosts.yml'), 'utf8').catch(() => '');
  // `github.com:` then indented `user: <login>` (the token itself may be in the system keychain).
  let inGithub = false;
  for (const line of text.split('\n')) {
    if (/^\S/.test(line)) inGithub = /^github\.com:\s*$/.test(line);
    const user = inGithub ? /^\s+user:\s*(\S+)/.exec(line) : null;
    if (user) return user[1];
  }
  return undefined;
}

/**
 * Whether Copilot CLI can run, read offline (no process, no network), in Copilot's own order:
 * a custom model provider (BYOK) needs no GitHub sign-in; then a token in the environment; then
 * a stored `copilot login`; then the GitHub CLI's login. Whether a token is still valid only a
 * chat can tell.
 */
export async function checkCopilotAuth(env: NodeJS.ProcessEnv): Promise<AuthState> {
  if (env.COPILOT_PROVIDER_BASE_URL) {
    return { authenticated: true, method: 'byok', detail: `your own model provider at ${env.COPILOT_PROVIDER_BASE_URL}` };
  }
  if (env.COPILOT_OFFLINE === 'true') {
    return { authenticated: false, detail: 'COPILOT_OFFLINE=true needs a model provider of your own (COPILOT_PROVIDER_BASE_URL)' };
  }
  for (const name of ['COPILOT_GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_TOKEN']) {
    if (env[name]) return { authenticated: true, method: 'token', detail: `${name} (not verified)` };
  }
  const config = parseConfigJson(await readFile(path.join(copilotHome(env), 'config.json'), 'utf8').catch(() => ''));
  const last = config?.lastLoggedInUser as LoggedInUser | undefined;
  const users = Array.isArray(config?.loggedInUsers) ? (config!.loggedInUsers as LoggedInUser[]) : [];
  const user = last?.login ? last : users.find((u) => u?.login);
  if (user?.login) return { authenticated: true, method: 'github', detail: `${user.login}${user.host ? ` on ${user.host}` : ''}` };
  const gh = await ghLogin(env);
  if (gh) return { authenticated: true, method: 'gh', detail: `the GitHub CLI's login ${gh} (not verified)` };
  return { authenticated: false, detail: 'Copilot CLI is not signed in (run `copilot login`)' };
}

/** "To authenticate, visit <url> and enter code ABCD-1234": the device code. */
export function deviceCodeOf(output: string): string | undefined {
  return /enter (?:the )?code\s+([A-Z0-9]{4}-[A-Z0-9]{4})\b/i.exec(stripAnsi(output))?.[1];
}

/**
 * `copilot login` without a terminal runs GitHub's device flow: it prints a URL and a code,
 * then polls until the user has entered the code in a browser (anywhere) and exits.
 */
export function copilotLogin(command: string, args: readonly string[], ttlMs: number, urlWaitMs: number) {
  const manager = new LoginManager({
    toolId: TOOL_ID,
    name: NAME,
    command,
    args: ['login', ...args],
    ttlMs,
    urlWaitMs,
    // The verification URL is on a line with the code; the clipboard notice repeats it.
    findUrl: (output) => /visit (\S+) and enter/i.exec(output)?.[1],
    cleanOutput: (output) =>
      output
        .split('\n')
        .filter((l) => !/^Failed to copy to clipboard/.test(l))
        .join('\n')
        .trim(),
    alreadyLoggedInHint: 'Run `copilot login` in a terminal to add or switch accounts.',
    instructions: (url, within) =>
      `${url ? `Open ${url}` : 'Open the URL in the output'} in any browser, sign in to GitHub and enter the code shown. ` +
      `The login waits for you for up to ${within}. On a machine without a system keychain Copilot keeps the token only if ` +
      '~/.copilot/settings.json has "storeTokenPlaintext": true; otherwise set COPILOT_GITHUB_TOKEN, or run `copilot login` in a terminal.',
  });
  return {
    manager,
    /** Start (or report) the login; the device code goes into the instructions. */
    async start(ctx: CallContext, check: () => Promise<AuthState>): Promise<AuthStartResult> {
      const result = await manager.start(ctx, check);
      const code = deviceCodeOf(result.output);
      return code ? { ...result, instructions: result.instructions.replace('enter the code shown', `enter the code ${code}`) } : result;
    },
  };
}
