import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';

/** Claude Code's config directory: `$CLAUDE_CONFIG_DIR`, else `~/.claude` (measured on 2.1.330). */
export function claudeConfigDir(env: NodeJS.ProcessEnv): string {
  return env.CLAUDE_CONFIG_DIR || path.join(env.HOME || homedir(), '.claude');
}

/**
 * The model Claude Code uses when a chat names none, as far as it can be known offline and
 * without a working directory: `ANTHROPIC_MODEL`, else the user settings' `model`
 * (`$CLAUDE_CONFIG_DIR/settings.json`; `~/.claude/settings.json` only without CLAUDE_CONFIG_DIR).
 * Project settings (`<cwd>/.claude/settings*.json`) sit between the two and depend on the chat's
 * directory, so discovery cannot see them. Undefined when nothing is set: Claude Code then picks
 * its built-in default, which depends on its version and the account.
 */
export async function settingsModel(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const fromEnv = env.ANTHROPIC_MODEL?.trim();
  if (fromEnv) return fromEnv;
  try {
    const settings: unknown = JSON.parse(await readFile(path.join(claudeConfigDir(env), 'settings.json'), 'utf8'));
    const model = (settings as { model?: unknown } | null)?.model;
    return typeof model === 'string' && model.trim() ? model.trim() : undefined;
  } catch {
    // No settings file, or one Claude Code itself would ignore (print mode skips invalid settings silently).
    return undefined;
  }
}

/** Whether a model name is one of Anthropic's (all of which take images); a proxied model of another vendor may not. */
export function isClaudeModel(model: string | undefined): boolean {
  return !model || /claude/i.test(model) || /^(default|best|opus|sonnet|haiku|fable|opusplan)\b/i.test(model);
}
