// `npm run test:fast`: the unit tests and the quick integration tests, in a few minutes on two
// cores. `npm test` (jest.config.js) still runs every file; this only leaves the slow lane out.
const { availableParallelism } = require('node:os');
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
  // fast-check over every inbound endpoint, a connector process per provider.
  '<rootDir>/test/properties/',
  // Sentinel and Cluster: failovers and their drills (20-75 s each).
  '<rootDir>/test/integration/infra/redis-sentinel.test.ts',
  '<rootDir>/test/integration/infra/redis-sentinel-drill.test.ts',
  '<rootDir>/test/integration/infra/redis-cluster.test.ts',
  '<rootDir>/test/integration/infra/redis-cluster-drill.test.ts',
  '<rootDir>/test/integration/infra/replica-wait.test.ts',
  // 3,000 checkouts (~20 s).
  '<rootDir>/test/integration/checkout/reconciler-at-scale.test.ts',
  // A replica joining and leaving (~15 s).
  '<rootDir>/test/integration/http/checkout-replica-reads.test.ts',
  // Whole connector processes, a second of CPU each to start (6 to 12 s a file).
  '<rootDir>/test/integration/main/server-process.test.ts',
  '<rootDir>/test/integration/main/roles-and-safety.test.ts',
  '<rootDir>/test/integration/main/tracing.test.ts',
  '<rootDir>/test/integration/main/tracing-strangers.test.ts',
  '<rootDir>/test/integration/main/tracing-secrets.test.ts',
  '<rootDir>/test/integration/infra/logs-in-outage.test.ts',
  '<rootDir>/test/integration/payments/sandbox-in-production.test.ts',
  // The CLI's ERP sync in children, a Redis restarted under a shutdown, the rate limits' windows
  // (14 to 17 s each: the fast lane ran 111 to 139 s with them on a slow day).
  '<rootDir>/test/integration/cli/erp-sync-cli.test.ts',
  '<rootDir>/test/integration/main/shutdown-after-redis-restart.test.ts',
  '<rootDir>/test/integration/http/rate-limits.test.ts',
];

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testPathIgnorePatterns: ['/node_modules/', ...SLOW_LANE],
  // Two workers a core: these files spend about half their time waiting on their servers and
  // child processes, so two a core keep the cores busy (76 s on two cores against 105 s with two
  // workers, the same CPU). The whole suite keeps one a core: its drills time failovers.
  // A number: jest reads a percentage over 100% as that many workers ('200%' is 200).
  maxWorkers: 2 * availableParallelism(),
};
