import { stripAnsi, type FailureFacts, type FailureTable } from '@toolbridge/adapter-kit';
import { tail } from '@toolbridge/core/runtime';
import { NAME, TOOL_ID } from './config.js';

/** Gemini CLI's own exit codes (its `Fatal*Error` classes); API errors exit with the HTTP status mod 256. */
const EXIT = { auth: 41, input: 42, sandbox: 44, config: 52, turnLimit: 53, toolExecution: 54, untrusted: 55 } as const;

/** The HTTP status of an API error: from its JSON body, its words, else the exit code (status & 255). */
function httpStatusOf(message: string, exitCode?: number | null): number | undefined {
  const code = /"code":\s*(\d{3})\b/.exec(message) ?? /\bstatus (\d{3})\b/.exec(message);
  if (code) return Number(code[1]);
  const byExit: Record<number, number> = { 144: 400, 145: 401, 147: 403, 148: 404, 173: 429, 244: 500, 246: 502, 247: 503, 248: 504 };
  return exitCode === null || exitCode === undefined ? undefined : byExit[exitCode];
}

/** "Suggested retry after 2s." / "Please retry in 1.5s": the wait the API asked for, in ms. */
export function suggestedRetryMs(message: string): number | undefined {
  const m = /(?:Suggested retry after|Please retry in)\s+([0-9.]+)\s*(ms|s)\b/i.exec(message);
  if (!m) return undefined;
  const n = Number(m[1]);
  return Number.isFinite(n) ? Math.round(m[2] === 'ms' ? n : n * 1000) : undefined;
}

const QUOTA =
  /exhausted your daily quota|exhausted your capacity|capacity exceeded|MODEL_CAPACITY_EXHAUSTED|QUOTA_EXHAUSTED|INSUFFICIENT_G1_CREDITS_BALANCE|limit:\s*0(?![\d.])/i;
const RATE = /RESOURCE_EXHAUSTED|Resource has been exhausted|rate[ _-]?limit|too many requests/i;
const AUTH =
  /Please set an Auth method|Manual authorization is required|Invalid auth method selected|must specify the GEMINI_API_KEY|When using Vertex AI, you must specify|UNAUTHENTICATED|API_KEY_INVALID|API key not valid|PERMISSION_DENIED|FatalAuthenticationError/i;
const NETWORK = /fetch failed|ECONNRESET|ECONNREFUSED|ETIMEDOUT|overloaded|UNAVAILABLE|transient/i;

/** Google's refusal of a personal Google account (`oauth-personal`), since 2026-06-18. */
const RETIRED_SIGN_IN = /IneligibleTierError|no longer supported for Gemini Code Assist for individuals/i;

/** Why a personal Google sign-in fails now, and what works instead. */
const RETIRED_SIGN_IN_MESSAGE =
  `${NAME} can no longer sign in with a personal Google account: since 2026-06-18 Google serves Gemini CLI to personal accounts ("Gemini Code Assist for individuals") no more. ` +
  'What works: an API key (GEMINI_API_KEY), Vertex AI (GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION), or a Gemini Code Assist Standard/Enterprise licence; ' +
  "for a personal account, Google's Antigravity CLI (agy) replaces it.";

/** What the user can do about an auth failure, by what Gemini said. */
function authHint(text: string): string {
  if (/Invalid auth method selected/i.test(text))
    return 'Choose how Gemini CLI signs in: run `gemini` in a terminal and pick a method, or set "security.auth.selectedType" in ~/.gemini/settings.json (GOOGLE_GEMINI_BASE_URL alone selects a gateway, which headless runs refuse).';
  return 'Run `gemini` in a terminal and sign in with Google, or set GEMINI_API_KEY (or Vertex AI: GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION, or GOOGLE_API_KEY).';
}

/** stderr without the notices every headless run prints. */
export function cleanStderr(stderr: string): string {
  return stripAnsi(stderr)
    .split('\n')
    .filter((l) => !/^Warning: (Basic terminal detected|256-color support not detected)/.test(l))
    .filter((l) => !/^Ripgrep is not available|^\[STARTUP\]|^YOLO mode is enabled|^Loaded cached credentials/.test(l))
    .join('\n')
    .trim();
}

/**
 * The facts of a Gemini CLI failure: the `result` event's message (or a failed attempt it
 * reported), else stderr; the HTTP status from the message, else from the exit code.
 */
export function geminiFacts(message: string, context: { exitCode?: number | null; stderrTail?: string } = {}): FailureFacts {
  const { exitCode, stderrTail } = context;
  const stderr = stderrTail ? tail(cleanStderr(stderrTail), 2000) : '';
  const text = stripAnsi(message).trim();
  return {
    text,
    status: httpStatusOf(text, exitCode),
    exitCode,
    stderr,
    details: exitCode !== undefined && exitCode !== null ? { exitCode } : {},
  };
}

/** Gemini CLI's failures: what it said first, then its exit code and the HTTP status. */
export const GEMINI_FAILURES: FailureTable = {
  name: NAME,
  toolId: TOOL_ID,
  rules: [
    {
      class: 'auth',
      when: (f) => RETIRED_SIGN_IN.test(`${f.text}\n${f.stderr ?? ''}`),
      // The first line of Google's own words, without its stack trace (core drops those everywhere too).
      message: (f) => {
        const said = `${f.text}\n${f.stderr ?? ''}`
          .split('\n')
          .find((l) => RETIRED_SIGN_IN.test(l))
          ?.trim();
        return `${RETIRED_SIGN_IN_MESSAGE}${said ? ` (Google said: ${said})` : ''}`;
      },
      details: (f) => ({ ...f.details, retiredSignIn: true }),
    },
    { class: 'auth', exitCode: [EXIT.auth] },
    { class: 'auth', status: [401, 403] },
    { class: 'auth', match: AUTH },
    { class: 'quota', match: QUOTA },
    { class: 'rate_limit', status: [429] },
    { class: 'rate_limit', match: RATE },
    { class: 'failed', exitCode: [EXIT.untrusted], message: (f) => `${NAME} refused the working directory as untrusted: ${f.text}` },
    { class: 'transient', when: (f) => (f.status ?? 0) >= 500 },
    { class: 'transient', match: NETWORK },
  ],
  messages: { auth: (f) => `${NAME} is not signed in or was refused: ${f.text}. ${authHint(f.text)}` },
  retryAfterMs: (f) => suggestedRetryMs(f.text),
};

/**
 * Watches stderr for "Attempt N failed … Retrying" — Gemini CLI about to retry a failed model
 * request — and yields that attempt's text once it is complete (the retry notice can follow on
 * the next line). Only the first failed attempt counts.
 */
export class RetryWatch {
  private buffer = '';
  private fired = false;

  push(chunk: string): string | undefined {
    if (this.fired) return undefined;
    this.buffer = (this.buffer + stripAnsi(chunk)).slice(-64 * 1024);
    const start = this.buffer.search(/^Attempt \d+ failed/m);
    if (start < 0) return undefined;
    const rest = this.buffer.slice(start);
    const retry = /Retrying[^\n]*\n/.exec(rest);
    if (!retry) return undefined;
    this.fired = true;
    return rest.slice(0, retry.index + retry[0].length).trim();
  }
}
