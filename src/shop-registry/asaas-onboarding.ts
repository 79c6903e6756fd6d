import { AppError } from '../errors';
import { ASAAS_API } from '../payments/asaas/asaas-api';
import {
  createSubaccount,
  newWebhookToken,
  registerWebhook,
  subaccountSchema,
  vendorWallet,
  type SubaccountData,
} from '../payments/asaas/asaas-connect';
import { officialOrigins } from '../payments/provider-hosts';
import type { ProviderDocument } from '../payments/provider-fields';
import type { VendorAccounts } from '../payments/vendor-accounts';
import { webhookPath } from '../shop/shop-id';
import { invalidLink } from './connect-states';
import type { ConnectLink, ConnectLinkStore, RegistryStore } from './ports';
import type { ShopCredentials } from './shop-credentials';
import type { StoredShop } from './stored-shop';

/** How many refusals of a link's data Asaas takes in an hour (CONTRACT), before a 429. */
export const ASAAS_REFUSALS_PER_HOUR = 5;
const REFUSAL_WINDOW_MS = 3_600_000;

export interface AsaasOnboardingDeps {
  links: ConnectLinkStore;
  log?: { error(message: string, fields?: Record<string, unknown>): unknown };
  store: RegistryStore;
  credentials: ShopCredentials;
  vendor: VendorAccounts;
  publicUrl: string;
  clock: () => Date;
  /** The link under `key` while it is good; CONNECT_LINK_INVALID otherwise. */
  usable(key: string): Promise<ConnectLink>;
  /** Puts a taken link back for the time it has left (a connection that failed). */
  giveBack(key: string, link: ConnectLink): Promise<void>;
}

/** The owner's data for an Asaas subaccount, checked; VALIDATION_FAILED naming each field. */
function parseSubaccount(input: unknown): SubaccountData {
  const source = { ...((input ?? {}) as Record<string, unknown>) };
  // A form sends every field, empty ones as '': those are absent.
  for (const [field, value] of Object.entries(source)) if (value === '') delete source[field];
  const parsed = subaccountSchema.safeParse(source);
  if (parsed.success) return parsed.data;
  throw new AppError('VALIDATION_FAILED', 'The account data is not valid.', {
    details: parsed.error.issues.map((issue) => ({
      field:
        issue.path.map(String).join('.') ||
        (issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : 'account'),
      problem:
        issue.code === 'unrecognized_keys' ? 'is not a field of an Asaas account' : issue.message,
    })),
  });
}

function tooManyRefusals(): AppError {
  return new AppError(
    'RATE_LIMITED',
    'Asaas refused the data of this link too often in the last hour: try again later.',
  );
}

/**
 * A shop's Asaas account as a subaccount of the vendor's (CONTRACT "Connecting a shop's provider
 * account"): made from the owner's form (checked here before any call with the root key, and at
 * most ASAAS_REFUSALS_PER_HOUR refusals by Asaas a link and hour) or from the admin API's body.
 */
export class AsaasOnboarding {
  constructor(private readonly deps: AsaasOnboardingDeps) {}

  /**
   * The link's form: the subaccount created from the owner's data, its webhook registered, its
   * key and wallet stored; the link used. A refusal (ours or Asaas's) is VALIDATION_FAILED (the
   * form shows it) and the link works again.
   */
  async connect(key: string, input: unknown): Promise<ConnectLink> {
    const link = await this.deps.usable(key);
    if (link.provider !== 'asaas') throw invalidLink();
    const data = parseSubaccount(input);
    if ((await this.deps.links.refusals(key)) >= ASAAS_REFUSALS_PER_HOUR) throw tooManyRefusals();
    const taken = await this.deps.links.take(key);
    if (!taken) throw invalidLink();
    try {
      await this.subaccountFor(link.shop, link.incarnation, data, `connect:${link.by}`, () =>
        this.deps.links.countRefusal(key, REFUSAL_WINDOW_MS),
      );
      return link;
    } catch (error) {
      await this.deps.giveBack(key, link);
      throw error;
    }
  }

  /** The admin API's `account` body: the shop's subaccount created at once, no link. */
  async connectNow(shop: string, input: unknown, by: string): Promise<StoredShop> {
    const entry = await this.deps.store.get(shop);
    if (!entry) throw new AppError('SHOP_NOT_FOUND', `No shop ${shop} in the registry.`);
    return this.subaccountFor(shop, entry.stored.incarnation ?? '', parseSubaccount(input), by);
  }

  private async subaccountFor(
    shop: string,
    incarnation: string,
    data: SubaccountData,
    by: string,
    refused?: () => Promise<unknown>,
  ): Promise<StoredShop> {
    const root = this.deps.vendor.asaas;
    if (!root) throw invalidLink();
    await this.deps.credentials.precheck(shop, incarnation, 'asaas');
    const walletId = await vendorWallet(root);
    const created = await createSubaccount(root, data).catch(async (error: unknown) => {
      if (error instanceof AppError && error.code === 'VALIDATION_FAILED') await refused?.();
      throw error;
    });
    const webhookToken = newWebhookToken();
    try {
      await registerWebhook(root.apiUrl, created.apiKey, {
        url: `${this.deps.publicUrl}${webhookPath('asaas', shop)}`,
        authToken: webhookToken,
        email: data.email,
      });
    } catch (error) {
      // The account exists: keep it. Its checkouts are still read by the reconciler; the
      // webhook is a hint. Said, so an operator registers it at Asaas.
      this.deps.log?.error("the Asaas subaccount's webhook could not be registered", {
        shop,
        error: error instanceof Error ? error.message : String(error),
      });
    }
    const official = officialOrigins(ASAAS_API).includes(new URL(root.apiUrl).origin);
    const provider = {
      name: 'asaas',
      connection: 'subaccount',
      account: created.account,
      connectedAt: this.deps.clock().toISOString(),
      apiKey: created.apiKey,
      webhookToken,
      walletId: created.walletId,
      vendorWalletId: walletId,
      ...(official
        ? { environment: root.apiUrl === ASAAS_API.sandbox ? 'sandbox' : 'production' }
        : { apiUrl: root.apiUrl }),
    } as ProviderDocument;
    return this.deps.credentials.connect(shop, incarnation, provider, by);
  }
}
