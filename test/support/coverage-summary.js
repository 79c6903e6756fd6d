// After `jest --coverage` and `c8 report`: merges the coverage of the tests' own process with
// that of the processes they started (the server, the CLI, the demo), prints the summary of
// src/, holds src/checkout/ to its branch-coverage floor, and repeats the tests' closing line.
const { existsSync, readFileSync } = require('node:fs');
const path = require('node:path');
const libCoverage = require('istanbul-lib-coverage');
const libReport = require('istanbul-lib-report');
const reports = require('istanbul-reports');

const ROOT = path.join(__dirname, '..', '..');
const COVERAGE = path.join(ROOT, 'coverage');
/** The use cases carry the payment logic: their branches stay covered. */
const CHECKOUT_BRANCH_FLOOR = 85;

const map = libCoverage.createCoverageMap({});
for (const part of ['jest', 'children']) {
  const file = path.join(COVERAGE, part, 'coverage-final.json');
  if (existsSync(file)) map.merge(JSON.parse(readFileSync(file, 'utf8')));
}
const context = libReport.createContext({ dir: COVERAGE, coverageMap: map });
for (const name of ['text-summary', 'json-summary']) reports.create(name).execute(context);

const checkout = libCoverage.createCoverageSummary();
for (const file of map.files()) {
  if (file.startsWith(path.join(ROOT, 'src', 'checkout') + path.sep)) {
    checkout.merge(map.fileCoverageFor(file).toSummary());
  }
}
const pct = checkout.branches.pct;
process.stdout.write(
  `src/checkout/ branches: ${pct}% (${checkout.branches.covered}/${checkout.branches.total}; floor ${CHECKOUT_BRANCH_FLOOR}%)\n`,
);
const line = path.join(COVERAGE, 'tests-line.txt');
if (existsSync(line)) process.stdout.write(readFileSync(line, 'utf8'));
if (!(pct >= CHECKOUT_BRANCH_FLOOR)) {
  process.stderr.write(
    `coverage: src/checkout/ branch coverage ${pct}% is below ${CHECKOUT_BRANCH_FLOOR}%\n`,
  );
  process.exit(1);
}
