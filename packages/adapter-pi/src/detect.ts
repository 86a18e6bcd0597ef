import { readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { parseVersionText, runProcess, whichOnPath } from '@toolbridge/adapter-kit';
import { type CallContext, type Capability, type DetectResult } from '@toolbridge/core';
import { failureOf, tail } from '@toolbridge/core/runtime';
import { piConfig, TOOL_ID } from './config.js';

/** Bound on `pi --list-models` (0.75 s idle). */
const LIST_TIMEOUT_MS = 8_000;

/** One row of `pi --list-models`. */
export interface PiModel {
  id: string;
  images: boolean;
}

/**
 * `pi --list-models` (printed on stderr): a table `provider model context max-out thinking images`;
 * only models whose provider has a key or login are listed. Ids are `provider/model`, as `--model` takes them.
 */
export function parseModelList(text: string): PiModel[] {
  const rows: PiModel[] = [];
  for (const line of text.split('\n')) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 6 || (cols[0] === 'provider' && cols[1] === 'model')) continue;
    rows.push({ id: `${cols[0]}/${cols[1]}`, images: cols[cols.length - 1] === 'yes' });
  }
  return rows;
}

/** `pi <args>` with the runtime directory, its stderr (where Pi prints its version and model list). */
async function piOutput(ctx: CallContext, command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number) {
  try {
    const r = await runProcess({
      command,
      args,
      env,
      signal: ctx.signal,
      timeoutMs,
      toolId: TOOL_ID,
      maxOutputBytes: 1 << 20,
      stderrTailBytes: 1 << 20,
    });
    return { ok: r.exitCode === 0, text: `${r.stdout}\n${r.stderrTail}`, exit: r.signal ?? `code ${r.exitCode}` };
  } catch (e) {
    if (ctx.signal.aborted) throw failureOf(e, ctx.signal, TOOL_ID);
    return { ok: false, text: '', exit: e instanceof Error ? e.message : 'failed', error: true };
  }
}

/** The user's default (`defaultProvider`/`defaultModel` in their settings.json), as `provider/id`. */
async function userDefault(userDir: string): Promise<string | undefined> {
  try {
    const s = JSON.parse(await readFile(path.join(userDir, 'settings.json'), 'utf8')) as Record<string, unknown>;
    if (typeof s.defaultModel !== 'string') return undefined;
    return typeof s.defaultProvider === 'string' && !s.defaultModel.includes('/')
      ? `${s.defaultProvider}/${s.defaultModel}`
      : s.defaultModel;
  } catch {
    return undefined;
  }
}

/**
 * Pi's version from the `package.json` beside the `pi` on PATH (the npm install's own), read in
 * microseconds: starting Pi takes 0.7 s idle and well over 5 s on a loaded machine, and detection
 * also needs one start for the model list. Undefined for any other layout: then `pi --version`.
 */
async function installedVersion(command: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const bin = whichOnPath(command, env);
  if (!bin) return undefined;
  try {
    const file = path.join(path.dirname(await realpath(bin)), '..', 'package.json');
    const pkg = JSON.parse(await readFile(file, 'utf8')) as { name?: unknown; version?: unknown };
    return pkg.name === '@mariozechner/pi-coding-agent' && typeof pkg.version === 'string' ? pkg.version : undefined;
  } catch {
    return undefined;
  }
}

/** Pi's version and `pi --list-models` in parallel (no network with PI_OFFLINE=1: ~0.75 s idle). */
export async function detectPi(
  ctx: CallContext,
  o: { command: string; timeoutMs: number; env: NodeJS.ProcessEnv; userDir: string },
): Promise<DetectResult> {
  const installed = await installedVersion(o.command, o.env);
  const [version, list, fromUser] = await Promise.all([
    installed ? { ok: true, text: installed, exit: 'code 0' } : piOutput(ctx, o.command, ['--version'], o.env, o.timeoutMs),
    // Bounded below the registry's detection deadline (15 s): a Pi that lists slowly (several seconds
    // on a loaded 2-core machine, measured) still shows as available with its configured model.
    piOutput(ctx, o.command, ['--list-models'], o.env, Math.min(o.timeoutMs, LIST_TIMEOUT_MS)),
    userDefault(o.userDir),
  ]);
  const listed = list.ok ? parseModelList(list.text) : [];
  const defaultModel = piConfig.read(ctx.config).model ?? fromUser ?? listed[0]?.id;
  const ids = listed.map((m) => m.id);
  const models = defaultModel && !ids.includes(defaultModel) ? [defaultModel, ...ids] : ids;
  const base = { models, ...(defaultModel ? { defaultModel } : {}) };
  const v = version.ok ? parseVersionText(version.text) : undefined;
  if (!v) {
    const reason =
      'error' in version ? version.exit : `\`${o.command} --version\` exited with ${version.exit}: ${tail(version.text.trim(), 300)}`;
    return { available: false, ...base, reason };
  }
  const capabilities: Capability[] = listed.find((m) => m.id === defaultModel)?.images ? ['vision'] : [];
  return { available: true, version: v, ...base, capabilities };
}
