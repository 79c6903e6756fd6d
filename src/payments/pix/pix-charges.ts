import { pixChargeKey, pixSweepKey } from './pix-keys';
import type { RedisCommands } from '../../redis/redis';

export interface PixCharge {
  checkoutId: string;
  serviceId: number;
  txid: string;
  pixCopiaECola: string;
  amountMinor: number;
  currency: string;
  expiresAt: string;
  returnUrl: string;
}

/** Where one shop's Pix charges and the end of its last sweep of received Pix are kept. */
export interface PixCharges {
  find(checkoutId: string): Promise<PixCharge | undefined>;
  /** Keeps `charge` unless one was kept first; resolves with the one kept. */
  keep(charge: PixCharge): Promise<PixCharge>;
  sweptUntil(): Promise<Date | undefined>;
  markSwept(until: Date): Promise<void>;
  /**
   * Whether this process may sweep now: at most one sweep per `everyMs` for the shop, whichever
   * process asks first (a key with that lifetime).
   */
  claimSweep(everyMs: number): Promise<boolean>;
}

/** Kept a week past the checkout's expiry, as a provider's created checkouts are. */
const KEPT_PAST_EXPIRY_MS = 7 * 24 * 3_600_000;

function read(text: string | null): PixCharge | undefined {
  if (!text) return undefined;
  const charge = JSON.parse(text) as Partial<PixCharge>;
  return typeof charge.txid === 'string' && typeof charge.pixCopiaECola === 'string'
    ? (charge as PixCharge)
    : undefined;
}

export function redisPixCharges(redis: RedisCommands, prefix: string, scope: string): PixCharges {
  const key = (checkoutId: string) => pixChargeKey(prefix, scope, checkoutId);
  const swept = pixSweepKey(prefix, scope);
  return {
    find: async (checkoutId) => read(await redis.get(key(checkoutId))),
    keep: async (charge) => {
      const ttlMs = Math.max(0, Date.parse(charge.expiresAt) - Date.now()) + KEPT_PAST_EXPIRY_MS;
      const set = await redis.set(
        key(charge.checkoutId),
        JSON.stringify(charge),
        'PX',
        ttlMs,
        'NX',
      );
      if (set === 'OK') return charge;
      return read(await redis.get(key(charge.checkoutId))) ?? charge;
    },
    sweptUntil: async () => {
      const text = await redis.get(swept);
      const at = text ? Date.parse(text) : Number.NaN;
      return Number.isFinite(at) ? new Date(at) : undefined;
    },
    markSwept: async (until) => {
      await redis.set(swept, until.toISOString());
    },
    claimSweep: async (everyMs) =>
      (await redis.set(`${swept}:claim`, '1', 'PX', everyMs, 'NX')) === 'OK',
  };
}
