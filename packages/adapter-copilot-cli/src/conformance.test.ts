import { describeAdapterConformance, pathWithout, type ConformanceScenario } from '@toolbridge/test-suite';
import { createCopilotCliAdapter } from './adapter.js';
import { fakeCopilotEnv, REPLAYS, type Replay } from './testing/fake-copilot.js';

const chats: Record<ConformanceScenario, Replay> = {
  ok: REPLAYS.ok,
  missing: REPLAYS.ok,
  hang: REPLAYS.hang,
  unauthenticated: REPLAYS.notSignedIn,
  'rate-limited': REPLAYS.rateLimited,
};

describeAdapterConformance('copilot', {
  expectedText: 'Hello from mock',
  async setup(scenario) {
    const fake = await fakeCopilotEnv(chats[scenario]);
    if (scenario === 'missing') fake.env.PATH = pathWithout();
    // Signed in by token in every scenario but the logged-out one, whose fake replays Copilot's "no authentication" exit.
    if (scenario !== 'unauthenticated') fake.env.COPILOT_GITHUB_TOKEN = 'github_pat_dummy';
    return { adapter: createCopilotCliAdapter(), env: fake.env, config: { copilotModel: 'mock-model' }, cleanup: fake.cleanup };
  },
});
