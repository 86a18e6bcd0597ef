/** Test helpers of the Pi adapter: the real, pinned `pi` against the test kit's chat-completions mock. */
export { mockModels, realPiEnv, SLOW, startRealPi, type RealPi } from './real-pi.js';
export { CAPTURES_DIR, fakePiCli } from './fake-cli.js';
