import { createHash } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { EXTENSION_FILE, EXTENSION_SOURCE } from './extension.js';
import type { PiAdapterOptions } from './options.js';

/**
 * The user's own Pi directory: their logins (`auth.json`), custom providers (`models.json`) and
 * settings live there. Toolbridge reads it and never writes into it.
 */
export function userAgentDir(o: PiAdapterOptions, env: NodeJS.ProcessEnv): string {
  return o.agentDir ?? (env.PI_CODING_AGENT_DIR || path.join(env.HOME || homedir(), '.pi', 'agent'));
}

/**
 * The directory Toolbridge runs Pi with (`PI_CODING_AGENT_DIR`), one per user directory: Pi
 * writes its settings there (`set_model` and `set_thinking_level` write the global settings.json),
 * so running it on the user's own directory would change their defaults.
 */
export function runtimeAgentDir(o: PiAdapterOptions, env: NodeJS.ProcessEnv): string {
  if (o.runtimeDir) return o.runtimeDir;
  const state = env.XDG_STATE_HOME || path.join(env.HOME || homedir(), '.local', 'state');
  const id = createHash('sha256').update(userAgentDir(o, env)).digest('hex').slice(0, 12);
  return path.join(state, 'toolbridge', 'pi', id);
}

/**
 * The user's settings with Pi's own retries off, both layers: the agent's (2, 4, 8 s waits) and
 * the provider SDK's (`retry.provider.maxRetries`, the OpenAI SDK's default 2: a 429 made three
 * requests with `retry.enabled: false` alone, measured). Core decides retries.
 */
export function runtimeSettings(user: Record<string, unknown>): Record<string, unknown> {
  const rec = (v: unknown) => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
  const retry = rec(user.retry);
  return { ...user, retry: { ...retry, enabled: false, provider: { ...rec(retry.provider), maxRetries: 0 } }, quietStartup: true };
}

async function readJsonObject(file: string): Promise<Record<string, unknown>> {
  try {
    const value: unknown = JSON.parse(await readFile(file, 'utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Write a file only when its content changed (a warm process's fingerprint reads the user's files, not these). */
async function writeIfChanged(file: string, content: string): Promise<void> {
  const old = await readFile(file, 'utf8').catch(() => undefined);
  if (old !== content) await writeFile(file, content, { mode: 0o600 });
}

/**
 * `runtime/<name>` links to the user's file when it exists, so a login Pi refreshes (OAuth) is
 * written back to the user's own `auth.json`. Without one, Pi keeps its own empty file there.
 */
async function linkUserFile(runtime: string, user: string, name: string): Promise<void> {
  const target = path.join(user, name);
  const link = path.join(runtime, name);
  const exists = await lstat(target).then(
    () => true,
    () => false,
  );
  const current = await lstat(link).catch(() => undefined);
  if (current?.isSymbolicLink() && (await readlink(link)) === target && exists) return;
  if (!exists) {
    if (current?.isSymbolicLink()) await rm(link, { force: true });
    return;
  }
  await rm(link, { force: true });
  await symlink(target, link);
}

/** Everything a run needs in the runtime directory, made ready (cheap when nothing changed). */
export async function prepareRuntimeDir(o: PiAdapterOptions, env: NodeJS.ProcessEnv): Promise<string> {
  const user = userAgentDir(o, env);
  const runtime = runtimeAgentDir(o, env);
  await mkdir(runtime, { recursive: true, mode: 0o700 });
  const settings = runtimeSettings(await readJsonObject(path.join(user, 'settings.json')));
  await Promise.all([
    writeIfChanged(path.join(runtime, 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`),
    writeIfChanged(path.join(runtime, EXTENSION_FILE), EXTENSION_SOURCE),
    linkUserFile(runtime, user, 'auth.json'),
    linkUserFile(runtime, user, 'models.json'),
  ]);
  return runtime;
}

/** The file of Pi session `id` under the runtime directory (`sessions/--<cwd>--/<ts>_<id>.jsonl`). */
export async function sessionFile(runtime: string, id: string): Promise<string | undefined> {
  const root = path.join(runtime, 'sessions');
  const dirs = await readdir(root).catch(() => [] as string[]);
  for (const dir of dirs) {
    const files = await readdir(path.join(root, dir)).catch(() => [] as string[]);
    const hit = files.find((f) => f.endsWith(`_${id}.jsonl`));
    if (hit) return path.join(root, dir, hit);
  }
  return undefined;
}
