/** Test helpers of the Claude Code adapter: its recordings of the real CLI, fakes replaying them, a mock Messages API. */
export { fakeClaudeCli } from './fake-cli.js';
export { capture, captureText, writeFakeClaude, type FakeClaudeSpec } from './fake-claude.js';
export {
  startMockAnthropic,
  type MessagesBody,
  type MockAnthropicServer,
  type MockBehavior,
  type MockBlock,
  type MockReply,
} from './mock-anthropic.js';
export { agentScript, currentToolResults, imageBlocks, structuredScript, toolNames, userTexts } from './mock-scripts.js';
