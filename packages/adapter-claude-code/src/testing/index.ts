/** Test helpers of the Claude Code adapter: its recordings of the real CLI, fakes replaying them, a mock Messages API. */
export { fakeClaudeCli } from './fake-cli.js';
export { capture, captureText, writeFakeClaude, type FakeClaudeSpec } from './fake-claude.js';
export { startMockAnthropic, type MockAnthropicServer, type MockBehavior } from './mock-anthropic.js';
