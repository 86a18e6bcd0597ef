import { describeAdapterConformance, pathWithout, type ConformanceScenario } from '@toolbridge/test-suite';
import { createGeminiCliAdapter } from './adapter.js';
import { fakeGeminiEnv, REPLAYS, type Replay } from './testing/fake-gemini.js';

const chats: Record<ConformanceScenario, Replay> = {
  ok: REPLAYS.ok,
  missing: REPLAYS.ok,
  hang: REPLAYS.hang,
  unauthenticated: REPLAYS.notSignedIn,
  'rate-limited': REPLAYS.retryingRateLimit,
};

describeAdapterConformance('gemini', {
  expectedText: 'Hello from mock',
  async setup(scenario) {
    const fake = await fakeGeminiEnv(chats[scenario]);
    if (scenario === 'missing') fake.env.PATH = pathWithout();
    // A key for every scenario but the logged-out one, whose fake replays Gemini's "no auth method" exit.
    if (scenario !== 'unauthenticated') fake.env.GEMINI_API_KEY = 'dummy';
    return { adapter: createGeminiCliAdapter(), env: fake.env, config: { geminiModel: 'gemini-2.5-flash' }, cleanup: fake.cleanup };
  },
});
