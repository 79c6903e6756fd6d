import fc from 'fast-check';
import { CONNECTABLE } from '../../src/connect/connect-links';
import { PROVIDER_NAMES } from '../../src/payments/providers';
import { hostileId } from './inbound-requests';
import { CALLBACKS, LINK_FORMS, PAGE_PREFIXES, PAGE_ROUTES, SUFFIXED } from './public-routes';

/*
 * The paths of Connect and of the providers' own endpoints (CONTRACT "Connect and a provider's
 * own endpoints, safe by construction"), as hostile clients write them: inbound-paths.ts joins
 * them to the rest. They are read from the code's lists, never kept by hand: the providers'
 * names, webhook suffixes and pages, and what the connectable providers' flows declare (their
 * callbacks, link forms and platform events), as public-routes.ts reads them.
 */

/** What one connector's paths name: its env shop's provider, the registry's shops, the live links. */
export interface InboundWorld {
  /** The env shop's provider: its webhook is `/webhooks/<provider>`. */
  provider: string;
  /** Ids of the registry's shops (the first one is the admin API's own). */
  shops: readonly string[];
  /** The registry's shop on each provider, by name: its webhooks and pages answer. */
  shopOf: Readonly<Record<string, string>>;
  /** Tokens of live connect links: secrets no log line may hold. */
  linkTokens: readonly string[];
}

const lowerHex = (length: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: length, maxLength: length });

/** A value of the form of a connect state or link token: 32 random bytes, base64url (43 chars). */
export const rightFormValue = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .map((bytes) => Buffer.from(bytes).toString('base64url'));

/**
 * A link token or a state as it is written in a path or a query: of the right form (random, or a
 * live link's), or of a wrong one: empty, a character short or over, long, unicode, escapes that
 * decode to the right form or to nothing, a Stripe account id as the old states were.
 */
export function connectValue(live: readonly string[]): fc.Arbitrary<string> {
  const liveValue = live.length > 0 ? fc.constantFrom(...live) : rightFormValue;
  return fc.oneof(
    { weight: 3, arbitrary: rightFormValue },
    { weight: 3, arbitrary: liveValue },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        '',
        'account:acct_x',
        'account:acct_1Nv0FGQ9RKHgCVdK',
        'account%3Aacct_1Nv0FGQ9RKHgCVdK',
        'acct_1Nv0FGQ9RKHgCVdK',
        '%00',
        '%ZZ',
        '%E0%A4%A',
        '..%2F..%2Fadmin',
        'null',
        'undefined',
      ),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.oneof(liveValue, rightFormValue),
          fc.constantFrom('short', 'long', 'upper', 'pad'),
        )
        .map(([value, change]) => {
          if (change === 'short') return value.slice(1);
          if (change === 'long') return `${value}A`;
          if (change === 'upper') return value.toUpperCase();
          return `${value}=`;
        }),
    },
    // Every character escaped: a path or query that decodes to a value of the right form.
    { weight: 1, arbitrary: liveValue.map((value) => value.replace(/./g, percentEscape)) },
    { weight: 1, arbitrary: fc.integer({ min: 44, max: 5000 }).map((n) => 'A'.repeat(n)) },
    {
      weight: 2,
      arbitrary: fc.string({ unit: 'grapheme', maxLength: 50 }).map(encodeURIComponent),
    },
  );
}

function percentEscape(char: string): string {
  return `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
}

/** A query string of the fields given (each optional), sometimes a field repeated. */
function queryOf(fields: fc.Arbitrary<Record<string, string>>): fc.Arbitrary<string> {
  return fc.tuple(fields, fc.boolean()).map(([given, repeat]) => {
    const pairs = Object.entries(given).map(([name, value]) => `${name}=${value}`);
    if (repeat && pairs[0]) pairs.push(pairs[0]);
    return pairs.length > 0 ? `?${pairs.join('&')}` : '';
  });
}

/** A callback's query: a code, a state and an error of Mercado Pago's and Stripe's forms, or not. */
function callbackQuery(state: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const code = fc.oneof(
    fc.constantFrom('', 'TG-0000', 'TG-123456789-abcdef'),
    lowerHex(32),
    fc.string({ unit: 'grapheme', maxLength: 60 }).map(encodeURIComponent),
    fc.integer({ min: 3000, max: 5000 }).map((n) => 'c'.repeat(n)),
  );
  const error = fc.oneof(
    fc.constantFrom('access_denied', 'invalid_scope', 'server_error'),
    fc.string({ maxLength: 40 }).map(encodeURIComponent),
  );
  return queryOf(fc.record({ code, state, error }, { requiredKeys: [] }));
}

/** Neighbours of the connect routes: other spellings, a tail too many, a segment short. */
const TOKEN_TAILS = [
  '/',
  '/xyz',
  '/START',
  '/start/',
  '//start',
  ...LINK_FORMS.map((n) => `/${n}/`),
];
const CONNECT_NEIGHBOURS = [
  '/connect',
  '/connect/',
  ...CONNECTABLE.map((name) => `/connect/${name}`),
  ...CALLBACKS.flatMap((route) => [
    `/${route}`,
    route.replace('/connect', '/CONNECT'),
    `${route}/`,
  ]),
];

/** The connect routes (CONTRACT "Connecting a shop's provider account"), and their neighbours. */
export function connectPath(world: InboundWorld): fc.Arbitrary<string> {
  const value = connectValue(world.linkTokens);
  const form = fc.constantFrom(...LINK_FORMS);
  return fc.oneof(
    { weight: 3, arbitrary: value.map((token) => `/connect/${token}`) },
    { weight: 3, arbitrary: value.map((token) => `/connect/${token}/start`) },
    {
      weight: 3,
      arbitrary: fc.tuple(value, form).map(([token, name]) => `/connect/${token}/${name}`),
    },
    {
      weight: 6,
      arbitrary: fc
        .tuple(fc.constantFrom(...CALLBACKS), callbackQuery(value))
        .map(([route, query]) => route + query),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(value, fc.constantFrom(...TOKEN_TAILS))
        .map(([token, tail]) => `/connect/${token}${tail}`),
    },
    { weight: 1, arbitrary: fc.constantFrom(...CONNECT_NEIGHBOURS) },
  );
}

/** A checkout id: of the form of one of a world's shops (or the env shop's), or hostile. */
export function checkoutId(world: InboundWorld): fc.Arbitrary<string> {
  const shop = fc.option(fc.constantFrom(...world.shops), { nil: undefined });
  return fc.oneof(
    fc
      .tuple(shop, lowerHex(24))
      .map(([named, random]) => (named ? `chk_${named}_${random}` : `chk_${random}`)),
    hostileId,
  );
}

/** A shop as a path names it: one of the world's, the env shop, or hostile. */
export function shopSegment(world: InboundWorld): fc.Arbitrary<string> {
  return fc.oneof(fc.constantFrom(...world.shops, 'default'), hostileId);
}

/**
 * A value for a route's parameter, by its name: a checkout id, a shop, a link token or a state
 * (the generic connect route's two segments), a provider's name; anything else hostile.
 */
function parameter(name: string, world: InboundWorld): fc.Arbitrary<string> {
  if (name === 'checkoutId') return checkoutId(world);
  if (name === 'shop') return shopSegment(world);
  if (name === 'provider') return fc.oneof(fc.constantFrom(...PROVIDER_NAMES), hostileId);
  if (['token', 'first', 'second'].includes(name)) {
    return fc.oneof(connectValue(world.linkTokens), fc.constantFrom(...PROVIDER_NAMES), hostileId);
  }
  return hostileId;
}

/** A route's path (`/pix/:checkoutId/status`) with each parameter drawn by its name. */
export function routePath(route: string, world: InboundWorld): fc.Arbitrary<string> {
  const parts = route.split('/').map((part) => {
    const name = /^[:*](\w+)$/.exec(part)?.[1];
    return name === undefined ? fc.constant(part) : parameter(name, world);
  });
  return fc.tuple(...parts).map((drawn) => drawn.join('/'));
}

/** The providers' own pages (the sandbox's and its buttons, the API Pix's), and their neighbours. */
export function providerPagePath(world: InboundWorld): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.oneof(...PAGE_ROUTES.map((route) => routePath(route, world))) },
    fc.constantFrom(
      ...PAGE_PREFIXES.flatMap((prefix) => [prefix, `${prefix}/`]),
      ...PAGE_ROUTES.filter((route) => !route.includes(':')).map((literal) => `${literal}/`),
    ),
  );
}

/** A shop for a path under `provider`'s name: most often the registry's shop on it, if any. */
function shopUnder(provider: string, world: InboundWorld): fc.Arbitrary<string> {
  const own = world.shopOf[provider];
  return own
    ? fc.oneof({ weight: 2, arbitrary: fc.constant(own) }, shopSegment(world))
    : shopSegment(world);
}

/**
 * The providers' webhooks: the env shop's; a registry shop's under every provider's name; a
 * provider's own path (`/webhooks/<name>/<shop>/<suffix>`); a connectable provider's platform
 * events (`/webhooks/<name>-connect`, served for those whose flow takes them).
 */
export function webhookPath(world: InboundWorld): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constant(`/webhooks/${world.provider}`),
    fc
      .tuple(
        fc.constantFrom(
          `/webhooks/${world.provider}?`,
          `/webhooks/${world.provider}?type=payment&data.id=`,
        ),
        hostileId,
      )
      .map(([p, id]) => p + id),
    {
      weight: 2,
      arbitrary: fc.oneof(
        ...PROVIDER_NAMES.map((name) =>
          shopUnder(name, world).map((shop) => `/webhooks/${name}/${shop}`),
        ),
      ),
    },
    {
      weight: 3,
      arbitrary: fc.oneof(
        ...SUFFIXED.map(({ name, webhookSuffix }) =>
          shopUnder(name, world).map((shop) => `/webhooks/${name}/${shop}/${webhookSuffix}`),
        ),
      ),
    },
    fc.constantFrom(
      ...CONNECTABLE.flatMap((name) => [`/webhooks/${name}-connect`, `/webhooks/${name}-connect/`]),
      '/webhooks/',
    ),
    hostileId.map((id) => `/webhooks/${id}`),
  );
}

/** Connect's routes, the providers' own pages and webhooks, and their neighbours. */
export function providerEndpointPath(world: InboundWorld): fc.Arbitrary<string> {
  return fc.oneof(connectPath(world), providerPagePath(world), webhookPath(world));
}
