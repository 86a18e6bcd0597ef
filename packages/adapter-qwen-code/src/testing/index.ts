/** Test helpers of the Qwen Code adapter: a mock OpenAI server for the real `qwen`, and its hermetic home. */
export { HELLO, MOCK_USAGE, startMockQwenServer, type MockQwenServer, type QwenMockRequest, type QwenMockStep } from './mock-openai.js';
export { qwenNode, realQwenHome, type RealQwenHome } from './real.js';
export { CAPTURES_DIR, fakeQwenCli } from './fake-cli.js';
