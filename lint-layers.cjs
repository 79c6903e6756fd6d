// The layering of src/, enforced by eslint.config.mjs and checked by test/unit/project/lint-rules.test.ts.

/** Packages the use-case layers must not import (STYLE.md rule 1): they get collaborators as parameters. */
const TRANSPORTS = ['express', 'bullmq', 'axios', 'winston', 'ioredis', 'commander'];

/**
 * What each folder of src/ (and each top-level file) may import from the others. Everything not
 * listed is forbidden, so a new folder needs a row (the test checks that every one has) and
 * `main` alone composes. The simulator is a product of its own: only the CLI and main (the demo)
 * import it, besides tests and benchmarks.
 */
const LAYERS = {
  errors: [],
  // The one logging interface (winston's logger fits it): named by every part that logs.
  log: [],
  // Secret scrubbing: the automaton that finds every known secret in a log line (values, not keys).
  scrubbing: [],
  // The async context a request or job carries (its shop, its trace), and the OpenTelemetry SDK.
  tracing: [],
  // What a shop is (its id, the env shop, the service ids it takes): the kernel every per-shop
  // layer names.
  shop: [],
  // Envelope encryption of the shops' secrets and the constant-time match of tokens: no
  // dependency, so configuration can check a keyring as infra and the registry use it.
  secrets: [],
  // Redis: REDIS_URL's three forms, the one builder of connections, the key space, the scripts.
  redis: ['shop', 'errors', 'log'],
  // Provider settings are declared beside the adapters (payments/provider-fields.ts).
  config: ['shop', 'secrets', 'payments', 'redis'],
  // The logger, metrics and shutdown: what every process has.
  infra: ['shop', 'errors', 'config', 'redis', 'tracing', 'scrubbing', 'log'],
  // The HTML kit of the customer pages (layout, escaping, money): shared by http/ and providers;
  // the CLI shows money with it too.
  html: [],
  platform: ['infra', 'errors'],
  // The shop registry: shop documents, their sealing, the admin verbs, the shops a process serves.
  'shop-registry': ['shop', 'secrets', 'payments', 'config', 'errors', 'log'],
  payments: ['shop', 'secrets', 'html', 'infra', 'redis', 'errors', 'log'],
  // Connecting shops' provider accounts by a link, whatever the provider: links, states bound to
  // the browser, the context a provider's connect flow (its descriptor's) is given.
  connect: ['shop', 'secrets', 'payments', 'shop-registry', 'errors', 'log'],
  checkout: ['shop', 'payments', 'platform', 'errors', 'log'],
  delivery: ['shop', 'checkout', 'platform', 'errors', 'log'],
  // The ERP sync's use cases, and the sinks that hand services to the ERP.
  sync: ['shop', 'platform', 'errors', 'log'],
  erp: ['shop', 'sync', 'platform', 'infra', 'config', 'errors', 'log'],
  store: [
    'shop',
    'checkout',
    'delivery',
    'sync',
    'shop-registry',
    'connect',
    'redis',
    'tracing',
  ].concat(['errors']),
  jobs: ['shop', 'checkout', 'delivery', 'sync', 'platform', 'infra', 'redis', 'tracing', 'errors'],
  http: ['shop', 'secrets', 'checkout', 'payments', 'shop-registry', 'connect', 'platform'].concat([
    'html',
    'infra',
    'redis',
    'tracing',
    'config',
    'errors',
  ]),
  cli: ['shop', 'secrets', 'checkout', 'delivery', 'sync', 'platform', 'simulator', 'infra'].concat(
    ['config', 'shop-registry', 'connect', 'redis', 'scrubbing', 'html', 'errors'],
  ),
  simulator: ['infra', 'html', 'errors'],
  main: [
    'shop',
    'secrets',
    'checkout',
    'delivery',
    'sync',
    'erp',
    'platform',
    'payments',
    'store',
    'jobs',
    'shop-registry',
    'connect',
  ].concat(['http', 'cli', 'simulator', 'html', 'infra', 'redis', 'tracing', 'config', 'errors']),
  // The demo: a private Redis, the simulator and the connector in one process (an entry point).
  demo: ['cli', 'config', 'main', 'payments', 'secrets', 'simulator', 'infra', 'errors'],
};

/** Packages a folder may not import, besides the layering. */
const PACKAGE_RULES = {
  shop: TRANSPORTS,
  secrets: TRANSPORTS,
  'shop-registry': TRANSPORTS,
  connect: TRANSPORTS,
  checkout: TRANSPORTS,
  delivery: TRANSPORTS,
  sync: TRANSPORTS,
  // The CLI reads Redis through the ports main/ builds for it.
  cli: ['bullmq', 'ioredis'],
};

/** The rows that are top-level files of src/ (`src/<name>.ts`), not folders. */
const FILES = ['errors', 'log'];

/** Folders imported through their index.ts (`../config`) as well as by a file's path. */
const INDEXED = ['config'];

module.exports = { LAYERS, PACKAGE_RULES, FILES, INDEXED };
