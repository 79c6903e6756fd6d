import type { FakeAsaas } from './fake-asaas';
import type { FakeMercadoPago } from './fake-mercadopago';
import type { FakeStripe } from './fake-stripe';
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

/** An owner's data as Asaas asks it for a company (a valid CNPJ's check digits, CEP, phone). */
export const ASAAS_COMPANY = {
  name: 'Marcenaria Ipê Ltda',
  email: 'dono@ipe.example',
  cpfCnpj: '11.222.333/0001-81',
  companyType: 'LIMITED',
  mobilePhone: '(11) 98765-4321',
  incomeValue: '25000',
  postalCode: '01310-100',
  address: 'Avenida Paulista',
  addressNumber: '1000',
  province: 'Bela Vista',
};

/** The vendor's accounts at the loopback fakes given, as the deployment's variables name them. */
export function vendorEnv(fakes: {
  mp?: FakeMercadoPago;
  stripe?: FakeStripe;
  asaas?: FakeAsaas;
}): Record<string, string> {
  const { mp, stripe, asaas } = fakes;
  return {
    ...(mp && {
      MERCADOPAGO_CLIENT_ID: mp.application.clientId,
      MERCADOPAGO_CLIENT_SECRET: mp.application.clientSecret,
      MERCADOPAGO_WEBHOOK_SECRET: mp.webhookSecret,
      MERCADOPAGO_AUTH_URL: mp.url,
      MERCADOPAGO_API_URL: mp.url,
    }),
    ...(stripe && {
      STRIPE_CONNECT_SECRET_KEY: stripe.secretKey,
      STRIPE_CONNECT_WEBHOOK_SECRET: stripe.connectWebhookSecret,
      STRIPE_API_URL: stripe.url,
    }),
    ...(asaas && { ASAAS_ROOT_API_KEY: asaas.rootApiKey, ASAAS_API_URL: `${asaas.url}/v3` }),
  };
}
