import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { systemText, warmFingerprint, whichOnPath } from '@toolbridge/adapter-kit';
import type { ToolRequest } from '@toolbridge/core';
import { buildChatArgs } from './argv.js';
import type { ClaudeCodeAdapterOptions } from './options.js';
import { claudeConfigDir } from './settings.js';
import { runEnv, type TurnSettings } from './spawn.js';
import { nativeSchema, type NativeSchema } from './structured.js';
import type { ProcessSpec } from './warm-process.js';

const hash = (v: unknown) => createHash('sha256').update(JSON.stringify(v)).digest('hex').slice(0, 16);

/**
 * What a warm process is bound to at start, so what a chat needs of one. `base` is everything
 * fixed per process but the model and the system prompt (tool set and permission mode, working
 * directory, extra directories, schema, environment); a resumed session needs neither to match
 * exactly: Claude Code replays the system prompt its first turn recorded, and core names the model
 * that answered the session before, which a process launched without `--model` may be using.
 */
export interface Launch {
  base: string;
  /** `--model`, when the chat or the config names one. */
  model?: string;
  system: string;
  /** The files the settings rest on (CLI, user settings, login, project settings and memory), and their stamp now. */
  files: ReadonlyArray<string | undefined>;
  fingerprint: string;
  /** The working directory, or undefined for a neutral one of the process's own (plain chats, see `plainEquivalent`). */
  cwd?: string;
  structured?: NativeSchema;
  systemPrompt: string;
  args(systemPromptFile: string | undefined, resume: string | undefined): string[];
  env: NodeJS.ProcessEnv;
  command: string;
}

/** The files and directories Claude Code reads context from when they sit in a working directory's ancestors. */
const MARKERS = ['CLAUDE.md', 'CLAUDE.local.md', '.claude', '.git'];

function contextMarkers(dir: string): string[] {
  const found: string[] = [];
  for (let d = path.dirname(dir); ; d = path.dirname(d)) {
    for (const m of MARKERS) if (existsSync(path.join(d, m))) found.push(path.join(d, m));
    if (path.dirname(d) === d) return found;
  }
}

/**
 * Whether a tool-less chat in `cwd` sees the same as one in a neutral directory under `parent`:
 * `cwd` is empty (as core's private session directories are) and the directories above both hold
 * the same project context (CLAUDE.md files, `.claude`, a git repository). Without tools the
 * working directory only feeds that context, so such chats can share warm processes.
 */
export async function plainEquivalent(cwd: string, parent: string): Promise<boolean> {
  const entries = await readdir(cwd).catch(() => undefined);
  if (!entries || entries.length > 0) return false;
  return JSON.stringify(contextMarkers(cwd)) === JSON.stringify(contextMarkers(path.join(parent, 'member')));
}

/** The launch a chat needs. `cwd` undefined: a plain chat that can run in a neutral directory. */
export function launchOf(
  o: ClaudeCodeAdapterOptions,
  request: ToolRequest,
  env: NodeJS.ProcessEnv,
  turn: TurnSettings,
  cwd: string | undefined,
): Launch {
  const command = o.command ?? 'claude';
  const structured = request.responseFormat ? nativeSchema(request.responseFormat) : undefined;
  const systemPrompt = systemText(request.messages);
  const mode = o.systemPrompt ?? 'auto';
  const additionalDirs = turn.access.access === 'none' ? [] : request.additionalDirs;
  const argsWith = (model: string | undefined, systemPromptFile: string | undefined, resume: string | undefined) =>
    buildChatArgs({
      accessArgs: turn.access.args,
      additionalDirs,
      model,
      maxTurns: turn.maxTurns,
      systemPromptFile,
      systemPromptMode: mode === 'auto' ? (turn.access.access === 'none' ? 'replace' : 'append') : mode,
      persistSession: turn.persist,
      ...(resume ? { resume: { nativeSessionId: resume, fork: false } } : {}),
      extraArgs: o.extraArgs ?? [],
    });
  const config = claudeConfigDir(env);
  const project = cwd
    ? ['.claude/settings.json', '.claude/settings.local.json', 'CLAUDE.md', 'CLAUDE.local.md'].map((f) => path.join(cwd, f))
    : [];
  const files = [
    whichOnPath(command, env),
    path.join(config, 'settings.json'),
    path.join(config, '.credentials.json'),
    path.join(config, 'CLAUDE.md'),
    ...project,
  ];
  return {
    base: hash([command, cwd ?? 'plain', argsWith(undefined, undefined, undefined), mode, structured?.schema, env]),
    ...(turn.model ? { model: turn.model } : {}),
    system: hash(systemPrompt),
    files,
    fingerprint: warmFingerprint({}, files),
    ...(cwd ? { cwd } : {}),
    ...(structured ? { structured } : {}),
    systemPrompt,
    args: (systemPromptFile, resume) => argsWith(turn.model, systemPromptFile, resume),
    env,
    command,
  };
}

/**
 * The process a launch describes, in a private directory of its own under `parent` (its TMPDIR,
 * its system prompt file, and for plain chats its neutral working directory).
 */
export async function processSpec(
  o: ClaudeCodeAdapterOptions,
  launch: Launch,
  parent: string,
  resume: string | undefined,
): Promise<ProcessSpec> {
  await mkdir(parent, { recursive: true, mode: 0o700 });
  const dir = await mkdtemp(path.join(parent, 'p-'));
  const tmp = path.join(dir, 'tmp');
  await mkdir(tmp, { mode: 0o700 });
  let systemPromptFile: string | undefined;
  if (launch.systemPrompt.trim()) {
    systemPromptFile = path.join(dir, 'system-prompt.md');
    await writeFile(systemPromptFile, launch.systemPrompt, { mode: 0o600 });
  }
  const cwd = launch.cwd ?? path.join(dir, 'work');
  if (!launch.cwd) await mkdir(cwd, { mode: 0o700 });
  return {
    command: launch.command,
    args: launch.args(systemPromptFile, resume),
    env: runEnv(o, launch.env, tmp, launch.structured !== undefined),
    cwd,
    dir,
    ...(launch.structured ? { jsonSchema: launch.structured.schema } : {}),
  };
}
