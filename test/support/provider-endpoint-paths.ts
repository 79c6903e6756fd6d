import fc from 'fast-check';
import { hostileId } from './inbound-requests';

/*
 * The paths of Connect and of a provider's own endpoints (CONTRACT "Connect and a provider's own
 * endpoints, safe by construction"), as hostile clients write them: inbound-paths.ts joins them
 * to the rest.
 */

/** What one connector's paths name: its env shop's provider, the registry's shops, the live links. */
export interface InboundWorld {
  /** The env shop's provider: its webhook is `/webhooks/<provider>`. */
  provider: string;
  /** Ids of the registry's shops (the first one is the admin API's own). */
  shops: readonly string[];
  /** Those of them on the API Pix, whose webhook and pages answer. */
  pixShops: readonly string[];
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

/** The connect routes (CONTRACT "Connecting a shop's provider account"), and their neighbours. */
export function connectPath(world: InboundWorld): fc.Arbitrary<string> {
  const value = connectValue(world.linkTokens);
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
  return fc.oneof(
    { weight: 3, arbitrary: value.map((token) => `/connect/${token}`) },
    { weight: 3, arbitrary: value.map((token) => `/connect/${token}/start`) },
    { weight: 3, arbitrary: value.map((token) => `/connect/${token}/asaas`) },
    {
      weight: 3,
      arbitrary: queryOf(fc.record({ code, state: value, error }, { requiredKeys: [] })).map(
        (query) => `/connect/mercadopago/callback${query}`,
      ),
    },
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          fc.constantFrom('return', 'refresh'),
          queryOf(fc.record({ state: value }, { requiredKeys: [] })),
        )
        .map(([page, query]) => `/connect/stripe/${page}${query}`),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(value, fc.constantFrom('/', '/xyz', '/START', '/start/', '/asaas/', '//start'))
        .map(([token, tail]) => `/connect/${token}${tail}`),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '/connect',
        '/connect/',
        '//connect/stripe/return',
        '/CONNECT/stripe/return',
        '/connect/stripe/return/',
        '/connect/mercadopago/callback/',
        '/connect/mercadopago',
        '/connect/stripe',
      ),
    },
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

/** The API Pix's routes: the page, its poll and script, the shops' webhooks. */
export function pixPath(world: InboundWorld): fc.Arbitrary<string> {
  const id = checkoutId(world);
  const shop = shopSegment(world);
  const pixShop = world.pixShops.length > 0 ? fc.constantFrom(...world.pixShops) : shop;
  return fc.oneof(
    { weight: 3, arbitrary: pixShop.map((named) => `/webhooks/pix/${named}/pix`) },
    id.map((checkout) => `/pix/${checkout}`),
    id.map((checkout) => `/pix/${checkout}/status`),
    fc.constantFrom('/pix/assets/pix.js', '/pix/assets/pix.js/', '/pix', '/pix/'),
    shop.map((named) => `/webhooks/pix/${named}/pix`),
    shop.map((named) => `/webhooks/pix/${named}`),
  );
}

/** The providers' webhooks: the env shop's, a registry shop's, the Connect endpoint's. */
export function webhookPath(world: InboundWorld): fc.Arbitrary<string> {
  const provider = fc.constantFrom(world.provider, 'sandbox', 'stripe', 'mercadopago', 'asaas');
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
    fc.tuple(provider, shopSegment(world)).map(([name, shop]) => `/webhooks/${name}/${shop}`),
    fc.constantFrom('/webhooks/stripe-connect', '/webhooks/stripe-connect/', '/webhooks/'),
    hostileId.map((id) => `/webhooks/${id}`),
  );
}

/** Connect's routes, the API Pix's and the providers' webhooks, and their neighbours. */
export function providerEndpointPath(world: InboundWorld): fc.Arbitrary<string> {
  return fc.oneof(connectPath(world), pixPath(world), webhookPath(world));
}
