/** Test helpers of the Codex adapter: its recordings of the real CLI, fakes replaying them, a mock Responses API. */
export { fakeCodexCli } from './fake-cli.js';
export { capture, CAPTURES_DIR, fakeCodexEnv, REPLAYS, writeFakeCodex, type FakeCodexScript } from './fake-codex.js';
export { startMockResponsesServer, type MockBehaviour, type MockResponsesServer } from './mock-responses-server.js';
