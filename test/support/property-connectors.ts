import { randomBytes } from 'node:crypto';
import { CONNECTABLE } from '../../src/connect/connect-links';
import { DEFAULT_PROVIDER, type ProviderName } from '../../src/payments/providers';
import type { PlatformSimulator } from '../../src/simulator/platform-simulator';
import type { InboundWorld } from './provider-endpoint-paths';
import type { ProviderFake } from './provider-suite';
import { providerDocumentOf, TEST_PROVIDER_LIST } from './providers';
import { connectorStarted, spawnConnector, type Spawned } from './spawn-ts';

/*
 * The connector processes the property test attacks: one per provider of the test registry, its
 * env shop on that provider's fake, with the limits off and no workers (nothing but the requests
 * writes to Redis). The default provider's (the sandbox's) also serves a registry: the vendor's
 * accounts of every connectable provider, a shop on every other provider (at its fake: a Pix
 * shop at a fake PSP over mTLS among them), and a shop with a live link per connectable
 * provider, so that Connect's and the providers' own routes answer as in production.
 */

export type ConnectorName = ProviderName;
export const CONNECTOR_NAMES: readonly ConnectorName[] = TEST_PROVIDER_LIST.map((row) => row.name);
/** The connector that serves the registry, the admin API and the dashboard. */
export const REGISTRY_CONNECTOR: ConnectorName = DEFAULT_PROVIDER;

export interface Target {
  name: ConnectorName;
  proc: Spawned;
  url: string;
  prefix: string;
}

export const DASHBOARD = { user: 'ops', password: 'property-dashboard-pw' };
/** The registry connector's admin API (CONTRACT "Shops"). */
export const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;
/** The shop the admin API's verbs act on (the admin test may disable, rotate or remove it). */
export const SHOP_ID = 'prop-shop';
/** Its platform account (the simulator knows it): a shop document may name it again. */
export const SHOP_PLATFORM = {
  email: 'prop-shop@shops.example.com',
  password: `pw-${randomBytes(6).toString('hex')}`,
  apiKey: `key-${randomBytes(6).toString('hex')}`,
};
/** The registry's shop on each provider (its webhooks, `/webhooks/<name>/<shop>...`, answer). */
const PROVIDER_SHOPS: Record<string, string> = Object.fromEntries(
  CONNECTOR_NAMES.map((name) => [name, name === REGISTRY_CONNECTOR ? SHOP_ID : `prop-${name}`]),
);
/** A shop on the default provider per connectable provider, each with a live link to connect it. */
const LINKED_SHOPS = Object.fromEntries(CONNECTABLE.map((name) => [name, `prop-link-${name}`]));
/** Every shop of the registry, as the start leaves them (the admin API's own first). */
export const REGISTRY_SHOPS = [...Object.values(PROVIDER_SHOPS), ...Object.values(LINKED_SHOPS)];

/** What the paths sent to a connector may name: the registry's shops, each provider's, the links. */
export function inboundWorld(provider: string, linkTokens: readonly string[]): InboundWorld {
  return { provider, shops: REGISTRY_SHOPS, shopOf: PROVIDER_SHOPS, linkTokens };
}

/** Every row's fake, started, with the variables that aim a shop at it. */
type Fakes = Map<ProviderName, { fake: ProviderFake; env: Record<string, string> }>;

/**
 * Variables of the deployment, not of one shop's provider, that a row's may set: a connector of
 * several providers takes every row's origins, and the one CA file a row needs trusted.
 */
function deploymentEnv(envs: ReadonlyArray<Record<string, string>>): Record<string, string> {
  const origins = envs.flatMap((env) => env.PROVIDER_API_ORIGINS ?? []);
  const cas = envs.flatMap((env) => env.NODE_EXTRA_CA_CERTS ?? []);
  if (cas.length > 1) throw new Error('Node trusts one extra CA file: join the rows’ CAs first');
  return {
    ...(origins.length > 0 && { PROVIDER_API_ORIGINS: origins.join(',') }),
    ...(cas[0] !== undefined && { NODE_EXTRA_CA_CERTS: cas[0] }),
  };
}

export class PropertyConnectors {
  readonly targets: Target[] = [];
  /** The live links' tokens: the right to connect a shop, never to be logged. */
  readonly linkTokens: string[] = [];
  private readonly spawned: Spawned[] = [];
  private readonly fakes: Fakes = new Map();

  async start(redisUrl: string, simulator: PlatformSimulator): Promise<void> {
    await Promise.all(
      TEST_PROVIDER_LIST.map(async (row) => {
        const fake = row.fake();
        await fake.start();
        this.fakes.set(row.name, { fake, env: row.env(fake) });
      }),
    );
    await Promise.all(
      CONNECTOR_NAMES.map((name) =>
        this.spawn(redisUrl, simulator, name, {
          ...this.fakeOf(name).env,
          ...(name === REGISTRY_CONNECTOR ? this.registryEnv() : {}),
        }),
      ),
    );
    await this.seedRegistry(simulator);
  }

  async stop(): Promise<void> {
    for (const proc of this.spawned) {
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
    await Promise.all([...this.fakes.values()].map(({ fake }) => fake.stop()));
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

  private fakeOf(name: ProviderName): { fake: ProviderFake; env: Record<string, string> } {
    const found = this.fakes.get(name);
    if (!found) throw new Error(`no ${name} fake`);
    return found;
  }

  private async spawn(
    redisUrl: string,
    simulator: PlatformSimulator,
    name: ConnectorName,
    env: Record<string, string>,
  ): Promise<void> {
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
    // A deadline for a hang: five processes compile and start at once on two busy cores.
    const { port } = await connectorStarted(proc, 90_000);
    this.targets.push({ name, proc, url: `http://127.0.0.1:${port}`, prefix });
  }

  /**
   * The vendor's accounts at the fakes, every fake's origin (and CA), the shops' secrets, the
   * admin API and the dashboard.
   */
  private registryEnv(): Record<string, string> {
    const rows = TEST_PROVIDER_LIST.map((row) => ({ row, ...this.fakeOf(row.name) }));
    const vendor = rows.flatMap(({ row, fake }) => Object.entries(row.vendorEnv?.(fake) ?? {}));
    return {
      // Every line a request may write, at any level, is read for link tokens.
      LOG_LEVEL: 'debug',
      DASHBOARD_USER: DASHBOARD.user,
      DASHBOARD_PASSWORD: DASHBOARD.password,
      ADMIN_TOKEN,
      SHOP_SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      ...Object.fromEntries(vendor),
      ...deploymentEnv(rows.map(({ env }) => env)),
    };
  }

  /** The shops through the admin API, and a link for each linked one. */
  private async seedRegistry(simulator: PlatformSimulator): Promise<void> {
    const documentOf = (name: ProviderName) => providerDocumentOf(this.fakeOf(name).env);
    const shops: Array<readonly [string, ProviderName]> = [
      ...Object.entries(PROVIDER_SHOPS).map(([name, id]) => [id, name as ProviderName] as const),
      ...Object.values(LINKED_SHOPS).map((id) => [id, REGISTRY_CONNECTOR] as const),
    ];
    for (const [id, provider] of shops) {
      const platform =
        id === SHOP_ID
          ? SHOP_PLATFORM
          : {
              email: `${id}@shops.example.com`,
              password: `pw-${randomBytes(6).toString('hex')}`,
              apiKey: `key-${randomBytes(6).toString('hex')}`,
            };
      simulator.state.addAccount(platform);
      const document = { id, name: `Loja ${id}`, platform, provider: documentOf(provider) };
      await this.expectAnswer(201, '/shops', document);
    }
    for (const [provider, id] of Object.entries(LINKED_SHOPS)) {
      const made = await this.expectAnswer(201, `/shops/${id}/connect`, { provider });
      const { url } = JSON.parse(made) as { url: string };
      this.linkTokens.push(new URL(url).pathname.split('/').at(-1) ?? '');
    }
  }

  private admin(path: string, body?: unknown): Promise<Response> {
    return fetch(`${this.target(REGISTRY_CONNECTOR).url}/admin/api${path}`, {
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
