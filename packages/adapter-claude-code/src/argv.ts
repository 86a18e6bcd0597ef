import type { ClaudeCodeToolAccess, EffectiveSettings } from './config.js';

/** Flags per tool-access level (verified against claude 2.1.330: see README). */
export function toolAccessArgs(access: ClaudeCodeToolAccess): string[] {
  // Safe levels also ignore the user's MCP servers and deny anything that would prompt.
  const locked = ['--strict-mcp-config', '--permission-prompts', 'none'];
  switch (access) {
    case 'none':
      return ['--tools', '', ...locked];
    case 'read-only':
      return ['--tools', 'Read,Glob,Grep', '--permission-mode', 'dontAsk', ...locked];
    case 'edit':
      return ['--tools', 'Read,Glob,Grep,Edit,Write,NotebookEdit', '--permission-mode', 'acceptEdits', ...locked];
    case 'full':
      return ['--permission-mode', 'bypassPermissions'];
  }
}

export interface ChatArgsInput {
  settings: EffectiveSettings;
  /** The request's model, which wins over the configured one. */
  model?: string;
  /** File holding the system messages; passed by path so the text stays out of `ps`. */
  systemPromptFile?: string;
  systemPromptMode: 'replace' | 'append';
  persistSession: boolean;
  extraArgs: readonly string[];
}

/**
 * argv for one print-mode run. The conversation itself goes on stdin, never
 * here: argv is visible to every user on the machine.
 */
export function buildChatArgs(input: ChatArgsInput): string[] {
  const args = ['-p', '--output-format', 'stream-json', '--verbose', '--include-partial-messages'];
  const model = input.model ?? input.settings.model;
  if (model) args.push('--model', model);
  if (input.settings.maxTurns !== undefined) args.push('--max-turns', String(input.settings.maxTurns));
  args.push(...toolAccessArgs(input.settings.toolAccess));
  if (!input.persistSession) args.push('--no-session-persistence');
  if (input.systemPromptFile) {
    args.push(input.systemPromptMode === 'replace' ? '--system-prompt-file' : '--append-system-prompt-file', input.systemPromptFile);
  }
  args.push(...input.extraArgs);
  return args;
}
