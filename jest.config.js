/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  // Workspace packages resolve to their TypeScript sources, so tests need no build.
  testEnvironmentOptions: { customExportConditions: ['toolbridge-source', 'node', 'node-addons'] },
  roots: ['<rootDir>/packages', '<rootDir>/apps'],
  testMatch: ['**/src/**/*.test.ts'],
  // @toolbridge/ai-sdk needs Node 22 (`ai` 7): scripts/jest.mjs runs it with packages/ai-sdk/jest.config.js.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/packages/ai-sdk/'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: '<rootDir>/tsconfig.json' }],
  },
  reporters: ['default', '<rootDir>/scripts/jest-summary-reporter.cjs'],
  globalSetup: '<rootDir>/scripts/jest-global-setup.mjs',
  testTimeout: 30000,
  maxWorkers: 2,
  // A leaked handle must fail loudly in CI rather than hang it; runner tests prove no process is left.
  forceExit: true,
};
