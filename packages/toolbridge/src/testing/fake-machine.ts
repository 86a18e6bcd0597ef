import { fakeClaudeCli } from '@toolbridge/adapter-claude-code/testing';
import { fakeCodexCli } from '@toolbridge/adapter-codex/testing';
import { fakeCopilotCli } from '@toolbridge/adapter-copilot-cli/testing';
import { fakeGeminiCli } from '@toolbridge/adapter-gemini-cli/testing';
import { startFakeOllama, type FakeOllama, type FakeOllamaOptions } from '@toolbridge/adapter-ollama/testing';
import { fakeOpenCodeCli } from '@toolbridge/adapter-opencode/testing';
import { fakePiCli } from '@toolbridge/adapter-pi/testing';
import { fakeQwenCli } from '@toolbridge/adapter-qwen-code/testing';
import { makeFakeMachine as makeMachine, type FakeCliDefinition, type FakeMachine as Machine } from '@toolbridge/test-suite/kit';

/** The fake CLIs of the default adapters, by binary name. */
export const DEFAULT_FAKE_CLIS = {
  codex: fakeCodexCli,
  claude: fakeClaudeCli,
  opencode: fakeOpenCodeCli,
  gemini: fakeGeminiCli,
  copilot: fakeCopilotCli,
  pi: fakePiCli,
  qwen: fakeQwenCli,
} satisfies Record<string, FakeCliDefinition>;
export type FakeCli = keyof typeof DEFAULT_FAKE_CLIS;
/** Every default fake CLI, in the order the default adapters list their tools. */
export const FAKE_CLIS = Object.keys(DEFAULT_FAKE_CLIS) as readonly FakeCli[];
export type FakeMode = 'ok' | 'logged_out' | 'fail' | 'hang' | 'hang-tree' | 'slow' | 'flood';

export interface FakeMachine extends Machine {
  ollama: FakeOllama;
  setMode(bin: FakeCli, mode: FakeMode): Promise<void>;
}

/**
 * A throwaway machine with every default tool: fake `codex`, `claude`, `opencode`, `gemini`, `copilot`,
 * `pi` and `qwen` (each replaying its adapter's recordings of the real CLI; Gemini and Copilot signed in
 * through their files) first on PATH, a fresh HOME, and an in-test Ollama. Only the CLIs in `bins`
 * are installed (default all six).
 */
export async function makeFakeMachine(options: { bins?: readonly FakeCli[]; ollama?: FakeOllamaOptions } = {}): Promise<FakeMachine> {
  const ollama = await startFakeOllama({ models: ['llama3.2:1b', 'qwen3:14b'], reply: 'Hello from ollama', ...options.ollama });
  const machine = await makeMachine({
    clis: (options.bins ?? FAKE_CLIS).map((b) => DEFAULT_FAKE_CLIS[b]),
    services: [{ env: { OLLAMA_HOST: ollama.url }, close: () => ollama.close() }],
  });
  return { ...machine, ollama };
}
