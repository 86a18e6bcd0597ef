import path from 'node:path';
import { createRegistry, type ToolRegistry } from '@toolbridge/core/runtime';
import {
  makeTempDir,
  pathWith,
  processesWithEnv,
  realCliBinDir,
  recordingScratch,
  withChatControl,
  type ChatControl,
} from '@toolbridge/test-suite/kit';
import { createCodexAdapter } from '../adapter.js';
import type { CodexAdapterOptions } from '../options.js';
import { startMockResponsesServer, type MockResponsesServer } from './mock-responses-server.js';

/** Both transports: every chat spawning `codex exec`, and the warm `codex app-server`. */
export const TRANSPORTS = ['spawn', 'warm'] as const;

export interface RealCodex {
  mock: MockResponsesServer;
  registry: ToolRegistry;
  home: string;
  codexHome: string;
  env: NodeJS.ProcessEnv;
  /** Every scratch directory a chat asked core for (to check they are gone afterwards). */
  scratchDirs: string[];
  /** Live processes started with this CODEX_HOME: the codex shim, its binary and anything they spawned. */
  left(): number[];
  close(): Promise<void>;
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
  const scratchDirs: string[] = [];
  const adapter = options.control ? withChatControl(createCodexAdapter(options), options.control) : createCodexAdapter(options);
  const registry = createRegistry({ adapters: [recordingScratch(adapter, scratchDirs)], env });
  return {
    mock,
    registry,
    home: tmp.dir,
    codexHome,
    env,
    scratchDirs,
    left: () => processesWithEnv(`CODEX_HOME=${codexHome}`),
    async close() {
      await registry.close();
      await mock.close();
      await tmp.cleanup();
    },
  };
}

/** The text of every message of a Responses request body, `role: text` (to see what the model was sent). */
export function transcriptOf(body: { input: Array<{ role?: string; content?: Array<{ type: string; text?: string }> }> }): string[] {
  return body.input
    .filter((i) => i.role === 'user' || i.role === 'assistant')
    .map((i) => `${i.role}: ${(i.content ?? []).map((c) => c.text ?? `[${c.type}]`).join('')}`);
}
