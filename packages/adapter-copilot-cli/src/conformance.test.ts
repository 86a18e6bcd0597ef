import { afterAll, describe, it } from '@jest/globals';
import { pathWithout } from '@toolbridge/test-suite/kit';
import { describeConformance, type ConformanceScenario } from '@toolbridge/test-suite';
import { createCopilotCliAdapter } from './adapter.js';
import { fakeCopilotEnv, REPLAYS, type Replay } from './testing/fake-copilot.js';

const firstLines = (text = '', n: number) =>
  text
    .split(/(?<=\n)/)
    .slice(0, n)
    .join('');

// No `json`: Copilot CLI has no schema option, so core asks in words (nothing of the tool's to stage).
const chats: Partial<Record<ConformanceScenario, Replay>> = {
  ok: REPLAYS.ok,
  missing: REPLAYS.ok,
  hang: REPLAYS.hang,
  // A model that stops mid-answer: the recorded run up to its first text delta, then nothing.
  stall: { stdout: firstLines(REPLAYS.ok.stdout, 8), hang: true },
  unauthenticated: REPLAYS.notSignedIn,
  'rate-limited': REPLAYS.rateLimited,
  // A workspace-write run that ran a command and wrote a file before answering.
  activity: REPLAYS.toolsWorkspaceWrite,
};

describeConformance({ describe, it, afterAll }, 'copilot', {
  expectedText: 'Hello from mock',
  scenarios: Object.keys(chats) as ConformanceScenario[],
  async setup(scenario) {
    const fake = await fakeCopilotEnv(chats[scenario]!);
    if (scenario === 'missing') fake.env.PATH = pathWithout();
    // Signed in by token in every scenario but the logged-out one, whose fake replays Copilot's "no authentication" exit.
    if (scenario !== 'unauthenticated') fake.env.COPILOT_GITHUB_TOKEN = 'github_pat_dummy';
    return { adapter: createCopilotCliAdapter(), env: fake.env, config: { copilotModel: 'mock-model' }, cleanup: fake.cleanup };
  },
});
