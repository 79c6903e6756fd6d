const path = require('node:path');

// With --coverage (npm test), the processes the tests start write V8 coverage here too; the
// summary script merges it with jest's own, so entry points run as child processes count.
if (process.argv.includes('--coverage')) {
  process.env.CONNECTOR_CHILD_COVERAGE = path.join(__dirname, 'coverage', 'children-raw');
}

/** @type {import('jest').Config} */
module.exports = {
  // Node's, plus a check that each file closed what it opened (a leftover fails that file).
  testEnvironment: '<rootDir>/test/support/leak-checked-environment.js',
  // The browser is unpacked (or found) once, before the workers start (see the file).
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // Inline source maps, so that coverage maps back to src/.
  transform: { '^.+\\.ts$': ['@swc/jest', { sourceMaps: 'inline' }] },
  // Integration tests start real servers and a private redis-server; two cores, two workers.
  maxWorkers: 2,
  // A deadline for a hang, not a speed limit: tests wait for events, and a loaded machine is slow.
  testTimeout: 60_000,
  // After the last file, a worker exits by itself once nothing is left running (every file is
  // checked for that, above), but V8 then frees a heap of several hundred MB page by page: over
  // jest's default 500 ms on two busy cores, when jest kills it and says it "failed to exit
  // gracefully". A worker still alive after this long is held by something: .ci/run fails on it.
  workerGracefulExitTimeout: 10_000,
  // Tests of a file run in a random order (the seed is printed; --seed=N repeats an order), so
  // no test can lean on what another left behind.
  randomize: true,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  coverageProvider: 'v8',
  collectCoverageFrom: ['src/**/*.ts'],
  coverageDirectory: 'coverage/jest',
  coverageReporters: ['json'],
};
