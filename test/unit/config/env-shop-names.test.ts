import { newCheckoutId, shopOfCheckout } from '../../../src/checkout/checkout-record';
import { signatureHeader, verifySignature } from '../../../src/erp/signature';
import { jobIds } from '../../../src/jobs/queue-names';
import { ENV_SHOP_ID, namedShop, shopOrEnv, webhookPath } from '../../../src/shop/shop-id';

/*
 * The env shop's names from before many shops (src/shop/shop-id.ts): the shop `default` writes
 * no shop into an id, a path or a signature, and a name without one reads as the env shop's.
 */
describe("the env shop's names", () => {
  it('are the names without a shop, both ways', () => {
    expect(namedShop(ENV_SHOP_ID)).toBeUndefined();
    expect(namedShop('loja-a')).toBe('loja-a');
    expect(shopOrEnv(undefined)).toBe(ENV_SHOP_ID);
    expect(shopOrEnv('loja-a')).toBe('loja-a');
  });

  it('keep checkout ids and webhook paths as they were before shops', () => {
    const envId = newCheckoutId(ENV_SHOP_ID);
    expect(envId).toMatch(/^chk_[0-9a-f]{24}$/);
    expect(shopOfCheckout(envId)).toBe(ENV_SHOP_ID);
    expect(newCheckoutId()).toMatch(/^chk_[0-9a-f]{24}$/);
    const shopId = newCheckoutId('loja-a');
    expect(shopId).toMatch(/^chk_loja-a_[0-9a-f]{24}$/);
    expect(shopOfCheckout(shopId)).toBe('loja-a');
    expect(webhookPath('stripe', ENV_SHOP_ID)).toBe('/webhooks/stripe');
    expect(webhookPath('stripe', 'loja-a')).toBe('/webhooks/stripe/loja-a');
  });

  it('keep job ids as they were, and an unsigned shop reads as the env shop', () => {
    expect(jobIds.syncDeliver(ENV_SHOP_ID, 1001, 'f1')).toBe('sync-1001-f1');
    expect(jobIds.syncDeliver('loja-a', 1001, 'f1')).toBe('sync-loja-a-1001-f1');
    const header = signatureHeader('secret', '{}', 1_800_000_000);
    expect(header).not.toContain('shop=');
    expect(verifySignature('secret', '{}', header, 1_800_000_000)).toBe(ENV_SHOP_ID);
    const shopHeader = signatureHeader('secret', '{}', 1_800_000_000, 'loja-a');
    expect(verifySignature('secret', '{}', shopHeader, 1_800_000_000)).toBe('loja-a');
  });
});
