/**
 * The test runner's functions, passed in (as keyv's test suite takes its runner), so the suite runs
 * under jest, node:test, vitest or mocha. Assertions use `node:assert`, which all of them report.
 */
export interface TestRunner {
  describe(name: string, body: () => void): void;
  it(name: string, body: () => Promise<void>, timeoutMs?: number): void;
  afterAll(body: () => Promise<void>): void;
}

/** jest and vitest: `import { describe, it, afterAll } from '@jest/globals'` (or 'vitest') fit as they are. */

/** node:test: `nodeTestRunner(await import('node:test'))` (its `it` takes the timeout in an options object). */
export function nodeTestRunner(t: {
  describe(name: string, body: () => void): unknown;
  it(name: string, options: { timeout?: number }, body: () => Promise<void>): unknown;
  after(body: () => Promise<void>): unknown;
}): TestRunner {
  return {
    describe: (name, body) => void t.describe(name, body),
    it: (name, body, timeoutMs) => void t.it(name, { timeout: timeoutMs }, body),
    afterAll: (body) => void t.after(body),
  };
}
