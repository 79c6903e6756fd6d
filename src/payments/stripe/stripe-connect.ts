import Stripe from 'stripe';
import type { StripePlatform } from './stripe-vendor';
import { asAppError, hostOptions } from './stripe-provider';

/**
 * Stripe Connect with Express accounts (docs.stripe.com "Express accounts", "Account Links"): the
 * vendor's platform account creates the shop's account (`POST /v1/accounts`), sends the owner to
 * Stripe's hosted onboarding (`POST /v1/account_links`, single use, short lived), and the account
 * takes payments once Stripe says `charges_enabled`.
 */

type Platform = StripePlatform;

function platformClient(platform: Platform): Stripe {
  return new Stripe(platform.secretKey, {
    maxNetworkRetries: 0,
    timeout: 20_000,
    telemetry: false,
    ...hostOptions(platform.apiUrl),
  });
}

export async function createExpressAccount(
  platform: Platform,
  shop: { id: string; name: string },
  /** The same key makes the same account: one per link, however often its button is pressed. */
  idempotencyKey: string,
): Promise<string> {
  try {
    const account = await platformClient(platform).accounts.create(
      {
        type: 'express',
        country: 'BR',
        capabilities: { card_payments: { requested: true }, transfers: { requested: true } },
        business_profile: { name: shop.name },
        metadata: { shop: shop.id },
      },
      { idempotencyKey },
    );
    return account.id;
  } catch (error) {
    throw asAppError(error, 'create the connected account');
  }
}

export async function onboardingLink(
  platform: Platform,
  request: { account: string; returnUrl: string; refreshUrl: string },
): Promise<string> {
  try {
    const link = await platformClient(platform).accountLinks.create({
      account: request.account,
      type: 'account_onboarding',
      return_url: request.returnUrl,
      refresh_url: request.refreshUrl,
    });
    return link.url;
  } catch (error) {
    throw asAppError(error, 'create the onboarding link');
  }
}

export async function chargesEnabled(platform: Platform, account: string): Promise<boolean> {
  try {
    return (await platformClient(platform).accounts.retrieve(account)).charges_enabled === true;
  } catch (error) {
    throw asAppError(error, 'read the connected account');
  }
}

/** A Connect event verified by the Connect endpoint's secret; throws the SDK's signature error. */
export function connectEvent(
  platform: Platform,
  rawBody: Buffer,
  signature: string,
): { type: string; account: string | undefined; chargesEnabled: boolean | undefined } {
  const event = platformClient(platform).webhooks.constructEvent(
    rawBody,
    signature,
    platform.webhookSecret,
  );
  const object = event.data.object as { charges_enabled?: unknown };
  return {
    type: event.type,
    account: event.account,
    // An event without the field says nothing of it (never "disabled").
    chargesEnabled:
      event.type === 'account.updated' && typeof object.charges_enabled === 'boolean'
        ? object.charges_enabled
        : undefined,
  };
}
