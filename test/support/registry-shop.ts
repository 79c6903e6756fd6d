import { randomBytes } from 'node:crypto';
import { shopScope } from '../../src/redis/keyspace';
import type { Harness } from './harness';

/**
 * The scope of a shop's data keys as it is stored now (its id and incarnation): what a test that
 * writes or counts a registry shop's keys by hand puts in their hash tag.
 */
export async function dataScopeOf(h: Harness, shop: string): Promise<string> {
  const runtime = await h.connector.directory.byId(shop);
  if (!runtime) throw new Error(`shop ${shop} is not served`);
  return shopScope(shop, runtime.settings.incarnation);
}

/** A platform account of a new shop, known to the harness's simulator. */
export function newPlatformAccount(
  h: Harness,
  tag: string,
): { email: string; password: string; apiKey: string } {
  const account = {
    email: `${tag}@shops.example.com`,
    password: `pw-${tag}-${randomBytes(6).toString('hex')}`,
    apiKey: `key-${tag}-${randomBytes(6).toString('hex')}`,
  };
  h.simulator.state.addAccount(account);
  return account;
}

/** The admin API of the harness's connector, with its token. */
export function adminApi(h: Harness, adminToken: string) {
  return (path: string, init: RequestInit = {}) =>
    fetch(`${h.url}/admin/api${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${adminToken}`,
        ...(init.body ? { 'content-type': 'application/json' } : {}),
      },
    });
}

/**
 * Adds a sandbox shop through the admin API (`ADMIN_TOKEN` in the harness), with a platform
 * account the simulator knows, and opens a checkout of `serviceId` on its own route: what a
 * vendor's ERP does for a new shop. Resolves once the route answered 202.
 */
export async function openCheckoutOfNewShop(
  h: Harness,
  adminToken: string,
  shop: { id: string; name: string; platform: { email: string; password: string; apiKey: string } },
  serviceId: number,
): Promise<void> {
  h.simulator.state.addAccount(shop.platform);
  const added = await adminApi(h, adminToken)('/shops', {
    method: 'POST',
    body: JSON.stringify({ ...shop, provider: { name: 'sandbox' } }),
  });
  expect(added.status).toBe(201);
  const { checkout_route: route } = (await added.json()) as {
    checkout_route: { url: string; token: string };
  };
  await h.connector.registry.refresh();
  const opened = await requestOnRoute(route, serviceId);
  expect(opened.status).toBe(202);
}

/** The platform asks a shop's checkout route for a checkout of `serviceId`, with the route's token. */
export function requestOnRoute(
  route: { url: string; token: string },
  serviceId: number,
): Promise<Response> {
  return fetch(route.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${route.token}` },
    body: JSON.stringify({ service_id: serviceId }),
  });
}
