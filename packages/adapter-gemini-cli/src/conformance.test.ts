import { afterAll, describe, it } from '@jest/globals';
import { pathWithout } from '@toolbridge/test-suite/kit';
import { describeConformance, type ConformanceScenario } from '@toolbridge/test-suite';
import { createGeminiCliAdapter } from './adapter.js';
import { fakeGeminiEnv, REPLAYS, type Replay } from './testing/fake-gemini.js';

const firstLines = (text = '', n: number) =>
  text
    .split(/(?<=\n)/)
    .slice(0, n)
    .join('');

// No `json`: Gemini CLI has no schema option, so core asks in words (nothing of the tool's to stage).
const chats: Partial<Record<ConformanceScenario, Replay>> = {
  ok: REPLAYS.ok,
  missing: REPLAYS.ok,
  hang: REPLAYS.hang,
  // A model that stops mid-answer: the recorded run up to its first text delta, then nothing.
  stall: { stdout: firstLines(REPLAYS.ok.stdout, 3), hang: true },
  unauthenticated: REPLAYS.notSignedIn,
  'rate-limited': REPLAYS.retryingRateLimit,
  // A run that listed a directory and wrote a file (yolo) before answering.
  activity: REPLAYS.tools,
};

describeConformance({ describe, it, afterAll }, 'gemini', {
  expectedText: 'Hello from mock',
  scenarios: Object.keys(chats) as ConformanceScenario[],
  async setup(scenario) {
    const fake = await fakeGeminiEnv(chats[scenario]!);
    if (scenario === 'missing') fake.env.PATH = pathWithout();
    // A key for every scenario but the logged-out one, whose fake replays Gemini's "no auth method" exit.
    if (scenario !== 'unauthenticated') fake.env.GEMINI_API_KEY = 'dummy';
    return { adapter: createGeminiCliAdapter(), env: fake.env, config: { geminiModel: 'gemini-2.5-flash' }, cleanup: fake.cleanup };
  },
});
