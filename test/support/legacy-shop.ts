import { closeRedis, createRedis, waitForRedis } from '../../src/redis/redis';
import type { ShopDocument } from '../../src/shop-registry/shop-document';
import { sealShop } from '../../src/shop-registry/stored-shop';
import { DataKey, newRouteToken, parseKeyring } from '../../src/secrets/secret-box';
import { RedisShopRegistry } from '../../src/store/redis-shop-registry';
import type { Harness } from './harness';

/**
 * Writes a shop straight into the registry, as an earlier release stored it (before today's
 * rules on names and provider hosts), with `keys` (the harness's SHOP_SECRET_KEYS). Answers
 * its route token, and whether the registry still holds it (nothing must delete it).
 */
export async function storeShopAsBefore(
  h: Harness,
  keys: string,
  document: ShopDocument,
): Promise<{ token: string; stillStored: () => Promise<boolean> }> {
  const keyring = parseKeyring(keys);
  if ('problems' in keyring) throw new Error(keyring.problems.join('; '));
  const token = newRouteToken();
  const dataKey = DataKey.generate();
  const now = new Date().toISOString();
  const routeToken = { hash: dataKey.tokenHash(document.id, token), rotatedAt: now };
  const stored = sealShop(
    document,
    { keyring, dataKey },
    { enabled: true, createdAt: now, updatedAt: now, routeToken },
  );
  const store = async <T>(use: (registry: RedisShopRegistry) => Promise<T>): Promise<T> => {
    const redis = createRedis(h.redis.url, 'producer', 'legacy-shop-writer');
    try {
      if (!(await waitForRedis(redis, 5000))) throw new Error('Redis did not answer');
      return await use(new RedisShopRegistry(redis, h.prefix));
    } finally {
      await closeRedis(redis);
    }
  };
  const audit = { at: now, by: 'cli:earlier-release', action: 'added' as const, fields: [] };
  if (!(await store((registry) => registry.create(stored, audit))))
    throw new Error(`shop ${document.id} exists`);
  return {
    token,
    stillStored: () => store(async (registry) => (await registry.get(document.id)) !== undefined),
  };
}
