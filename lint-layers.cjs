// The layering of src/, enforced by eslint.config.mjs and checked by test/unit/lint-rules.test.ts.

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
  // REDIS_URL's three forms, read by the configuration and by the one builder of connections.
  'redis-url': [],
  // What a shop is (its id, the env shop, the service ids it takes): the kernel every per-shop
  // layer names.
  shop: [],
  // Envelope encryption of the shops' secrets and the constant-time match of tokens: no
  // dependency, so configuration can check a keyring as infra and the registry use it.
  secrets: [],
  // Provider settings are declared beside the adapters (payments/provider-fields.ts).
  config: ['shop', 'secrets', 'payments', 'redis-url'],
  infra: ['shop', 'errors', 'config', 'redis-url'],
  // The HTML kit of the customer pages (layout, escaping, money): shared by http/ and providers.
  html: [],
  platform: ['infra', 'errors'],
  // The shop registry: shop documents, their sealing, the admin verbs, the shops a process serves.
  'shop-registry': ['shop', 'secrets', 'payments', 'config', 'errors'],
  payments: ['shop', 'secrets', 'html', 'infra', 'errors'],
  // Connecting shops' provider accounts by a link, whatever the provider: links, states bound to
  // the browser, the context a provider's connect flow (its descriptor's) is given.
  connect: ['shop', 'secrets', 'payments', 'shop-registry', 'errors'],
  checkout: ['shop', 'payments', 'platform', 'errors'],
  delivery: ['shop', 'checkout', 'platform', 'errors'],
  // The ERP sync's use cases, and the sinks that hand services to the ERP.
  sync: ['shop', 'platform', 'errors'],
  erp: ['shop', 'sync', 'platform', 'infra', 'config', 'errors'],
  store: ['shop', 'checkout', 'delivery', 'sync', 'shop-registry', 'connect', 'infra', 'errors'],
  jobs: ['shop', 'checkout', 'delivery', 'sync', 'platform', 'infra', 'errors'],
  http: ['shop', 'secrets', 'checkout', 'payments', 'shop-registry', 'connect', 'platform'].concat([
    'html',
    'infra',
    'config',
    'errors',
  ]),
  cli: ['shop', 'secrets', 'checkout', 'delivery', 'sync', 'platform', 'simulator', 'infra'].concat(
    ['config', 'shop-registry', 'connect', 'errors'],
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
  ].concat(['http', 'cli', 'simulator', 'html', 'infra', 'config', 'errors', 'redis-url']),
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
const FILES = ['errors', 'redis-url'];

/** Folders imported through their index.ts (`../config`) as well as by a file's path. */
const INDEXED = ['config'];

module.exports = { LAYERS, PACKAGE_RULES, FILES, INDEXED };
