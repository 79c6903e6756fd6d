import { AppError } from '../errors';
import type { CallbackOutcome, EventOutcome, PlatformEvent } from '../payments/connect-flow';
import type { DeclaredFlow } from '../payments/define-connect-flow';
import { PROVIDER_LIST, PROVIDERS, type ProviderName } from '../payments/providers';
import { ENV_SHOP_ID } from '../shop/shop-id';
import { flowContext, usableLink, type ConnectLinksDeps } from './connect-context';
import { linkInvalid } from '../payments/connect-flow';
import { ConnectStates, hashOf, randomValue } from './connect-states';
import type { ConnectLink } from './ports';

/** How long a link works (CONTRACT: 7 days). */
export const LINK_TTL_MS = 7 * 86_400_000;

/** The providers a link can connect: those whose descriptor declares a connect flow. */
export const CONNECTABLE: readonly ProviderName[] = PROVIDER_LIST.filter(
  (provider) => provider.connection?.flow !== undefined,
).map((provider) => provider.name);

/** The flow of a connectable provider's name; undefined for any other name. */
export function flowOf(provider: string): DeclaredFlow | undefined {
  return (CONNECTABLE as readonly string[]).includes(provider)
    ? PROVIDERS[provider as ProviderName].connection?.flow
    : undefined;
}

export type { ConnectLinksDeps } from './connect-context';

/** The flow a link for `shop` follows; VALIDATION_FAILED for the env shop, or no such flow. */
function linkableFlow(shop: string, provider: string): DeclaredFlow {
  if (shop === ENV_SHOP_ID) {
    throw new AppError(
      'VALIDATION_FAILED',
      'The env shop is set by variables: it cannot be connected.',
      {
        details: [
          { field: 'shop', problem: 'is the env shop; add the shop to the registry to connect it' },
        ],
      },
    );
  }
  const flow = flowOf(provider);
  if (!flow) {
    throw new AppError('VALIDATION_FAILED', 'That provider cannot be connected by a link.', {
      details: [{ field: 'provider', problem: `must be ${CONNECTABLE.join(' or ')}` }],
    });
  }
  return flow;
}

/** What the link's page shows: the shop, the provider, and what its flow says. */
export interface LinkPage {
  shop: string;
  shopName: string;
  provider: ProviderName;
  providerLabel: string;
  expiresAt: string;
  flow: DeclaredFlow['page'];
}

/** What a callback shows, with the provider it connected. */
export type CallbackPage = CallbackOutcome & { provider: ProviderName; providerLabel: string };

/**
 * Links to connect a shop's provider account (CONTRACT "Connecting a shop's provider account"):
 * one shop, one provider, 7 days, one connection; Redis holds only each token's hash. What a link
 * does is its provider's flow: this class names no provider.
 */
export class ConnectLinks {
  private readonly states: ConnectStates;

  constructor(private readonly deps: ConnectLinksDeps) {
    this.states = new ConnectStates(deps);
  }

  /** Whether the deployment's PUBLIC_URL is https (the browser's cookie is then `__Host-`). */
  get secure(): boolean {
    return new URL(this.deps.publicUrl).protocol === 'https:';
  }

  /** The deployment's public origin: a link's own page is there. */
  get publicOrigin(): string {
    return new URL(this.deps.publicUrl).origin;
  }

  /** Whether this deployment can connect `provider` (its vendor account's variables are set). */
  canConnect(provider: string): provider is ProviderName {
    return flowOf(provider)?.available(this.deps.vendor) === true;
  }

  /** Where the link's button may send the owner's browser: the providers' authorization pages. */
  authorizationOrigins(): string[] {
    return CONNECTABLE.flatMap((name) => flowOf(name)?.origins(this.deps.vendor) ?? []);
  }

  private flow(provider: string): DeclaredFlow {
    const flow = flowOf(provider);
    if (!flow || !flow.available(this.deps.vendor)) throw linkInvalid();
    return flow;
  }

  private context(provider: ProviderName) {
    return flowContext(this.deps, this.states, provider, this.flow(provider).purpose);
  }

  /** The shop as stored, when this deployment has the vendor's account `flow` connects with. */
  private async configuredFor(flow: DeclaredFlow, provider: string, shop: string) {
    if (!flow.available(this.deps.vendor)) {
      throw new AppError(
        'CONNECT_NOT_CONFIGURED',
        `This deployment has no ${PROVIDERS[provider as ProviderName].label} account to connect shops with: set ${flow.variables}.`,
      );
    }
    const entry = await this.deps.store.get(shop);
    if (!entry) throw new AppError('SHOP_NOT_FOUND', `No shop ${shop} in the registry.`);
    return entry;
  }

  /** A new link for the shop: its URL, once, and when it lapses. */
  async create(
    shop: string,
    provider: string,
    by: string,
  ): Promise<{ url: string; expires_at: string }> {
    const flow = linkableFlow(shop, provider);
    const entry = await this.configuredFor(flow, provider, shop);
    const incarnation = entry.stored.incarnation ?? '';
    await this.deps.credentials.precheck(shop, incarnation, provider as ProviderName);
    const token = randomValue();
    const now = this.deps.clock();
    const link: ConnectLink = {
      shop,
      incarnation,
      provider,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + LINK_TTL_MS).toISOString(),
      by,
    };
    await this.deps.links.put(hashOf(token), link, LINK_TTL_MS);
    return { url: `${this.deps.publicUrl}/connect/${token}`, expires_at: link.expiresAt };
  }

  /** The link as its page shows it; CONNECT_LINK_INVALID when it is unknown, used or expired. */
  async page(token: string): Promise<LinkPage> {
    return this.pageOf(await usableLink(this.deps, hashOf(token)));
  }

  private pageOf(link: Awaited<ReturnType<typeof usableLink>>): LinkPage {
    const provider = link.provider;
    return {
      shop: link.shop,
      shopName: link.shopName,
      provider,
      providerLabel: PROVIDERS[provider].label,
      expiresAt: link.expiresAt,
      flow: this.flow(provider).page,
    };
  }

  /**
   * The link's button pressed in the browser whose cookie holds `browser`: where the browser
   * goes (the provider's authorization or onboarding), as the link's provider's flow says.
   */
  async start(token: string, browser: string): Promise<string> {
    const link = await usableLink(this.deps, hashOf(token));
    const flow = this.flow(link.provider);
    if (!flow.start) throw linkInvalid();
    const ctx = this.context(link.provider);
    await ctx.precheck(link);
    return flow.start(ctx, this.deps.vendor, link, browser);
  }

  /**
   * The link's form, posted to `/connect/<token>/<provider>`: the connection made from the
   * owner's data (VALIDATION_FAILED naming each field: the form shows it; the link works again).
   */
  async submit(token: string, provider: string, input: unknown): Promise<LinkPage> {
    const link = await usableLink(this.deps, hashOf(token));
    const flow = this.flow(link.provider);
    if (link.provider !== provider || !flow.submit) throw linkInvalid();
    await flow.submit(this.context(link.provider), this.deps.vendor, { link }, input);
    return this.pageOf(link);
  }

  /** The admin API's `account` body: the connection made at once from it, no link. */
  async connectNow(shop: string, provider: string, input: unknown, by: string): Promise<void> {
    const flow = flowOf(provider);
    if (!flow?.submit) {
      throw new AppError('VALIDATION_FAILED', 'The connect request is not valid.', {
        details: [{ field: 'account', problem: 'is for a provider connected by a form' }],
      });
    }
    const entry = await this.configuredFor(flow, provider, shop);
    const target = { shop, incarnation: entry.stored.incarnation ?? '', by };
    await flow.submit(
      this.context(provider as ProviderName),
      this.deps.vendor,
      { shop: target },
      input,
    );
  }

  /**
   * A provider's redirect back, at `/connect/<provider>/<name>`, in the browser whose cookie
   * holds `browser`: undefined when the provider declares no such callback.
   */
  async callback(
    provider: string,
    name: string,
    query: Record<string, string | undefined>,
    browser: string | undefined,
  ): Promise<CallbackPage | undefined> {
    const handler = flowOf(provider)?.callback(name);
    if (!handler) return undefined;
    const outcome = await handler(
      this.context(provider as ProviderName),
      this.deps.vendor,
      query,
      browser,
    );
    const label = PROVIDERS[provider as ProviderName].label;
    return { ...outcome, provider: provider as ProviderName, providerLabel: label };
  }

  /** The providers whose flow takes platform events (`POST /webhooks/<provider>-connect`). */
  eventProviders(): ProviderName[] {
    return CONNECTABLE.filter((name) => flowOf(name)?.events !== undefined);
  }

  /** A platform event of `provider`, verified with the vendor's secret, then done. */
  async event(
    provider: string,
    rawBody: Buffer,
    headers: Record<string, unknown>,
  ): Promise<{ event: PlatformEvent; outcome: EventOutcome }> {
    const events = flowOf(provider)?.events;
    if (!events) throw linkInvalid();
    const event = events.verify(this.deps.vendor, rawBody, headers);
    const outcome = await events.handle(
      this.context(provider as ProviderName),
      this.deps.vendor,
      event,
    );
    if (outcome.outcome === 'connected') {
      this.deps.log.info('shop connected', { shop: outcome.shop, provider });
    }
    return { event, outcome };
  }
}
