import calculateSlot from 'cluster-key-slot';
import { isCheckoutId, newCheckoutId, shopOfCheckout } from '../../../src/checkout/checkout-record';
import {
  breakerKey,
  createdCheckoutKey,
  queuePrefix,
  rateLimitPrefix,
  shopTag,
  syncLedgerKey,
} from '../../../src/redis/keyspace';
import { jobIds, produceJobSchema, QUEUES } from '../../../src/jobs/queue-names';
import { pixChargeKey, pixSweepKey } from '../../../src/payments/pix/pix-keys';
import { sandboxKey } from '../../../src/payments/sandbox/sandbox-keys';
import { checkoutKeys } from '../../../src/store/checkout-keys';
import { layout2KeyOf } from '../../../src/store/layout-migration';

/** Every key of one shop's data, as the store, the sandbox and the ledger name them. */
function shopKeys(prefix: string, shop: string): string[] {
  const keys = checkoutKeys(prefix, shop);
  const id = newCheckoutId(shop);
  return [
    keys.record(id),
    keys.service(1001),
    keys.history(1001),
    keys.ref('stripe', 'cs_test_1'),
    keys.due,
    keys.parked,
    keys.unreadable,
    keys.event('stripe', 'evt_1'),
    sandboxKey(prefix, shop, id),
    pixChargeKey(prefix, shop, id),
    pixSweepKey(prefix, shop),
    createdCheckoutKey(prefix, shop, 'asaas', id),
    syncLedgerKey(prefix, shop),
    breakerKey(prefix, shop),
  ];
}

describe('the Redis keyspace', () => {
  it('puts every key of one shop in one slot, under a tag that begins with the prefix', () => {
    for (const shop of ['default', 'acme-moveis', 'x9']) {
      const keys = shopKeys('connector', shop);
      expect(keys.every((key) => key.startsWith(`${shopTag('connector', shop)}:`))).toBe(true);
      expect(new Set(keys.map(calculateSlot)).size).toBe(1);
    }
  });

  it('spreads shops and queues over slots, and never mixes two of them in a tag', () => {
    const tags = [
      ...['default', 'acme', 'beta', 'gamma'].map((shop) => shopTag('connector', shop)),
      ...Object.values(QUEUES).map((queue) => queuePrefix('connector', queue)),
      `${rateLimitPrefix('connector', 'checkout').split('}')[0]}}`,
    ];
    expect(new Set(tags).size).toBe(tags.length);
    expect(new Set(tags.map(calculateSlot)).size).toBeGreaterThan(4);
    // A shop named like a queue still gets a tag of its own.
    expect(shopTag('connector', 'checkout')).not.toBe(queuePrefix('connector', 'checkout'));
  });

  it('keeps a BullMQ queue in one slot: its prefix is the tag', () => {
    const prefix = queuePrefix('connector', QUEUES.notifications);
    const keys = ['wait', 'active', 'delayed', 'failed', 'meta', 'events', 'finish-chk_1'].map(
      (suffix) => `${prefix}:${QUEUES.notifications}:${suffix}`,
    );
    expect(new Set(keys.map(calculateSlot)).size).toBe(1);
  });
});

describe('checkout ids name their shop', () => {
  it("reads the shop back from an id; the env shop's ids are as before many shops", () => {
    const env = newCheckoutId();
    expect(env).toMatch(/^chk_[0-9a-f]{24}$/);
    expect(shopOfCheckout(env)).toBe('default');
    const acme = newCheckoutId('acme-moveis');
    expect(acme).toMatch(/^chk_acme-moveis_[0-9a-f]{24}$/);
    expect(isCheckoutId(acme)).toBe(true);
    expect(shopOfCheckout(acme)).toBe('acme-moveis');
    for (const forged of [
      'chk_ACME_0123456789abcdef01234567',
      'chk_a_0123456789abcdef01234567',
      'chk_-x_0123456789abcdef01234567',
      'chk_acme_0123',
    ]) {
      expect(shopOfCheckout(forged)).toBeUndefined();
    }
  });

  it('refuses a job whose shop is not the one its checkout names', () => {
    const checkoutId = newCheckoutId('acme');
    expect(
      produceJobSchema.safeParse({ shop: 'acme', checkoutId, jobKey: checkoutId }).success,
    ).toBe(true);
    expect(
      produceJobSchema.safeParse({ shop: 'beta', checkoutId, jobKey: checkoutId }).success,
    ).toBe(false);
    // A job queued before many shops names none: the env shop's, whose ids name none either.
    const old = newCheckoutId();
    expect(produceJobSchema.parse({ checkoutId: old, jobKey: old }).shop).toBe('default');
    expect(produceJobSchema.safeParse({ checkoutId, jobKey: checkoutId }).success).toBe(false);
  });

  it("keeps the env shop's sync job ids, and gives another shop's its own", () => {
    const item = { serviceId: 7, fingerprint: 'ab' };
    expect(jobIds.syncDeliver('default', 7, 'ab')).toBe('sync-7-ab');
    expect(jobIds.syncDeliver('acme', 7, 'ab')).toBe('sync-acme-7-ab');
    expect(jobIds.syncBatch('acme', [item])).not.toBe(jobIds.syncBatch('default', [item]));
  });
});

describe('the move from layout 1', () => {
  it.each([
    [
      'connector:chk:chk_0123456789abcdef01234567',
      '{connector:shop:default}:chk:chk_0123456789abcdef01234567',
      'checkouts',
    ],
    ['connector:chk-service:1001', '{connector:shop:default}:chk-service:1001', 'checkouts'],
    ['connector:chk-due', '{connector:shop:default}:chk-due', 'checkouts'],
    ['connector:chk-parked', '{connector:shop:default}:chk-parked', 'checkouts'],
    [
      'connector:chk-event:stripe:evt_1',
      '{connector:shop:default}:chk-event:stripe:evt_1',
      'checkouts',
    ],
    ['connector:sandbox:chk_x', '{connector:shop:default}:sandbox:chk_x', 'checkouts'],
    ['connector:sync:fp', '{connector:shop:default}:sync-fp', 'ledger'],
    ['connector:sync:meta', '{connector:queue:sync}:sync:meta', 'queues'],
    [
      'connector:checkout:repeat:reconcile',
      '{connector:queue:checkout}:checkout:repeat:reconcile',
      'queues',
    ],
    [
      'connector:notifications:finish-chk_1',
      '{connector:queue:notifications}:notifications:finish-chk_1',
      'queues',
    ],
    ['connector:rl:pages:127.0.0.1', '{connector:rl}:pages:127.0.0.1', 'rateLimits'],
  ])('moves %s to %s', (from, to, family) => {
    expect(layout2KeyOf('connector', from)).toEqual({ to, family });
  });

  it("leaves what is not layout 1's: another prefix's keys, and keys it never wrote", () => {
    for (const key of [
      'other:chk:x',
      'connectorx:chk:x',
      'connector:unknown:x',
      '{connector:shop:default}:chk-due',
    ]) {
      expect(layout2KeyOf('connector', key)).toBeUndefined();
    }
  });
});
