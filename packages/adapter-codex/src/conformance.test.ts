import { pathWithout } from '@toolbridge/test-suite';
import { describeAdapterConformance, type ConformanceScenario } from '@toolbridge/test-suite/conformance';
import { createCodexAdapter } from './adapter.js';
import { fakeCodexEnv, REPLAYS, type FakeCodexScript } from './testing/fake-codex.js';

const scenarios: Partial<Record<ConformanceScenario, FakeCodexScript>> = {
  ok: { version: REPLAYS.version, loginStatus: REPLAYS.loggedInChatGpt, exec: REPLAYS.ok },
  missing: {},
  hang: { version: REPLAYS.version, loginStatus: REPLAYS.loggedInChatGpt, exec: REPLAYS.reconnecting },
  unauthenticated: { version: REPLAYS.version, loginStatus: REPLAYS.notLoggedIn, exec: REPLAYS.unauthorized },
  'rate-limited': { version: REPLAYS.version, loginStatus: REPLAYS.loggedInChatGpt, exec: REPLAYS.usageLimit },
  // Offline Codex reports reconnect notices (activity), then waits forever.
  stall: { version: REPLAYS.version, loginStatus: REPLAYS.loggedInChatGpt, exec: REPLAYS.reconnecting },
};

describeAdapterConformance('codex', {
  expectedText: 'Hello from mock',
  scenarios: Object.keys(scenarios) as ConformanceScenario[],
  async setup(scenario) {
    const fake = await fakeCodexEnv(scenarios[scenario]!);
    if (scenario === 'missing') fake.env.PATH = pathWithout();
    return { adapter: createCodexAdapter(), env: fake.env, config: { codexModel: 'mock-model' }, cleanup: fake.cleanup };
  },
});
