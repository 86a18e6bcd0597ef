import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  AcpTransport,
  classifyFailure,
  permissionReport,
  whichOnPath,
  type AcpTurnSpec,
  type ResolvedPermissions,
} from '@toolbridge/adapter-kit';
import type { ChatContext, PermissionLevel, Usage } from '@toolbridge/core';
import { geminiDir } from './auth.js';
import { APPROVAL_MODE_OF, NAME, TOOL_ID } from './config.js';
import { GEMINI_FAILURES, geminiFacts } from './failures.js';
import type { GeminiCliAdapterOptions } from './options.js';
import { DENIED_TOOLS, PERMISSION_NOTES, policyToml } from './permissions.js';

/** What one `gemini --acp` process is bound to at start. */
export interface GeminiSetup {
  level: PermissionLevel;
  model?: string;
  includeDirectories: readonly string[];
}

/**
 * `gemini --acp` argv for one setup. The session's mode is `default` (every side-effecting tool
 * asks, and Toolbridge answers within the level); the admin policy denies what the level never
 * allows, whatever the user's saved approvals say, exactly as on the spawn path.
 */
export function acpArgs(setup: GeminiSetup, policyFile: string | undefined): string[] {
  return [
    '--acp',
    '--skip-trust',
    ...(setup.model ? ['--model', setup.model] : []),
    ...(policyFile ? ['--admin-policy', policyFile] : []),
    ...setup.includeDirectories.flatMap((d) => ['--include-directories', d]),
  ];
}

/** Gemini's prompt answer carries its token counts in `_meta.quota`. */
function usageOf(response: { _meta?: Record<string, unknown> | null }): Usage | undefined {
  const quota = response._meta?.quota as { token_count?: { input_tokens?: number; output_tokens?: number } } | undefined;
  const t = quota?.token_count;
  if (!t) return undefined;
  const usage: Usage = {};
  if (typeof t.input_tokens === 'number') usage.input_tokens = t.input_tokens;
  if (typeof t.output_tokens === 'number') usage.output_tokens = t.output_tokens;
  if (usage.input_tokens !== undefined && usage.output_tokens !== undefined) usage.total_tokens = usage.input_tokens + usage.output_tokens;
  return usage;
}

function modelOf(response: { _meta?: Record<string, unknown> | null }, opened: Record<string, unknown>): string | undefined {
  const models = (response._meta?.quota as { model_usage?: Array<{ model?: string }> } | undefined)?.model_usage ?? [];
  if (models.length === 1 && typeof models[0]!.model === 'string') return models[0]!.model;
  return (opened.models as { currentModelId?: string } | undefined)?.currentModelId;
}

/** Gemini CLI's warm transport: `gemini --acp` on the kit's ACP client, one process per setup. */
export function geminiWarm(o: GeminiCliAdapterOptions): AcpTransport<GeminiSetup> {
  const written = new Set<string>();
  return new AcpTransport<GeminiSetup>({
    toolId: TOOL_ID,
    name: NAME,
    enabled: o.warm !== false,
    async launch(ctx, setup, stateDir) {
      const command = o.command ?? 'gemini';
      const policy = policyToml(setup.level);
      let policyFile: string | undefined;
      if (policy) {
        policyFile = path.join(await stateDir(), `policy-${setup.level}.toml`);
        if (!written.has(policyFile)) await writeFile(policyFile, policy, { mode: 0o600 });
        written.add(policyFile);
      }
      const dir = geminiDir(ctx.env);
      return {
        command,
        args: acpArgs(setup, policyFile),
        // One process instead of a relauncher parent that ignores SIGTERM (and ~1.2 s faster).
        env: { ...ctx.env, GEMINI_CLI_NO_RELAUNCH: 'true' },
        files: [
          whichOnPath(command, ctx.env),
          path.join(dir, 'settings.json'),
          path.join(dir, 'oauth_creds.json'),
          path.join(dir, '.env'),
          path.join(dir, 'google_accounts.json'),
        ],
      };
    },
  });
}

/** The per-turn part: mode, the permission report, usage, failures. */
export function geminiTurnSpec(ctx: ChatContext, permissions: ResolvedPermissions): AcpTurnSpec {
  const level = permissions.level;
  // `full` without a caller to ask: Gemini's own yolo (no round trip per tool), as the spawn path runs it.
  const modeId = level === 'full' && !ctx.approvals ? 'yolo' : 'default';
  return {
    toolId: TOOL_ID,
    name: NAME,
    level,
    modeId,
    failure: (message) => classifyFailure(geminiFacts(message), GEMINI_FAILURES),
    usage: usageOf,
    model: modelOf,
    metadata: {
      permissions: {
        ...permissionReport(permissions, level, PERMISSION_NOTES[level]),
        approvalMode: modeId === 'yolo' ? APPROVAL_MODE_OF.full : 'default',
        deniedTools: DENIED_TOOLS[level],
      },
    },
  };
}
