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

/**
 * A browser's cookies, as far as the connect flow needs them: what an origin sets is sent back to
 * that origin (and to no other), so a flow followed with one `Browser` is one browser's, and a
 * URL opened with a fresh one is another browser's.
 */
export class Browser {
  private readonly jars = new Map<string, Map<string, string>>();

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const origin = new URL(url).origin;
    const jar = this.jars.get(origin) ?? new Map<string, string>();
    this.jars.set(origin, jar);
    const headers = new Headers(init.headers);
    if (jar.size > 0) {
      headers.set('cookie', [...jar].map(([name, value]) => `${name}=${value}`).join('; '));
    }
    const response = await fetch(url, { redirect: 'manual', ...init, headers });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      if (at > 0) jar.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
    return response;
  }

  /** The cookies `origin` set, as this browser holds them. */
  cookies(origin: string): ReadonlyMap<string, string> {
    return this.jars.get(origin) ?? new Map();
  }
}
