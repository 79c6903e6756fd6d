// Prints one plain closing line, "tests: N passed, N failed", that any CI can read. It is
// written at process exit so it comes after jest's own summary (pipes are synchronous on Linux).
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const line =
      `tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed` +
      (skipped ? `, ${skipped} skipped` : '');
    process.once('exit', () => process.stdout.write(`${line}\n`));
  }
}
module.exports = SummaryReporter;
