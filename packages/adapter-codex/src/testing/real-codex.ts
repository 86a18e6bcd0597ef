import path from 'node:path';
import { makeTempDir, pathWith, realCliBinDir, realRegistry, type ChatControl, type RealRegistry } from '@toolbridge/test-suite/kit';
import { createCodexAdapter } from '../adapter.js';
import type { CodexAdapterOptions } from '../options.js';
import { startMockResponsesServer, type MockResponsesServer } from './mock-responses-server.js';

/** Both transports: every chat spawning `codex exec`, and the warm `codex app-server`. */
export const TRANSPORTS = ['spawn', 'warm'] as const;

export interface RealCodex extends RealRegistry {
  mock: MockResponsesServer;
  home: string;
  codexHome: string;
  env: NodeJS.ProcessEnv;
}

/**
 * The real, pinned `codex` (installed by `pnpm clis`) behind a registry, set up as a user would:
 * a throwaway HOME/CODEX_HOME whose `config.toml` selects a mock Responses API on 127.0.0.1 as a
 * custom provider, its key in `MOCK_API_KEY`. `control` gives each chat an approval gate or an
 * interrupt signal, as core does for `approvals: "ask"` and `interrupt(sessionId)`.
 */
export async function startRealCodex(
  options: CodexAdapterOptions & { model?: string; control?: () => ChatControl } = {},
): Promise<RealCodex> {
  const mock = await startMockResponsesServer();
  const tmp = await makeTempDir('toolbridge-codex-real-');
  const codexHome = path.join(tmp.dir, '.codex');
  await mock.writeCodexConfig(codexHome, options.model);
  const env: NodeJS.ProcessEnv = {
    PATH: pathWith(realCliBinDir('codex')),
    HOME: tmp.dir,
    CODEX_HOME: codexHome,
    MOCK_API_KEY: 'dummy',
    TMPDIR: process.env.TMPDIR ?? '/tmp',
  };
  const cleanup = [() => mock.close(), tmp.cleanup];
  const run = realRegistry(createCodexAdapter(options), { env, marker: `CODEX_HOME=${codexHome}`, cleanup, control: options.control });
  return { mock, home: tmp.dir, codexHome, env, ...run };
}

/** The text of every message of a Responses request body, `role: text` (to see what the model was sent). */
export function transcriptOf(body: { input: Array<{ role?: string; content?: Array<{ type: string; text?: string }> }> }): string[] {
  return body.input
    .filter((i) => i.role === 'user' || i.role === 'assistant')
    .map((i) => `${i.role}: ${(i.content ?? []).map((c) => c.text ?? `[${c.type}]`).join('')}`);
}
