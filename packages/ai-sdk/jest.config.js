import base from '../../jest.config.js';

/**
 * This package's tests, run on Node 22 by scripts/jest.mjs (`ai` 7 needs it): the root setup
 * (ts-jest, workspace sources, private HOME, pinned CLIs) for this package only.
 */
export default {
  ...base,
  rootDir: '../..',
  roots: ['<rootDir>/packages/ai-sdk'],
  testPathIgnorePatterns: ['/node_modules/'],
};
