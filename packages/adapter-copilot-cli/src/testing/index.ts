/** Test helpers of the Copilot CLI adapter: its recordings of the real CLI, fakes replaying them, a mock OpenAI-style API. */
export { fakeCopilotCli } from './fake-cli.js';
export {
  capture,
  CAPTURES_DIR,
  fakeCopilotEnv,
  recorded,
  REPLAYS,
  writeFakeCopilot,
  type FakeCopilot,
  type Replay,
} from './fake-copilot.js';
export { API_ERRORS, DEVICE_CODE, HELLO, startMockOpenAIServer, type ChatStep, type MockOpenAIServer } from './mock-openai-server.js';
