import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../src/config';
import { servedShops } from '../../../src/main/shop-deps';
import { ShopRuntimeDirectory, type ShopRuntime } from '../../../src/main/shop-runtime-directory';
import type { ShopSettings, ShopSource } from '../../../src/shop-registry/shop-settings';
import { ENV_SHOP_ID } from '../../../src/shop/shop-id';

/*
 * Which shops a process serves (src/main/shop-deps.ts): the registry's, and the env shop when the
 * environment describes one. A job's verdict (`forJob`) tells a removed shop (`gone`: its work is
 * dropped) from one this process does not serve (`unserved`: its work waits for one that does).
 */
const emptyDir = mkdtempSync(path.join(tmpdir(), 'served-shops-'));
const host = {
  PLATFORM_BASE_URL: 'https://apis.example.com/',
  REDIS_URL: 'redis://127.0.0.1:6379',
  PAYMENT_PROVIDER: 'sandbox',
};
const envShop = {
  PLATFORM_EMAIL: 'erp@example.com',
  PLATFORM_PASSWORD: 'pw-123456',
  PLATFORM_API_KEY: 'key-abcdef',
  CHECKOUT_ROUTE_TOKEN: 'route-token-0123456789',
};

/** A registry holding one shop, `loja-a`, of incarnation `i2`. */
const registry: ShopSource = {
  get: () => undefined,
  ids: () => ['loja-a'],
  fresh: async (id) =>
    id === 'loja-a'
      ? { settings: undefined, stored: 'i2' }
      : { settings: undefined, stored: undefined },
};

function directoryOver(env: Record<string, string>) {
  const built: string[] = [];
  const directory = new ShopRuntimeDirectory(
    servedShops(loadConfig(env, emptyDir), registry),
    (settings: ShopSettings) => {
      built.push(settings.id);
      return { settings } as ShopRuntime;
    },
  );
  return { directory, built };
}

describe('the shops a process serves', () => {
  it('serves the env shop beside the registry when the environment describes one', async () => {
    const { directory, built } = directoryOver({ ...host, ...envShop });
    expect(directory.ids()).toEqual([ENV_SHOP_ID, 'loja-a']);
    expect(await directory.forJob(ENV_SHOP_ID, '')).toBe('served');
    expect((await directory.byId(ENV_SHOP_ID))?.settings.id).toBe(ENV_SHOP_ID);
    expect(built).toEqual([ENV_SHOP_ID]);
  });

  it("leaves the env shop's jobs to another process when its variables are not here", async () => {
    const { directory, built } = directoryOver(host);
    expect(directory.ids()).toEqual(['loja-a']);
    expect(await directory.forJob(ENV_SHOP_ID, '')).toBe('unserved');
    expect(await directory.byId(ENV_SHOP_ID)).toBeUndefined();
    expect(built).toEqual([]);
  });

  it('drops the work of a removed shop, or of an earlier incarnation of its id', async () => {
    const { directory } = directoryOver({ ...host, ...envShop });
    expect(await directory.forJob('loja-b', 'i1')).toBe('gone');
    expect(await directory.forJob('loja-a', 'i1')).toBe('gone');
    // Stored as i2 but not opened here (a master key this process lacks): its work waits.
    expect(await directory.forJob('loja-a', 'i2')).toBe('unserved');
  });
});
