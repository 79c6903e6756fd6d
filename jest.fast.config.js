// `npm run test:fast`: the unit tests and the quick integration tests, in a few minutes on two
// cores. `npm test` (jest.config.js) still runs every file; this only leaves the slow lane out.
const base = require('./jest.config');

/**
 * The slow lane, in one place: the folders and files `npm run test:fast` leaves out, each a
 * drill, a build, a browser or a run of a minute or so (times from one run on two cores).
 */
const SLOW_LANE = [
  // Faults: kills, a dark platform, a Redis restart (delivery-under-faults alone ~60 s).
  '<rootDir>/test/faults/',
  // Browsers, the demo, and the packed and installed bin (~20 s).
  '<rootDir>/test/e2e/',
  // fast-check over every inbound endpoint, four connector processes (~20 s).
  '<rootDir>/test/properties/',
  // Sentinel and Cluster: failovers and their drills (20-75 s each).
  '<rootDir>/test/integration/infra/redis-sentinel.test.ts',
  '<rootDir>/test/integration/infra/redis-sentinel-drill.test.ts',
  '<rootDir>/test/integration/infra/redis-cluster.test.ts',
  '<rootDir>/test/integration/infra/redis-cluster-drill.test.ts',
  '<rootDir>/test/integration/infra/replica-wait.test.ts',
  // 10,000 checkouts (~30 s).
  '<rootDir>/test/integration/checkout/reconciler-at-scale.test.ts',
];

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testPathIgnorePatterns: ['/node_modules/', ...SLOW_LANE],
};
