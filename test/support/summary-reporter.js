// Prints one plain closing line, "tests: N passed, N failed", that any CI can read. It is
// written at process exit so it comes after jest's own summary (pipes are synchronous on Linux).
// Under --coverage it is also kept in coverage/tests-line.txt, for the coverage summary to
// repeat it as the last line of `npm test`.
const { mkdirSync, writeFileSync } = require('node:fs');
const path = require('node:path');

class SummaryReporter {
  constructor(globalConfig) {
    this.coverage = globalConfig.collectCoverage;
  }

  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    // A file that failed outside its tests (it did not load, or left something running) is a
    // failure too, though it has no failed test to count.
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const line =
      `tests: ${results.numPassedTests} passed, ${failed} failed` +
      (skipped ? `, ${skipped} skipped` : '');
    if (this.coverage) {
      const dir = path.join(__dirname, '..', '..', 'coverage');
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, 'tests-line.txt'), `${line}\n`);
    }
    process.once('exit', () => process.stdout.write(`${line}\n`));
  }
}
module.exports = SummaryReporter;
