/** Test helpers of the OpenCode adapter: its recordings of the real CLI, fakes replaying them, a mock chat-completions API. */
export { fakeOpenCodeCli } from './fake-cli.js';
export { capture, capturePath } from './captures.js';
export { makeFakeOpenCode, type FakeOpenCode, type FakeOpenCodeSpec } from './fake-opencode.js';
export { mockProviderConfig, startMockOpenAIServer, MOCK_OK, type MockBehaviour, type MockOpenAIServer } from './mock-openai-server.js';
