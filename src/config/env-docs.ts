import type { z } from 'zod';
import { PROVIDER_FIELDS, PROVIDER_NAMES } from '../payments/provider-fields';
import { envShopShape } from './env-shop-config';
import { SECRET_VARIABLES } from './secret-variables';
import { CONFIG_VARIABLES, serverShape } from './server-schema';
import { connectShape } from './connect-config';

/**
 * config/.env.example and config/defaults.env, written from the schema (`npm run docs`):
 * a variable's meaning and default are declared once, on its zod type, and a unit test fails
 * when a committed file differs from what this module writes.
 */

const GENERATED =
  '# Generated from the schema (src/config/) by `npm run docs`: edit the schema, not this file.';

/**
 * How a description names a section of the documentation: its page and its title,
 * `docs/shops.md "Many shops"` (the links test checks that the page has that heading).
 */
export const SECTION_CITATION = /(docs\/[\w/-]+\.md) "([^"]+)"/g;

/**
 * The anchor GitHub gives a heading (`Many shops` → `many-shops`): link text kept, tags dropped,
 * lower case, punctuation but `-` and `_` dropped, spaces as `-` (before a repeat's `-1`). The
 * generated links and the docs' tables of contents and link checks (scripts/docs-lib.ts) alike.
 */
export function anchorOf(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

type Section = { title: string; variables: readonly string[] };

/** The sections of .env.example named here, up to "checkout" (the env shop's own follow it). */
const FIRST: readonly Section[] = [
  {
    title: 'process',
    variables: ['NODE_ENV', 'ROLE', 'PORT', 'PUBLIC_URL', 'LOG_LEVEL', 'LOG_FORMAT'].concat(
      ['SHUTDOWN_TIMEOUT_MS', 'HTTP_HEADERS_TIMEOUT_MS', 'HTTP_REQUEST_TIMEOUT_MS'],
      ['HTTP_KEEP_ALIVE_TIMEOUT_MS', 'HTTP_MAX_CONNECTIONS', 'TRUST_PROXY_HOPS'],
      ['METRICS_PORT', 'METRICS_HOST'],
    ),
  },
  {
    title: 'rate limits (per client address, shared by every api process through Redis; 0 = off)',
    variables: ['RATE_LIMIT_WINDOW_SECONDS', 'RATE_LIMIT_CHECKOUT_FAILURES'].concat([
      'RATE_LIMIT_WEBHOOK_FAILURES',
      'RATE_LIMIT_PAGES',
      'RATE_LIMIT_DASHBOARD_FAILURES',
    ]),
  },
  { title: 'Redis', variables: ['REDIS_URL', 'QUEUE_PREFIX', 'REDIS_SENTINEL_PASSWORD'] },
  {
    title: 'the platform',
    variables: ['PLATFORM_BASE_URL', 'PLATFORM_EMAIL', 'PLATFORM_PASSWORD'].concat([
      'PLATFORM_API_KEY',
      'PLATFORM_TIMEOUT_MS',
      'PLATFORM_PAGE_SIZE',
    ]),
  },
  {
    title: 'checkout',
    variables: ['CHECKOUT_ROUTE_PATH', 'CHECKOUT_ROUTE_TOKEN', 'PAYMENT_PROVIDER'].concat([
      'SANDBOX_IN_PRODUCTION',
    ]),
  },
  {
    title:
      "the env shop on its customers' pages (a registry shop's document says it: name, siteUrl)",
    variables: ['SHOP_NAME', 'SHOP_SITE_URL'],
  },
];

/** The sections named here between the env shop's and the providers' own. */
const MIDDLE: readonly Section[] = [
  {
    title: 'Many shops: the registry (docs/shops.md "Many shops")',
    variables: ['SHOP_SECRET_KEYS', 'ADMIN_TOKEN', 'SHOP_REFRESH_MS'].concat([
      'SHOP_BREAKER_FAILURES',
      'SHOP_BREAKER_COOLDOWN_MS',
    ]),
  },
  { title: 'Where providers may be sent (for every shop)', variables: ['PROVIDER_API_ORIGINS'] },
  {
    title: `Connecting shops' provider accounts, and your fee (docs/shops.md "Connecting a shop's provider account")`,
    // Each vendor account's variables, as its provider's connect flow declares them; the fee's.
    variables: Object.keys(connectShape),
  },
];

/** The sections named here that follow the providers' own. */
const LAST: readonly Section[] = [
  {
    title: `How the customer may pay (the env shop; a registry shop says it in its document's "payment")`,
    variables: ['PAYMENT_METHODS', 'CARD_MAX_INSTALLMENTS', 'CHECKOUT_EXPIRY_MINUTES', 'CURRENCY'],
  },
  {
    title: 'notifications to the platform',
    variables: ['NOTIFY_MAX_ATTEMPTS', 'NOTIFY_BACKOFF_MS', 'JOB_LOCK_MS'].concat([
      'WORKER_CONCURRENCY',
      'RECONCILE_INTERVAL_MS',
    ]),
  },
  { title: 'operators', variables: ['DASHBOARD_USER', 'DASHBOARD_PASSWORD'] },
  { title: 'checkout records', variables: ['CHECKOUT_RETENTION_DAYS'] },
  {
    title: 'tracing (off while unset)',
    variables: ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_SERVICE_NAME'],
  },
  {
    title: 'the ERP sync (off while ERP_SINK is unset)',
    variables: ['ERP_SINK', 'SYNC_INTERVAL', 'SYNC_STATUSES', 'ERP_WEBHOOK_URL'].concat([
      'ERP_WEBHOOK_SECRET',
      'ERP_WEBHOOK_TIMEOUT_MS',
      'ERP_EXPORT_DIR',
    ]),
  },
];

/** One section per provider with variables, from its fields: a new provider needs no row here. */
function providerSections(): Section[] {
  return PROVIDER_NAMES.flatMap((name) => {
    const { rows, api } = PROVIDER_FIELDS[name];
    const variables = rows.flatMap((row) => row.variables);
    if (variables.length === 0) return [];
    return [{ title: `${api?.label ?? name} (PAYMENT_PROVIDER=${name})`, variables }];
  });
}

/**
 * The env shop's variables no other section names (its name and its site, say), from its
 * schema: a new one needs no row here. None: no section.
 */
function envShopSection(named: readonly Section[]): Section[] {
  const listed = new Set(named.flatMap((section) => section.variables));
  const variables = Object.keys(envShopShape).filter((name) => !listed.has(name));
  return variables.length > 0 ? [{ title: 'the env shop', variables }] : [];
}

/** The sections of .env.example, in order. */
function sections(): readonly Section[] {
  const providers = providerSections();
  const envShop = envShopSection([...FIRST, ...MIDDLE, ...providers, ...LAST]);
  return [...FIRST, ...envShop, ...MIDDLE, ...providers, ...LAST];
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

export function schemaOf(name: string): z.ZodType {
  const schema = (serverShape as Record<string, z.ZodType>)[name];
  if (!schema) throw new Error(`${name} is not a variable of the schema`);
  return schema;
}

/** The default a variable's schema declares (`.prefault()`), as the environment would say it. */
export function defaultOf(name: string): string | undefined {
  const { def } = schemaOf(name) as z.ZodType & { def: { type: string; defaultValue?: unknown } };
  return def.type === 'prefault' ? String(def.defaultValue) : undefined;
}

/** A variable's `.describe()`: text with `code` in backticks (the docs render them). */
export function descriptionOf(name: string): string {
  const description = schemaOf(name).description;
  if (!description) throw new Error(`${name} has no .describe() in the schema`);
  return description;
}

/** A variable's meaning as a comment says it: no backticks, and "Secret." when it is one. */
function meaningOf(name: string): string {
  const description = descriptionOf(name).replaceAll('`', '');
  return SECRET_VARIABLES.includes(name) ? `${description} Secret.` : description;
}

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

/** Checks that the sections name every variable of the schema exactly once. */
export function checkedSections(): readonly Section[] {
  const all = sections();
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

/** config/.env.example: every variable, its meaning, and an example deployment's value. */
export function renderEnvExample(): string {
  const out = [
    '# Copy to .env (never commit it) or set these in the environment. Defaults: config/defaults.env.',
    GENERATED,
  ];
  for (const { title, variables } of checkedSections()) {
    out.push('', `# --- ${title} ---`);
    for (const name of variables) {
      const example = EXAMPLES[name];
      const meaning = [meaningOf(name), example?.note].filter(Boolean).join(' ');
      out.push(...commentLines(meaning), `${name}=${example?.value ?? defaultOf(name) ?? ''}`);
    }
  }
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
    const value = defaultOf(name);
    if (value === undefined) continue;
    if (SECRET_VARIABLES.includes(name)) throw new Error(`${name} is secret: it has no default`);
    out.push(`${name}=${value}`);
  }
  return `${out.join('\n')}\n`;
}
