// config/.env.example and config/defaults.env, from the schema (src/config/): a variable's meaning
// and default are declared once, on its zod type, and read here through zod's JSON Schema.
import { z } from 'zod';
import { CONFIG_VARIABLES, SECRET_VARIABLES } from '../../src/config';
import { connectShape } from '../../src/config/connect-config';
import { envShopShape } from '../../src/config/env-shop-config';
import { serverShape } from '../../src/config/server-schema';
import { PROVIDER_NAMES, PROVIDERS } from '../../src/payments/providers';

const GENERATED =
  '# Generated from the schema (src/config/) by `npm run docs`: edit the schema, not this file.';

/** What the schema says of each variable, as the environment gives it (`io: 'input'`). */
const SCHEMA = z.toJSONSchema(z.object(serverShape), { io: 'input', unrepresentable: 'any' });

/** A variable's `.describe()` (with `code` in backticks), its `.prefault()` and whether it must be set. */
export function variableOf(name: string): {
  description: string;
  default?: string;
  required: boolean;
} {
  const property = SCHEMA.properties?.[name];
  if (typeof property !== 'object') throw new Error(`${name} is not a variable of the schema`);
  if (!property.description) throw new Error(`${name} has no .describe() in the schema`);
  return {
    description: property.description,
    ...(property.default !== undefined && { default: String(property.default) }),
    required: SCHEMA.required?.includes(name) ?? false,
  };
}

type Section = { title: string; variables: readonly string[] };

/** Sections of .env.example, from their titles to their variables' names, in order. */
const sectionsOf = (table: Record<string, string>): Section[] =>
  Object.entries(table).map(([title, names]) => ({ title, variables: names.trim().split(/\s+/) }));

/** The sections of .env.example named here, up to "checkout" (the env shop's own follow it). */
const FIRST = sectionsOf({
  process: `NODE_ENV ROLE PORT PUBLIC_URL LOG_LEVEL LOG_FORMAT SHUTDOWN_TIMEOUT_MS
    HTTP_HEADERS_TIMEOUT_MS HTTP_REQUEST_TIMEOUT_MS HTTP_KEEP_ALIVE_TIMEOUT_MS HTTP_MAX_CONNECTIONS
    TRUST_PROXY_HOPS METRICS_PORT METRICS_HOST`,
  'rate limits (per client address, shared by every api process through Redis; 0 = off)': `
    RATE_LIMIT_WINDOW_SECONDS RATE_LIMIT_CHECKOUT_FAILURES RATE_LIMIT_WEBHOOK_FAILURES
    RATE_LIMIT_PAGES RATE_LIMIT_DASHBOARD_FAILURES`,
  Redis: 'REDIS_URL QUEUE_PREFIX REDIS_SENTINEL_PASSWORD',
  'the platform': `PLATFORM_BASE_URL PLATFORM_EMAIL PLATFORM_PASSWORD PLATFORM_API_KEY
    PLATFORM_TIMEOUT_MS PLATFORM_PAGE_SIZE`,
  checkout: 'CHECKOUT_ROUTE_PATH CHECKOUT_ROUTE_TOKEN PAYMENT_PROVIDER SANDBOX_IN_PRODUCTION',
  "the env shop on its customers' pages (a registry shop's document says it: name, siteUrl)":
    'SHOP_NAME SHOP_SITE_URL',
});

/** The sections named here between the env shop's and the providers' own. */
const MIDDLE = sectionsOf({
  'Many shops: the registry (docs/shops.md "Many shops")': `SHOP_SECRET_KEYS ADMIN_TOKEN
    SHOP_REFRESH_MS SHOP_BREAKER_FAILURES SHOP_BREAKER_COOLDOWN_MS`,
  'Where providers may be sent (for every shop)': 'PROVIDER_API_ORIGINS',
  // Each vendor account's variables, as its provider's connect flow declares them; the fee's.
  [`Connecting shops' provider accounts, and your fee (docs/shops.md "Connecting a shop's provider account")`]:
    Object.keys(connectShape).join(' '),
});

/** The sections named here that follow the providers' own. */
const LAST = sectionsOf({
  [`How the customer may pay (the env shop; a registry shop says it in its document's "payment")`]:
    'PAYMENT_METHODS CARD_MAX_INSTALLMENTS CHECKOUT_EXPIRY_MINUTES CURRENCY',
  'notifications to the platform': `NOTIFY_MAX_ATTEMPTS NOTIFY_BACKOFF_MS JOB_LOCK_MS
    WORKER_CONCURRENCY RECONCILE_INTERVAL_MS`,
  operators: 'DASHBOARD_USER DASHBOARD_PASSWORD',
  'checkout records, and the watch of paid Pix': 'CHECKOUT_RETENTION_DAYS PIX_WATCH_DAYS',
  'tracing (off while unset)': 'OTEL_EXPORTER_OTLP_ENDPOINT OTEL_SERVICE_NAME',
  'the ERP sync (off while ERP_SINK is unset)': `ERP_SINK SYNC_INTERVAL SYNC_STATUSES ERP_WEBHOOK_URL
    ERP_WEBHOOK_SECRET ERP_WEBHOOK_TIMEOUT_MS ERP_EXPORT_DIR`,
});

/** One section per provider with variables, from its fields: a new provider needs no row here. */
function providerSections(): Section[] {
  return PROVIDER_NAMES.flatMap((name) => {
    const { rows, api } = PROVIDERS[name];
    const variables = rows.flatMap((row) => row.variables);
    if (variables.length === 0) return [];
    return [{ title: `${api?.label ?? name} (PAYMENT_PROVIDER=${name})`, variables }];
  });
}

/** The env shop's variables no other section names, from its schema: none, no section. */
function envShopSection(named: readonly Section[]): Section[] {
  const listed = new Set(named.flatMap((section) => section.variables));
  const variables = Object.keys(envShopShape).filter((name) => !listed.has(name));
  return variables.length > 0 ? [{ title: 'the env shop', variables }] : [];
}

/** The sections of .env.example, in order; throws unless they name every variable once. */
export function sections(): readonly Section[] {
  const providers = providerSections();
  const envShop = envShopSection([...FIRST, ...MIDDLE, ...providers, ...LAST]);
  const all = [...FIRST, ...envShop, ...MIDDLE, ...providers, ...LAST];
  const listed = all.flatMap((section) => section.variables);
  const twice = listed.filter((name, i) => listed.indexOf(name) !== i);
  const missing = CONFIG_VARIABLES.filter((name) => !listed.includes(name));
  const unknown = listed.filter((name) => !CONFIG_VARIABLES.includes(name));
  if (twice.length + missing.length + unknown.length > 0)
    throw new Error(
      `.env.example sections: twice ${twice}; missing ${missing}; unknown ${unknown}`,
    );
  return all;
}

/**
 * The example deployment's values where they are not the default: a production one, which
 * `is itself a valid configuration` (config.test.ts), with placeholders for its secrets.
 */
const EXAMPLES: Record<string, { value: string; note?: string }> = {
  NODE_ENV: { value: 'production' },
  PUBLIC_URL: { value: 'https://connector.example.com' },
  LOG_FORMAT: { value: 'json' },
  PLATFORM_BASE_URL: { value: 'https://apis.cortecloud.com.br' },
  PLATFORM_EMAIL: { value: 'integrator@example.com' },
  PLATFORM_PASSWORD: { value: 'change-me' },
  PLATFORM_API_KEY: { value: 'change-me' },
  CHECKOUT_ROUTE_TOKEN: { value: 'change-me-to-a-long-random-string' },
  SANDBOX_IN_PRODUCTION: {
    value: 'true',
    note: 'This example runs the sandbox that way: set it to false (or remove it) once PAYMENT_PROVIDER names a real provider.',
  },
  DASHBOARD_USER: { value: 'ops' },
  DASHBOARD_PASSWORD: { value: 'change-me-please' },
};

/** `text` as comment lines of at most `width` characters; the last is never a stub. */
function commentLines(text: string, width = 100): string[] {
  for (let limit = width; limit > 60; limit -= 2) {
    const lines: string[] = [];
    for (const word of text.split(' ')) {
      const last = lines.at(-1);
      if (last !== undefined && `${last} ${word}`.length <= limit)
        lines[lines.length - 1] += ` ${word}`;
      else lines.push(`# ${word}`);
    }
    if (lines.length === 1 || (lines.at(-1) ?? '').length >= 24) return lines;
  }
  return [`# ${text}`];
}

/** A variable in .env.example: its meaning (no backticks; "Secret." for one), then its line. */
function exampleLines(name: string): string[] {
  const { description, default: value } = variableOf(name);
  const example = EXAMPLES[name];
  const secret = SECRET_VARIABLES.includes(name) ? 'Secret.' : undefined;
  const meaning = [description.replaceAll('`', ''), secret, example?.note].filter(Boolean);
  return [...commentLines(meaning.join(' ')), `${name}=${example?.value ?? value ?? ''}`];
}

/** config/.env.example: every variable, its meaning, and an example deployment's value. */
export function renderEnvExample(): string {
  const out = [
    '# Copy to .env (never commit it) or set these in the environment. Defaults: config/defaults.env.',
    GENERATED,
  ];
  for (const { title, variables } of sections())
    out.push('', `# --- ${title} ---`, ...variables.flatMap(exampleLines));
  return `${out.join('\n')}\n`;
}

/** config/defaults.env: the schema's defaults, read first at run time (readEnvironment). */
export function renderDefaultsEnv(): string {
  const out = [
    '# Non-secret defaults of the connector. The environment and a .env file override every line.',
    '# Secrets and deployment-specific values (PLATFORM_*, CHECKOUT_ROUTE_TOKEN, DASHBOARD_*) have no',
    '# default on purpose: config/.env.example lists them.',
    GENERATED,
  ];
  for (const name of CONFIG_VARIABLES) {
    const value = variableOf(name).default;
    if (value === undefined) continue;
    if (SECRET_VARIABLES.includes(name)) throw new Error(`${name} is secret: it has no default`);
    out.push(`${name}=${value}`);
  }
  return `${out.join('\n')}\n`;
}
