/** What a tool's card says, from its discover and health records (pure; no DOM). */

import { formatBytes, formatDuration } from './format.js';
import type { LiveHealthRecord, Tool, ToolLoad, UsageWindow } from '@toolbridge/core/wire';

export type ToolStateKind = 'ready' | 'needs_login' | 'not_installed' | 'unavailable' | 'checking';

export interface InstallHint {
  /** A command to run in a terminal. */
  command?: string;
  /** A page to open (shown as a link the user may click; the dashboard itself loads nothing from it). */
  url?: string;
  text: string;
}

/** How to get each tool, shown when it is missing. Tools the page does not know get no hint. */
export const INSTALL_HINTS: Readonly<Record<string, InstallHint>> = {
  codex: { command: 'npm i -g @openai/codex', text: 'Install Codex CLI, then run `codex login`.' },
  'claude-code': { command: 'npm i -g @anthropic-ai/claude-code', text: 'Install Claude Code, then run `claude auth login`.' },
  opencode: { command: 'npm i -g opencode-ai', text: 'Install OpenCode, then run `opencode auth login` for a provider.' },
  gemini: {
    command: 'npm i -g @google/gemini-cli',
    text: 'Install Gemini CLI, then run `gemini` once in a terminal to sign in (or set GEMINI_API_KEY).',
  },
  copilot: { command: 'npm i -g @github/copilot', text: 'Install GitHub Copilot CLI, then run `copilot login`.' },
  pi: {
    command: 'npm i -g @mariozechner/pi-coding-agent',
    text: 'Install Pi, then run `pi` once in a terminal and type /login (or set a provider key such as ANTHROPIC_API_KEY).',
  },
  'qwen-code': {
    command: 'npm i -g @qwen-code/qwen-code',
    text: 'Install Qwen Code (it needs Node 22), then set OPENAI_API_KEY or run `qwen` once and choose a provider with /auth.',
  },
  ollama: { url: 'https://ollama.com/download', text: 'Install Ollama, then start it with `ollama serve` and pull a model.' },
};

export interface ModelEntry {
  name: string;
  isDefault: boolean;
}

export interface WindowView {
  name: string;
  used: number;
  remaining: number;
  resetsAt?: string;
  /** The plan runs on past 100 %, billed as overage. */
  overage?: true;
}

export interface ToolView {
  id: string;
  name: string;
  type: string;
  version?: string;
  state: ToolStateKind;
  stateLabel: string;
  /** Why the tool cannot be used now (not installed, not running, not logged in, check failed). */
  reason?: string;
  authLabel?: string;
  /** What the login state rests on (which providers have credentials, ...). */
  authDetail?: string;
  /** Transport, warm processes and their memory, chats running now. */
  loadFacts: Array<[string, string]>;
  canLogIn: boolean;
  models: ModelEntry[];
  installHint?: InstallHint;
  plan?: string;
  windows: WindowView[];
  /** Why there are no usage windows, when the tool has usage limits but could not read them. */
  usageNote?: string;
}

const STATE_LABELS: Record<ToolStateKind, string> = {
  ready: 'Ready',
  needs_login: 'Not logged in',
  not_installed: 'Not installed',
  unavailable: 'Not available',
  checking: 'Checking…',
};

/** The default model first, then the others in the tool's order. */
export function modelEntries(tool: Pick<Tool, 'models' | 'defaultModel'>): ModelEntry[] {
  const models = [...tool.models];
  if (tool.defaultModel && !models.includes(tool.defaultModel)) models.unshift(tool.defaultModel);
  const entries = models.map((name) => ({ name, isDefault: name === tool.defaultModel }));
  return [...entries.filter((e) => e.isDefault), ...entries.filter((e) => !e.isDefault)];
}

function authLabelOf(health: LiveHealthRecord): string {
  switch (health.authStatus) {
    case 'authenticated':
      return health.authMethod ? `Logged in (${health.authMethod})` : 'Logged in';
    case 'unauthenticated':
      // A check reads files; a chat the provider refused is proof the login no longer works.
      return health.authSource === 'chat' ? 'Refused by its provider (last chat)' : 'Not logged in';
    case 'not_required':
      return 'No login needed';
    default:
      return health.authSupported ? 'Unknown' : 'No login needed';
  }
}

function windowsOf(windows: Record<string, UsageWindow> | undefined): WindowView[] {
  if (!windows) return [];
  return Object.entries(windows)
    .filter(([, w]) => typeof w?.usedPercentage === 'number')
    .map(([name, w]) => ({
      name,
      used: w.usedPercentage,
      remaining: typeof w.remainingPercentage === 'number' ? w.remainingPercentage : 100 - w.usedPercentage,
      ...(w.resetsAt ? { resetsAt: w.resetsAt } : {}),
      ...(w.overagePermitted ? { overage: true as const } : {}),
    }));
}

/**
 * A card's content. `health` is absent until the first health check answers;
 * discovery alone already says whether the tool is installed.
 */
export function toolView(tool: Tool, health: LiveHealthRecord | undefined): ToolView {
  const base = {
    id: tool.id,
    name: tool.name,
    type: tool.type,
    version: tool.version ?? health?.version,
    models: modelEntries(tool),
    windows: [] as WindowView[],
    loadFacts: loadFacts(health?.load),
    canLogIn: false,
  };
  // Discovery may be a few seconds older than the health check; either saying "unavailable" wins.
  if (!tool.available || health?.available === false) {
    const reason = tool.available ? health?.reason : tool.reason;
    // Agents that are not on PATH say so; an installed tool can still be unreachable (Ollama not running).
    const missing = /not installed|not found/i.test(reason ?? '');
    const state: ToolStateKind = missing ? 'not_installed' : 'unavailable';
    return { ...base, state, stateLabel: STATE_LABELS[state], reason, installHint: INSTALL_HINTS[tool.id] };
  }
  if (!health) return { ...base, state: 'checking', stateLabel: STATE_LABELS.checking };

  const limits = health.usageLimits;
  const windows = limits?.status === 'available' ? windowsOf(limits.windows) : [];
  const usage = {
    windows,
    ...(limits?.plan ? { plan: limits.plan } : {}),
    ...(limits && limits.status !== 'available' && limits.reason ? { usageNote: limits.reason } : {}),
  };
  const authLabel = authLabelOf(health);
  const auth = { authLabel, ...(health.authDetail ? { authDetail: health.authDetail } : {}) };
  if (health.authSupported && !health.authenticated) {
    return {
      ...base,
      ...usage,
      ...auth,
      state: 'needs_login',
      stateLabel: STATE_LABELS.needs_login,
      reason: health.reason,
      canLogIn: true,
    };
  }
  return { ...base, ...usage, ...auth, state: 'ready', stateLabel: STATE_LABELS.ready };
}

const TRANSPORT_LABELS: Record<string, string> = {
  warm: 'Warm (a long-lived process answers)',
  spawn: 'Spawn (a new process per chat)',
  http: 'HTTP (a running server)',
};

/** A card's load rows from health's live `load`: transport, warm processes and their memory, chats now. */
export function loadFacts(load: ToolLoad | undefined): Array<[string, string]> {
  if (!load) return [];
  const facts: Array<[string, string]> = [];
  if (load.transport) facts.push(['Transport', TRANSPORT_LABELS[load.transport] ?? load.transport]);
  const warm = load.warm;
  if (warm && warm.idleTimeoutMs > 0) {
    facts.push(['Warm processes', `${warm.processes}${warm.busy ? ` (${warm.busy} busy)` : ''}`]);
    if (warm.processes > 0) facts.push(['Warm memory', `${formatBytes(warm.rssBytes)} RSS`]);
    facts.push(['Idle shutdown', `after ${formatDuration(warm.idleTimeoutMs)}`]);
  } else if (warm) facts.push(['Warm mode', 'off']);
  if (load.active || load.queued)
    facts.push(['Chats now', `${load.active} running, ${load.queued} waiting (at most ${load.maxConcurrent} at once)`]);
  return facts;
}

/** A URL that may become a link: http(s) only (no javascript:, data:, file:). */
export function safeHttpUrl(text: string | undefined): string | undefined {
  if (!text) return undefined;
  try {
    const url = new URL(text.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
