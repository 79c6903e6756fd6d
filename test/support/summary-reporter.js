// Prints one plain closing line, "tests: N passed, N failed in S s", that any CI can read. It is
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
    const seconds = Math.round((Date.now() - results.startTime) / 1000);
    const line =
      `tests: ${results.numPassedTests} passed, ${failed} failed` +
      (skipped ? `, ${skipped} skipped` : '') +
      ` in ${seconds} s`;
    // TEST_TIME_BUDGET=S (CI's fast lane): a run longer than S seconds fails, saying so.
    const budget = Number(process.env.TEST_TIME_BUDGET ?? 0);
    const over = budget > 0 && seconds > budget;
    if (this.coverage) {
      const dir = path.join(__dirname, '..', '..', 'coverage');
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, 'tests-line.txt'), `${line}\n`);
    }
    process.once('exit', () => {
      process.stdout.write(`${line}\n`);
      if (!over) return;
      process.stdout.write(`tests: ${seconds} s is over the budget of ${budget} s\n`);
      process.exitCode = 1;
    });
  }
}
module.exports = SummaryReporter;
