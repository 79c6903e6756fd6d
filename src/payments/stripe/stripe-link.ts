import { AppError } from '../../errors';
import { linkInvalid, type LinkInHand } from '../connect-flow';
import { defineConnectFlow } from '../define-connect-flow';
import { apiUrlUnlessOfficial } from '../provider-hosts';
import { stripeVendor, type StripePlatform } from './stripe-vendor';
import { STRIPE_API } from './stripe-api';
import type * as StripeConnect from './stripe-connect';

type Platform = StripePlatform;

/** The Stripe SDK is loaded only by a process that onboards a Stripe account. */
function stripeConnect(): typeof StripeConnect {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./stripe-connect') as typeof StripeConnect;
}

/** How long a state waits for the owner's return from Stripe's onboarding: a day. */
const STATE_TTL_MS = 86_400_000;

const NOTHING = { outcome: 'nothing' } as const;

function isLinkInvalid(error: unknown): boolean {
  return error instanceof AppError && error.code === 'CONNECT_LINK_INVALID';
}

function leftOf(link: LinkInHand, now: Date): number {
  return Math.max(1, Date.parse(link.expiresAt) - now.getTime());
}

function onboarding(
  publicUrl: string,
  platform: Platform,
  account: string,
  state: string,
): Promise<string> {
  const query = `?state=${encodeURIComponent(state)}`;
  return stripeConnect().onboardingLink(platform, {
    account,
    returnUrl: `${publicUrl}/connect/stripe/return${query}`,
    refreshUrl: `${publicUrl}/connect/stripe/refresh${query}`,
  });
}

/** The shop's part of its document, connected to `account` of the vendor's platform. */
function connected(platform: Platform, account: string, now: Date) {
  return {
    name: 'stripe',
    connection: 'connect',
    account,
    connectedAt: now.toISOString(),
    ...apiUrlUnlessOfficial(STRIPE_API, platform.apiUrl),
  };
}

/**
 * A shop's Stripe account as an Express account of the vendor's platform (CONTRACT "Connecting
 * a shop's provider account"): the link's button creates the account (one per link) and sends
 * the owner to Stripe's hosted onboarding; the shop is connected once Stripe says
 * `charges_enabled`, on the owner's return (in the browser that pressed the button) or by the
 * Connect event `account.updated`, whichever comes first; the link is used then. An
 * `account.updated` with charges disabled marks a connected shop needs_reconnect.
 */
export const stripeLink = defineConnectFlow('stripe', {
  purpose: 'stripe-onboarding',
  vendor: stripeVendor,
  page: {
    title: 'Conectar a conta Stripe',
    steps:
      'Você preenche na Stripe o cadastro da loja (dados da empresa e a conta bancária que recebe os valores). Nenhuma senha ou chave é enviada a ninguém.',
    button: 'Conectar com Stripe',
  },
  // Stripe's hosted onboarding (connect.stripe.com), or a fake's own host in tests.
  origins: (platform) => ['https://connect.stripe.com', new URL(platform.apiUrl).origin],

  async start(ctx, platform, link, browser) {
    // One account per link, however often and late its button is pressed: the account made first
    // is kept beside the link (Stripe's idempotency keys last 24 hours, a link 7 days).
    const made = await ctx.linkAccount(link);
    const account =
      made?.account ??
      (await stripeConnect().createExpressAccount(
        platform,
        { id: link.shop, name: link.shopName },
        `connect-account:${link.key}`,
      ));
    await ctx.keepAccount(link, account);
    // A state a day at most: the owner presses the button again for a new one.
    const ttl = Math.min(leftOf(link, ctx.clock()), STATE_TTL_MS);
    const state = await ctx.issueState(link, browser, { account }, ttl);
    return onboarding(ctx.publicUrl, platform, account, state);
  },

  callbacks: {
    async return(ctx, platform, query, browser) {
      const state = await ctx.checkState(query.state, browser);
      const { account } = state;
      if (!account || !query.state) throw linkInvalid();
      const already = await ctx.connectedTo(account);
      if (already?.shop === state.shop) {
        // Stripe's event connected it first.
        await state.take();
        return { outcome: 'connected', shop: already.shop, shopName: already.shopName };
      }
      const link = await ctx.usable(state.linkKey);
      if (!(await stripeConnect().chargesEnabled(platform, account))) {
        const continueUrl = `${ctx.publicUrl}/connect/stripe/refresh?state=${encodeURIComponent(query.state)}`;
        return { outcome: 'pending', shopName: link.shopName, continueUrl };
      }
      try {
        const shopName = await ctx.use(link, () =>
          ctx.store(link, connected(platform, account, ctx.clock())),
        );
        await ctx.dropAccount(account);
        await state.take();
        return { outcome: 'connected', shop: link.shop, shopName };
      } catch (error) {
        // Stripe's event took the link meanwhile, and connected the shop: so it says.
        const now = await ctx.connectedTo(account);
        if (!isLinkInvalid(error) || now?.shop !== state.shop) throw error;
        await state.take();
        return { outcome: 'connected', shop: now.shop, shopName: now.shopName };
      }
    },

    /** An onboarding link that expired or was used: a new one for the same account. */
    async refresh(ctx, platform, query, browser) {
      const state = await ctx.checkState(query.state, browser);
      if (!state.account || !query.state) throw linkInvalid();
      await ctx.usable(state.linkKey);
      return {
        outcome: 'redirect',
        url: await onboarding(ctx.publicUrl, platform, state.account, query.state),
      };
    },
  },

  events: {
    verify(platform, rawBody, headers) {
      const signature = headers['stripe-signature'];
      try {
        const event = stripeConnect().connectEvent(
          platform,
          rawBody,
          Array.isArray(signature) ? String(signature[0] ?? '') : String(signature ?? ''),
        );
        return {
          type: event.type,
          account: event.account,
          detail: { chargesEnabled: event.chargesEnabled },
        };
      } catch {
        throw new AppError(
          'WEBHOOK_SIGNATURE_INVALID',
          "The Stripe-Signature does not verify with the Connect endpoint's secret (STRIPE_CONNECT_WEBHOOK_SECRET).",
        );
      }
    },

    /**
     * `account.updated`: a hint, read again at Stripe (events come out of order, and are retried
     * for days): charges enabled connect the shop whose link made the account (once; later ones
     * find no link), or restore a connected shop that was marked; charges disabled mark the
     * shop connected to the account needs_reconnect. Any other event is the connected shop's
     * provider's to read.
     */
    async handle(ctx, platform, event) {
      if (event.type !== 'account.updated' || !event.account) return { outcome: 'unhandled' };
      const account = event.account;
      const pending = await ctx.pendingAccount(account);
      const shop = pending ? undefined : (await ctx.connectedTo(account))?.shop;
      if (!pending && !shop) return { outcome: 'nothing' };
      const enabled = await stripeConnect().chargesEnabled(platform, account);
      if (shop) {
        if (enabled) return (await ctx.restored(shop)) ? { outcome: 'restored', shop } : NOTHING;
        const marked = await ctx.needsReconnect(
          shop,
          'Stripe disabled the charges of the connected account',
        );
        return marked ? { outcome: 'needs-reconnect', shop } : NOTHING;
      }
      if (!enabled || !pending) return NOTHING;
      try {
        const link = await ctx.usable(pending.link);
        await ctx.use(link, () => ctx.store(link, connected(platform, account, ctx.clock())));
        await ctx.dropAccount(account);
        return { outcome: 'connected', shop: link.shop };
      } catch (error) {
        if (isLinkInvalid(error)) return NOTHING;
        throw error;
      }
    },
  },
});
