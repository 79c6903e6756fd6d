import type { z } from 'zod';
import { AppError } from '../errors';
import { linkInvalid, type ConnectFlow, type VendorSpec } from './connect-flow';
import type { VendorAccounts } from './vendor-accounts';

/** A flow as the connector calls it: each step given the deployment's vendor accounts. */
export interface DeclaredFlow<V = unknown> extends Pick<
  ConnectFlow<VendorAccounts>,
  'purpose' | 'page' | 'start' | 'submit' | 'events'
> {
  /** The vendor's variables, as config/ reads them and the docs list them. */
  vendor: Omit<VendorSpec<V, z.ZodRawShape>, 'from'> & {
    from(env: Record<string, unknown>): V | undefined;
  };
  /** The vendor's variables, named for a message when they are unset. */
  variables: string;
  /** The vendor's account in this deployment, as its flow's provider reads it. */
  accountOf(vendor: VendorAccounts): V | undefined;
  available(vendor: VendorAccounts): boolean;
  origins(vendor: VendorAccounts): string[];
  callback(name: string): CallbackOf<VendorAccounts> | undefined;
}

type CallbackOf<V> = NonNullable<ConnectFlow<V>['callbacks']>[string];

/** "A, B and C". */
function inProse(names: readonly string[]): string {
  return `${names.slice(0, -1).join(', ')}${names.length > 1 ? ' and ' : ''}${names.at(-1) ?? ''}`;
}

/** The flow's steps, each finding the vendor's account it needs (CONNECT_LINK_INVALID unset). */
function declaredSteps<V>(
  flow: Pick<ConnectFlow<V>, 'start' | 'submit' | 'callbacks' | 'events'>,
  accountOf: (vendor: VendorAccounts) => V | undefined,
): Pick<DeclaredFlow<V>, 'start' | 'submit' | 'callback' | 'events'> {
  const vendorOf = (vendor: VendorAccounts): V => {
    const account = accountOf(vendor);
    if (account === undefined) throw linkInvalid();
    return account;
  };
  const { start, submit, callbacks, events } = flow;
  return {
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
  // `/connect/:token/start` is the button's: a callback of that name would never be reached.
  if (flow.callbacks && Object.hasOwn(flow.callbacks, 'start')) {
    throw new Error(`${provider}'s connect flow names a callback "start", the button's path`);
  }
  return {
    purpose: flow.purpose,
    vendor: flow.vendor as DeclaredFlow<V>['vendor'],
    variables: inProse(flow.vendor.required),
    accountOf,
    page: flow.page,
    available: (vendor) => accountOf(vendor) !== undefined,
    origins: (vendor) => {
      const account = accountOf(vendor);
      return account === undefined ? [] : (flow.origins?.(account) ?? []);
    },
    ...declaredSteps(flow, accountOf),
  };
}
