import type { z } from 'zod';
import { AppError } from '../errors';
import {
  linkInvalid,
  type CallbackOutcome,
  type ConnectContext,
  type ConnectFlow,
  type ConnectTarget,
  type EventOutcome,
  type LinkInHand,
  type PlatformEvent,
  type VendorSpec,
} from './connect-flow';
import type { VendorAccounts } from './vendor-accounts';

/** A flow as the connector calls it: each step given the deployment's vendor accounts. */
export interface DeclaredFlow<V = unknown> {
  purpose: string;
  /** The vendor's variables, as config/ reads them and the docs list them. */
  vendor: Omit<VendorSpec<V, z.ZodRawShape>, 'from'> & {
    from(env: Record<string, unknown>): V | undefined;
  };
  /** The vendor's variables, named for a message when they are unset. */
  variables: string;
  /** The vendor's account in this deployment, as its flow's provider reads it. */
  accountOf(vendor: VendorAccounts): V | undefined;
  page: ConnectFlow<unknown>['page'];
  /** Whether this deployment has the vendor's account the flow needs. */
  available(vendor: VendorAccounts): boolean;
  origins(vendor: VendorAccounts): string[];
  start?(
    ctx: ConnectContext,
    vendor: VendorAccounts,
    link: LinkInHand,
    browser: string,
  ): Promise<string>;
  submit?(
    ctx: ConnectContext,
    vendor: VendorAccounts,
    target: { link: LinkInHand } | { shop: ConnectTarget },
    input: unknown,
  ): Promise<void>;
  callback(name: string): CallbackOf<VendorAccounts> | undefined;
  events?: {
    verify(
      vendor: VendorAccounts,
      rawBody: Buffer,
      headers: Record<string, unknown>,
    ): PlatformEvent;
    handle(
      ctx: ConnectContext,
      vendor: VendorAccounts,
      event: PlatformEvent,
    ): Promise<EventOutcome>;
  };
}

type CallbackOf<V> = (
  ctx: ConnectContext,
  vendor: V,
  query: Record<string, string | undefined>,
  browser: string | undefined,
) => Promise<CallbackOutcome>;

/**
 * A provider's flow, as its descriptor declares it (`connection.flow`): each step finds the
 * vendor's account it needs among the deployment's (CONNECT_LINK_INVALID when it is unset).
 */
export function defineConnectFlow<V, S extends z.ZodRawShape>(
  provider: string,
  flow: ConnectFlow<V, S>,
): DeclaredFlow<V> {
  const accountOf = (vendor: VendorAccounts): V | undefined =>
    vendor.accounts[provider] as V | undefined;
  const vendorOf = (vendor: VendorAccounts): V => {
    const account = accountOf(vendor);
    if (account === undefined) throw linkInvalid();
    return account;
  };
  const { start, submit, callbacks, events } = flow;
  // `/connect/:token/start` is the button's: a callback of that name would never be reached.
  if (callbacks && Object.hasOwn(callbacks, 'start')) {
    throw new Error(`${provider}'s connect flow names a callback "start", the button's path`);
  }
  const names = flow.vendor.required;
  return {
    purpose: flow.purpose,
    vendor: flow.vendor as DeclaredFlow<V>['vendor'],
    variables: `${names.slice(0, -1).join(', ')}${names.length > 1 ? ' and ' : ''}${names.at(-1) ?? ''}`,
    accountOf,
    page: flow.page,
    available: (vendor) => accountOf(vendor) !== undefined,
    origins: (vendor) => {
      const account = accountOf(vendor);
      return account === undefined ? [] : (flow.origins?.(account) ?? []);
    },
    ...(start && {
      start: (ctx, vendor, link, browser) => start(ctx, vendorOf(vendor), link, browser),
    }),
    ...(submit && {
      submit: (ctx, vendor, target, input) => submit(ctx, vendorOf(vendor), target, input),
    }),
    callback(name) {
      const found = callbacks && Object.hasOwn(callbacks, name) ? callbacks[name] : undefined;
      return (
        found && ((ctx, vendor, query, browser) => found(ctx, vendorOf(vendor), query, browser))
      );
    },
    ...(events && {
      events: {
        verify: (vendor, rawBody, headers) => {
          const account = accountOf(vendor);
          if (account === undefined) {
            throw new AppError(
              'WEBHOOK_SIGNATURE_INVALID',
              'No vendor account verifies these events.',
            );
          }
          return events.verify(account, rawBody, headers);
        },
        handle: (ctx, vendor, event) => events.handle(ctx, vendorOf(vendor), event),
      },
    }),
  };
}
