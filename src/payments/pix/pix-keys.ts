import { shopTag } from '../../redis/keyspace';

/* The API Pix's own keys, under the shop's tag (purged with the shop's data). */

/** A Pix charge of one shop's checkout, as its page shows it (src/payments/pix/pix-charges.ts). */
export function pixChargeKey(prefix: string, shop: string, checkoutId: string): string {
  return `${shopTag(prefix, shop)}:pix:${checkoutId}`;
}

/** Until when one shop's received Pix were swept (`GET /pix`), ISO. */
export function pixSweepKey(prefix: string, shop: string): string {
  return `${shopTag(prefix, shop)}:pix-swept`;
}
