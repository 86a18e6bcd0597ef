/** Test helpers of the Gemini CLI adapter: its recordings of the real CLI, fakes replaying them, a mock Gemini API. */
export { fakeGeminiCli } from './fake-cli.js';
export { capture, CAPTURES_DIR, fakeGeminiEnv, recorded, REPLAYS, writeFakeGemini, type FakeGemini, type Replay } from './fake-gemini.js';
export { API_ERRORS, HELLO, startMockGeminiServer, type GeminiStep, type MockGeminiServer } from './mock-gemini-server.js';
