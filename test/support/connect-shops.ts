import type { Harness } from './harness';

/*
 * What the connect suites share: the admin API with a token, and a shop on the sandbox (to be
 * connected) whose platform account the simulator knows.
 */

/** The admin API of the harness's connector, called with `token`. */
export function adminApi(
  h: () => Harness,
  token: string,
): (path: string, init?: RequestInit) => Promise<Response> {
  return (path, init = {}) =>
    fetch(`${h().url}/admin/api${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${token}`,
        ...(init.body ? { 'content-type': 'application/json' } : {}),
      },
    });
}

/** Adds a shop on the sandbox; answers its platform account and checkout route (with its token). */
export async function addSandboxShop(
  h: Harness,
  admin: ReturnType<typeof adminApi>,
  id: string,
  name = `Loja ${id}`,
): Promise<{
  platform: { email: string; password: string; apiKey: string };
  route: { url: string; token: string };
}> {
  const platform = { email: `${id}@shops.example.com`, password: `pw-${id}`, apiKey: `key-${id}` };
  h.simulator.state.addAccount(platform);
  const response = await admin('/shops', {
    method: 'POST',
    body: JSON.stringify({ id, name, platform, provider: { name: 'sandbox' } }),
  });
  if (response.status !== 201) {
    throw new Error(`adding shop ${id} answered ${response.status}: ${await response.text()}`);
  }
  const added = (await response.json()) as { checkout_route: { url: string; token: string } };
  return { platform, route: added.checkout_route };
}
