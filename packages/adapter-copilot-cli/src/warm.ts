import path from 'node:path';
import {
  AcpTransport,
  classifyFailure,
  permissionReport,
  type AcpNotice,
  type AcpPromptResponse,
  type AcpTurnSpec,
  type ResolvedPermissions,
} from '@toolbridge/adapter-kit';
import type { ChatContext, PermissionLevel, Usage } from '@toolbridge/core';
import { copilotHome } from './auth.js';
import { resolveCopilotBinary } from './binary.js';
import { NAME, PERMISSION_NOTES, TOOL_ID } from './config.js';
import { COPILOT_FAILURES, COPILOT_STARTUP_FAILURES, sessionErrorFacts, startupFacts } from './failures.js';
import type { CopilotCliAdapterOptions } from './options.js';
import { envFor } from './spawn.js';

/** What one `copilot --acp` process is bound to at start. */
export interface CopilotSetup {
  level: PermissionLevel;
  model?: string;
  addDirs: readonly string[];
}

/**
 * Permission flags over ACP. Unlike a headless run, every tool Copilot would ask about reaches
 * Toolbridge as `session/request_permission`, decided within the level (`approveAction`): so writes
 * are not pre-allowed at workspace-write (a write outside the working directory is refused, one
 * inside is allowed or put to the caller), and `full` sets no flag. Deny rules stay: the shell is
 * never offered below `full`, as on the spawn path.
 */
export const ACP_PERMISSION_FLAGS: Readonly<Record<PermissionLevel, readonly string[]>> = {
  'read-only': ['--deny-tool=write', '--deny-tool=shell', '--disallow-temp-dir'],
  'workspace-write': ['--deny-tool=shell', '--disallow-temp-dir'],
  full: [],
};

export function acpArgs(setup: CopilotSetup): string[] {
  return [
    '--acp',
    '--stdio',
    '--no-auto-update',
    ...ACP_PERMISSION_FLAGS[setup.level],
    ...(setup.model ? [`--model=${setup.model}`] : []),
    ...setup.addDirs.map((d) => `--add-dir=${d}`),
  ];
}

/** Copilot speaks about itself in answer chunks: "Info: …" notices (a retry among them) and "Error: …" failures. */
export function copilotNotice(o: CopilotCliAdapterOptions) {
  return (text: string): AcpNotice | undefined => {
    const t = text.trim();
    if (/^Info: .*Retrying/i.test(t)) return o.cliRetries ? { kind: 'notice' } : { kind: 'retrying' };
    if (/^Info: /.test(t)) return { kind: 'notice' };
    if (/^Error: /.test(t)) {
      const message = t.slice('Error: '.length);
      const status = /\(HTTP (\d{3})\)/.exec(message)?.[1];
      return {
        kind: 'failure',
        error: classifyFailure(sessionErrorFacts({ message, ...(status ? { statusCode: Number(status) } : {}) }), COPILOT_FAILURES),
      };
    }
    return undefined;
  };
}

function usageOf(response: AcpPromptResponse): Usage | undefined {
  const u = (response as { usage?: Record<string, unknown> | null }).usage;
  if (!u) return undefined;
  const n = (k: string) => (typeof u[k] === 'number' ? (u[k] as number) : undefined);
  const usage: Usage = {};
  const set = (key: string, v: number | undefined) => v !== undefined && (usage[key] = v);
  set('input_tokens', n('inputTokens'));
  set('output_tokens', n('outputTokens'));
  set('total_tokens', n('totalTokens'));
  set('cached_input_tokens', n('cachedReadTokens'));
  set('reasoning_output_tokens', n('thoughtTokens'));
  return usage;
}

/** Copilot CLI's warm transport: `copilot --acp --stdio` on the kit's ACP client, one process per setup. */
export function copilotWarm(o: CopilotCliAdapterOptions): AcpTransport<CopilotSetup> {
  return new AcpTransport<CopilotSetup>({
    toolId: TOOL_ID,
    name: NAME,
    enabled: o.warm !== false,
    async launch(ctx, setup) {
      const command = await resolveCopilotBinary(o.command ?? 'copilot', ctx.env);
      const home = copilotHome(ctx.env);
      return {
        command,
        args: acpArgs(setup),
        env: envFor(ctx.env, setup.level),
        files: [command, path.join(home, 'config.json'), path.join(home, 'settings.json')],
      };
    },
  });
}

/** The per-turn part: permission answers, the refusal follow-up, usage, failures. */
export function copilotTurnSpec(
  o: CopilotCliAdapterOptions,
  ctx: ChatContext,
  permissions: ResolvedPermissions,
  model?: string,
): AcpTurnSpec {
  const level = permissions.level;
  // `full` without a caller to ask: Copilot's own allow-all (no round trip per tool), as the spawn path's --yolo.
  const allowAll = level === 'full' && !ctx.approvals;
  return {
    toolId: TOOL_ID,
    name: NAME,
    level,
    ...(allowAll ? { configOptions: { allow_all: 'on' } } : {}),
    failure: (message) => classifyFailure(startupFacts(message, null), COPILOT_STARTUP_FAILURES),
    notice: copilotNotice(o),
    // Copilot ends the turn at a refusal (measured: "Info: Operation cancelled by user"); the model hears it only with a next prompt.
    continueAfterRefusal: (message) =>
      `The tool call was not run: ${message} Continue without it, and answer the original request as well as you can.`,
    usage: usageOf,
    model: () => model,
    metadata: {
      permissions: { ...permissionReport(permissions, level, PERMISSION_NOTES[level]), flags: ACP_PERMISSION_FLAGS[level] },
    },
  };
}
