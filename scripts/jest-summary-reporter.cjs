// Prints one plain closing line ("N passed, N failed, N skipped") after jest's
// own summary, so CI logs state the count in a runner-neutral form. With
// TOOLBRIDGE_JEST_SUMMARY set, the counts also go to that file (jest.mjs adds up
// its runs into the closing line of the whole suite).
// Jest loads reporters with require(); this file stays CommonJS.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { writeFileSync } = require('node:fs');

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numTodoTests, numRuntimeErrorTestSuites } = results;
    const failed = numFailedTests + numRuntimeErrorTestSuites;
    const skipped = numPendingTests + numTodoTests;
    process.stdout.write(`\n${numPassedTests} passed, ${failed} failed, ${skipped} skipped\n`);
    if (process.env.TOOLBRIDGE_JEST_SUMMARY) {
      writeFileSync(process.env.TOOLBRIDGE_JEST_SUMMARY, JSON.stringify({ passed: numPassedTests, failed, skipped }));
    }
  }
}
module.exports = SummaryReporter;
