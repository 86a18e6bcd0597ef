/** Test helpers for apps and the bridge: a whole fake machine with every default tool. */
export { DEFAULT_FAKE_CLIS, FAKE_CLIS, makeFakeMachine, type FakeCli, type FakeMachine, type FakeMode } from './fake-machine.js';
export { useToolbridgeFixture } from './fixture.js';
