import { randomBytes } from 'node:crypto';
import type { PlatformSimulator } from '../../src/simulator/platform-simulator';
import { FakeAsaas } from './fake-asaas';
import { FakeMercadoPago } from './fake-mercadopago';
import { FakeStripe } from './fake-stripe';
import { FakePix } from './fake-pix';
import type { PixCertificates } from './pix-certificates';
import { makePixCertificatesApart } from './pix-certificates-apart';
import type { InboundWorld } from './provider-endpoint-paths';
import { connectorStarted, spawnConnector, type Spawned } from './spawn-ts';
import { vendorEnv } from './connect-shops';

/*
 * The connector processes the property test attacks: one per provider of the env shop, with the
 * limits off and no workers (nothing but the requests writes to Redis). The sandbox one also
 * serves a registry: the vendor's Mercado Pago, Stripe Connect and Asaas accounts (loopback
 * fakes), a shop on the API Pix (a fake PSP over mTLS), and a shop with a live link per linkable
 * provider, so that Connect's and Pix's routes answer as in production.
 */

export type ConnectorName = 'sandbox' | 'stripe' | 'mercadopago' | 'asaas';
export const CONNECTOR_NAMES: readonly ConnectorName[] = [
  'sandbox',
  'stripe',
  'mercadopago',
  'asaas',
];

export interface Target {
  name: ConnectorName;
  proc: Spawned;
  url: string;
  prefix: string;
}

export const DASHBOARD = { user: 'ops', password: 'property-dashboard-pw' };
/** The sandbox connector's admin API (CONTRACT "Shops"). */
export const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;
/** The shop the admin API's verbs act on (the admin test may disable, rotate or remove it). */
export const SHOP_ID = 'prop-shop';
/** Its platform account (the simulator knows it): a shop document may name it again. */
export const SHOP_PLATFORM = {
  email: 'prop-shop@shops.example.com',
  password: `pw-${randomBytes(6).toString('hex')}`,
  apiKey: `key-${randomBytes(6).toString('hex')}`,
};
/** A shop on the API Pix: its webhook `/webhooks/pix/prop-pix/pix`, its checkouts' pages. */
export const PIX_SHOP_ID = 'prop-pix';
/** A sandbox shop per linkable provider, each with a live link to connect it. */
const LINKED_SHOPS = { mercadopago: 'prop-mp', stripe: 'prop-stripe', asaas: 'prop-asaas' };
/** Every shop of the registry, as the start leaves them. */
export const REGISTRY_SHOPS = [SHOP_ID, PIX_SHOP_ID, ...Object.values(LINKED_SHOPS)];

/** What the paths sent to a connector may name: the registry's shops, its Pix shop, the links. */
export function inboundWorld(provider: string, linkTokens: readonly string[]): InboundWorld {
  return { provider, shops: REGISTRY_SHOPS, pixShops: [PIX_SHOP_ID], linkTokens };
}

/** The fake PSP of the Pix shop, and the certificates of its mutual TLS. */
interface PixBank {
  certs: PixCertificates;
  pix: FakePix;
}

export class PropertyConnectors {
  readonly targets: Target[] = [];
  /** The live links' tokens: the right to connect a shop, never to be logged. */
  readonly linkTokens: string[] = [];
  private readonly spawned: Spawned[] = [];
  private readonly stripe = new FakeStripe();
  private readonly mercadopago = new FakeMercadoPago();
  private readonly asaas = new FakeAsaas();
  private made: PixBank | undefined;

  async start(redisUrl: string, simulator: PlatformSimulator): Promise<void> {
    await Promise.all([this.stripe.start(), this.mercadopago.start(), this.asaas.start()]);
    const spawn = async (name: ConnectorName, env: Record<string, string>) => {
      const prefix = `prop-${name}-${process.pid}`;
      const proc = spawnConnector(redisUrl, simulator.url, {
        ...env,
        // No workers: nothing but the requests writes to Redis.
        ROLE: 'api',
        QUEUE_PREFIX: prefix,
        // Limits off, so every request reaches its handler (they have tests of their own).
        RATE_LIMIT_CHECKOUT_FAILURES: '0',
        RATE_LIMIT_WEBHOOK_FAILURES: '0',
        RATE_LIMIT_PAGES: '0',
        RATE_LIMIT_DASHBOARD_FAILURES: '0',
      });
      this.spawned.push(proc);
      const { port } = await connectorStarted(proc, 30_000);
      this.targets.push({ name, proc, url: `http://127.0.0.1:${port}`, prefix });
    };
    // The sandbox connector waits for the fake PSP; the others need not.
    const registry = async (): Promise<PixBank> => {
      const certs = await makePixCertificatesApart();
      const pix = new FakePix({ certs });
      this.made = { certs, pix };
      await pix.start();
      await spawn('sandbox', this.registryEnv(this.made));
      return this.made;
    };
    const [bank] = await Promise.all([
      registry(),
      spawn('stripe', this.stripe.env()),
      spawn('mercadopago', this.mercadopago.env()),
      spawn('asaas', this.asaas.env()),
    ]);
    await this.seedRegistry(simulator, bank);
  }

  async stop(): Promise<void> {
    for (const proc of this.spawned) {
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
    await Promise.all([this.stripe.stop(), this.mercadopago.stop(), this.asaas.stop()]);
    await this.made?.pix.stop();
    await this.made?.certs.remove();
  }

  target(name: ConnectorName): Target {
    const found = this.targets.find((t) => t.name === name);
    if (!found) throw new Error(`no ${name} connector`);
    return found;
  }

  /** What the paths sent to `name` may name: the registry's shops and links are everyone's. */
  world(name: ConnectorName): InboundWorld {
    return inboundWorld(name, this.linkTokens);
  }

  /** Every shop document of the registry, as the admin API lists them. */
  async shopDocuments(): Promise<string> {
    const answer = await this.admin('/shops');
    return `${answer.status} ${await answer.text()}`;
  }

  /** The vendor's accounts at the fakes, the shops' secrets, the admin API and the dashboard. */
  private registryEnv(made: PixBank): Record<string, string> {
    const { mercadopago: mp, stripe, asaas } = this;
    return {
      // Every line a request may write, at any level, is read for link tokens.
      LOG_LEVEL: 'debug',
      DASHBOARD_USER: DASHBOARD.user,
      DASHBOARD_PASSWORD: DASHBOARD.password,
      ADMIN_TOKEN,
      SHOP_SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      ...vendorEnv({ mp, stripe, asaas }),
      PROVIDER_API_ORIGINS: [mp.url, stripe.url, asaas.url, made.pix.url].join(','),
      // The fake PSP's server certificate, as a deployment trusts its bank's.
      NODE_EXTRA_CA_CERTS: made.certs.files.ca,
    };
  }

  /** The shops through the admin API, and a link for each linked one. */
  private async seedRegistry(simulator: PlatformSimulator, { certs, pix }: PixBank): Promise<void> {
    const sandbox = { name: 'sandbox' };
    const pixProvider = {
      name: 'pix',
      psp: 'efi',
      apiUrl: pix.apiUrl,
      clientId: pix.clientId,
      clientSecret: pix.clientSecret,
      certificate: certs.clientPem,
      pixKey: pix.pixKey,
    };
    for (const id of REGISTRY_SHOPS) {
      const provider = id === PIX_SHOP_ID ? pixProvider : sandbox;
      const platform =
        id === SHOP_ID
          ? SHOP_PLATFORM
          : {
              email: `${id}@shops.example.com`,
              password: `pw-${randomBytes(6).toString('hex')}`,
              apiKey: `key-${randomBytes(6).toString('hex')}`,
            };
      simulator.state.addAccount(platform);
      await this.expectAnswer(201, '/shops', { id, name: `Loja ${id}`, platform, provider });
    }
    for (const [provider, id] of Object.entries(LINKED_SHOPS)) {
      const made = await this.expectAnswer(201, `/shops/${id}/connect`, { provider });
      const { url } = JSON.parse(made) as { url: string };
      this.linkTokens.push(new URL(url).pathname.split('/').at(-1) ?? '');
    }
  }

  private admin(path: string, body?: unknown): Promise<Response> {
    return fetch(`${this.target('sandbox').url}/admin/api${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  private async expectAnswer(status: number, path: string, body: unknown): Promise<string> {
    const answer = await this.admin(path, body);
    const text = await answer.text();
    if (answer.status !== status)
      throw new Error(`POST ${path} answered ${answer.status}: ${text}`);
    return text;
  }
}
