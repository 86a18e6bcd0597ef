import path from 'node:path';
import { probeVersion, whichOnPath } from '@toolbridge/adapter-kit';
import type { CallContext } from '@toolbridge/core';
import { NAME, TOOL_ID } from './config.js';

/** Qwen Code 0.24 refuses to start on Node 20 (its `engines` say >= 22; it uses Node 22 APIs). */
export const MIN_NODE_MAJOR = 22;

export type NodeChoice = { ok: true; path: string; version: string } | { ok: false; reason: string };

/** `node --version` per binary path: a Node does not change under a running host, and a probe costs a spawn. */
const probed = new Map<string, string>();

/**
 * The Node that runs Qwen Code: the one configured (option, `qwenCodeNode`, `TOOLBRIDGE_QWEN_NODE`),
 * else the `node` on the call's PATH, when it is 22 or newer; otherwise why not.
 */
export async function chooseNode(ctx: CallContext, configured: string | undefined, timeoutMs: number): Promise<NodeChoice> {
  const named = configured ?? ctx.env.TOOLBRIDGE_QWEN_NODE;
  const candidate = named ?? whichOnPath('node', ctx.env);
  const fix = `install Node ${MIN_NODE_MAJOR}, or name one with the qwenCodeNode setting (or TOOLBRIDGE_QWEN_NODE)`;
  if (!candidate) return { ok: false, reason: `${NAME} needs Node >= ${MIN_NODE_MAJOR} and no \`node\` is on PATH: ${fix}` };
  let version = probed.get(candidate);
  if (!version) {
    const probe = await probeVersion(ctx, { command: candidate, toolId: TOOL_ID, timeoutMs });
    if (!probe.available) return { ok: false, reason: `${NAME} needs Node >= ${MIN_NODE_MAJOR}; ${probe.reason}: ${fix}` };
    version = probe.version;
    probed.set(candidate, version);
  }
  if (Number(version.split('.')[0]) < MIN_NODE_MAJOR) {
    const which = named ? `the configured Node (${candidate})` : 'the `node` on PATH';
    return { ok: false, reason: `${NAME} needs Node >= ${MIN_NODE_MAJOR}, but ${which} is ${version}: ${fix}` };
  }
  return { ok: true, path: candidate, version };
}

/**
 * The environment of a Qwen Code run: its `#!/usr/bin/env node` finds the chosen Node first on
 * PATH (the tools it runs see the same Node; nothing else changes).
 */
export function envWithNode(env: NodeJS.ProcessEnv, node: string): NodeJS.ProcessEnv {
  return { ...env, PATH: [path.dirname(node), env.PATH].filter(Boolean).join(path.delimiter) };
}
