/** Test helpers of the Ollama adapter: an in-test server speaking Ollama's real API, with switchable failures. */
export { closedPort, startFakeOllama, type FakeBehaviour, type FakeOllama, type FakeOllamaOptions, type FakeRoute } from './fake-ollama.js';
