import type { CheckoutDeps } from '../../../src/checkout/checkout-deps';
import { CheckoutEntry, type CheckoutShop } from '../../../src/http/checkout-entry';

/*
 * The checkout route's entry matches a token once a request: the front door's gate matches it on
 * the shop as this process last saw it, and `open` skips a second match only while the shop as
 * stored now is that very settings object (the same stored text). A shop changed in between (a
 * token rotated, the shop disabled) is matched and judged again.
 */
const deps = {} as CheckoutDeps;

function shopWith(token: string, enabled = true) {
  const matched: string[] = [];
  const settings: CheckoutShop['settings'] = {
    enabled,
    needsReconnect: undefined,
    tokenMatches: (given) => {
      matched.push(String(given));
      return given === token;
    },
  };
  return { shop: { deps, settings }, matched };
}

function entryOf(cached: CheckoutShop, stored: CheckoutShop) {
  return new CheckoutEntry({ cached: () => cached, byId: async () => stored }, '/checkout');
}

describe('the checkout entry', () => {
  it('matches the token once when the shop as stored is the one the gate matched', async () => {
    const { shop, matched } = shopWith('the-token');
    const entry = entryOf(shop, shop);
    const opened = entry.opens('default', 'the-token');
    expect(opened).toBe(shop.settings);
    await expect(entry.open('default', 'the-token', opened)).resolves.toBe(deps);
    expect(matched).toEqual(['the-token']);
  });

  it('matches again, and refuses, once the stored shop changed its token since the gate', async () => {
    const before = shopWith('old-token');
    const after = shopWith('new-token');
    const entry = entryOf(before.shop, after.shop);
    const opened = entry.opens('default', 'old-token');
    expect(opened).toBe(before.shop.settings);
    await expect(entry.open('default', 'old-token', opened)).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    expect(after.matched).toEqual(['old-token']);
  });

  it('refuses a shop disabled since the gate, whose token still matches', async () => {
    const before = shopWith('the-token');
    const after = shopWith('the-token', false);
    const entry = entryOf(before.shop, after.shop);
    const opened = entry.opens('default', 'the-token');
    await expect(entry.open('default', 'the-token', opened)).rejects.toMatchObject({
      code: 'SHOP_DISABLED',
    });
  });

  it('opens nothing at the gate for a wrong token or a disabled shop', () => {
    const { shop } = shopWith('the-token');
    expect(entryOf(shop, shop).opens('default', 'wrong')).toBeUndefined();
    const disabled = shopWith('the-token', false).shop;
    expect(entryOf(disabled, disabled).opens('default', 'the-token')).toBeUndefined();
  });
});
