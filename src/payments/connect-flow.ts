import type { z } from 'zod';
import { AppError } from '../errors';
import type { Log } from '../log';

/*
 * How a provider's accounts are connected by a link (CONTRACT "Connecting a shop's provider
 * account"), as its descriptor declares it (`connection.flow`): what the link's page shows, what
 * its button or form does, the provider's callbacks and platform events. The provider-neutral
 * part (links, states bound to the browser, storing the connection, the pages' frame) is
 * src/connect/, which hands a flow a ConnectContext; the HTTP layer dispatches to the flow by the
 * link's provider or the callback's path, and never names a provider.
 */

/** A link as a flow sees it: the shop it connects, good until `expiresAt`. */
export interface LinkInHand {
  /** The link's key (its token's hash). */
  key: string;
  shop: string;
  shopName: string;
  incarnation: string;
  /** Who made it (`cli:<user>`, `admin:<fingerprint>`): the audit's `connect:<by>`. */
  by: string;
  expiresAt: string;
}

/** A state a callback named, checked for the flow's purpose and the browser's cookie. */
export interface StateInHand {
  /** The key of the link it was issued for (which may be used up since). */
  linkKey: string;
  shop: string;
  /** The flow's secret (a PKCE verifier), opened. */
  secret?: string;
  account?: string;
  /** Takes the state (single use): false when another callback took it first. */
  take(): Promise<boolean>;
}

/** A provider account a connection under way made, found by its id (never a key name). */
export interface PendingAccount {
  link: string;
  shop: string;
  account: string;
}

/** Whose account a connection stores: a link's shop, or the admin API's shop (no link). */
export interface ConnectTarget {
  shop: string;
  incarnation: string;
  /** The audit's actor: `connect:<link's maker>`, or the admin's. */
  by: string;
}

export type ConnectedDocument = {
  name: string;
  connection: string;
  account: string;
  connectedAt: string;
} & Record<string, unknown>;

/** The link is unknown, used or expired: the "Link inválido" page. */
export function linkInvalid(): AppError {
  return new AppError(
    'CONNECT_LINK_INVALID',
    'This link is unknown, was used already, or expired: ask for a new one.',
  );
}

/**
 * What the connector gives a flow (src/connect/connect-context.ts), bound to the flow's provider:
 * its states, its pending accounts, and storing what it connected.
 */
export interface ConnectContext {
  publicUrl: string;
  clock: () => Date;
  log: Pick<Log, 'error'>;
  /** A new state of the flow, bound to the browser's nonce; answers the state to hand out. */
  issueState(
    link: LinkInHand,
    browser: string,
    values: { secret?: string; account?: string },
    ttlMs: number,
  ): Promise<string>;
  /**
   * The state a callback names: CONNECT_LINK_INVALID for one of another form, unknown or of
   * another flow (nothing looked up for a value of another form); CONNECT_OTHER_BROWSER, changing
   * nothing, for another browser.
   */
  checkState(state: string | undefined, browser: string | undefined): Promise<StateInHand>;
  /** The link under `key` while it is good (CONNECT_LINK_INVALID otherwise). */
  usable(key: string): Promise<LinkInHand>;
  /** Whether the shop can be connected to this provider as it stands (its payment choice). */
  precheck(target: ConnectTarget): Promise<void>;
  /**
   * Runs `work` holding the link (taken: a link connects once, CONNECT_LINK_INVALID when it was
   * taken meanwhile); the link works again when `work` throws.
   */
  use<T>(link: LinkInHand, work: () => Promise<T>): Promise<T>;
  /** Stores the connected account on the target's shop; answers the shop's name. */
  store(target: ConnectTarget, document: ConnectedDocument): Promise<string>;
  /** The account made for a link, kept with it (one per link). */
  linkAccount(link: LinkInHand): Promise<PendingAccount | undefined>;
  /** Keeps the account made for the link, findable by the provider's events, while it lasts. */
  keepAccount(link: LinkInHand, account: string): Promise<void>;
  pendingAccount(account: string): Promise<PendingAccount | undefined>;
  dropAccount(account: string): Promise<void>;
  /** The registry's shop connected to `account` at this provider, if one is. */
  connectedTo(account: string): Promise<{ shop: string; shopName: string } | undefined>;
  /** The provider says the connected account can take no payments: the shop must connect again. */
  needsReconnect(shop: string, reason: string): Promise<boolean>;
  /** The provider says the connected account takes payments again: the mark is cleared. */
  restored(shop: string): Promise<boolean>;
  /** Counts a refusal of the link's data by the provider; answers the count within the hour. */
  countRefusal(link: LinkInHand): Promise<number>;
  refusals(link: LinkInHand): Promise<number>;
}

/**
 * The ERP vendor's own account at a provider, with which its shops' accounts are connected
 * (CONTRACT "Connecting a shop's provider account"): the deployment's variables that set it,
 * declared here once (config/ reads them, the docs list them), and the account made from them.
 */
export interface VendorSpec<V, S extends z.ZodRawShape> {
  /** Its variables, each described (the configuration's docs are written from them). */
  variables: S;
  /** Those of them that are secrets: never logged, kept in the Kubernetes Secret. */
  secrets: readonly (keyof S & string)[];
  /**
   * The provider's own fields (its descriptor's, set for the env shop by its variables) that
   * the account also reads: its API host, the signing secret its notifications share.
   */
  reads?: readonly string[];
  /** The variables the account needs all set (its own and those it reads). */
  required: readonly string[];
  from(env: z.output<z.ZodObject<S>> & Record<string, unknown>): V | undefined;
  /** What is wrong with the variables as given (one set without another), per variable. */
  problems(env: Record<string, unknown>): Array<{ variable: string; problem: string }>;
}

/** One field of a flow's form on the link's page (pt-BR labels). */
export interface FormField {
  name: string;
  label: string;
  type?: string;
  autocomplete?: string;
  hint?: string;
  optional?: boolean;
  /** A choice: its values and their labels. */
  options?: ReadonlyArray<readonly [string, string]>;
}

/** What a callback shows the owner. */
export type CallbackOutcome =
  | { outcome: 'connected'; shop: string; shopName: string }
  | { outcome: 'pending'; shopName: string; continueUrl: string }
  | { outcome: 'cancelled' }
  | { outcome: 'redirect'; url: string };

/** A verified platform event of the provider, as a flow reads it. */
export interface PlatformEvent {
  type: string;
  account: string | undefined;
  /** What the flow reads of the event besides (Stripe's `charges_enabled`). */
  detail?: Record<string, unknown>;
}

/** What a flow did with a platform event; `unhandled` goes to the account's shop's provider. */
export type EventOutcome =
  | { outcome: 'connected'; shop: string }
  | { outcome: 'needs-reconnect'; shop: string }
  | { outcome: 'restored'; shop: string }
  | { outcome: 'nothing' }
  | { outcome: 'unhandled' };

/** A provider's connect flow, declared by its descriptor (`connection.flow`). */
export interface ConnectFlow<V, S extends z.ZodRawShape = z.ZodRawShape> {
  /** What its states are for (`mercadopago-oauth`): a callback takes only its own flow's. */
  purpose: string;
  vendor: VendorSpec<V, S>;
  /** What the link's page says (pt-BR): its title, what happens there, its button. */
  page: {
    title: string;
    steps: string;
    button: string;
    /** Said once connected, where the owner has more to do at the provider. */
    afterConnected?: string;
    /** A form instead of a button that goes to the provider: its fields, sent to `submit`. */
    form?: readonly FormField[];
  };
  /** Where the link's button may send the browser (the page's form-action). */
  origins?(vendor: V): string[];
  /** The link's button: where the owner's browser goes (the provider's authorization). */
  start?(ctx: ConnectContext, vendor: V, link: LinkInHand, browser: string): Promise<string>;
  /**
   * The link's form: the connection made from the owner's data (VALIDATION_FAILED naming each
   * field, which the form shows); `link` undefined for the admin API's body (no link).
   */
  submit?(
    ctx: ConnectContext,
    vendor: V,
    target: { link: LinkInHand } | { shop: ConnectTarget },
    input: unknown,
  ): Promise<void>;
  /** The provider's redirects back, at `/connect/<provider>/<name>` (GET, query and cookie). */
  callbacks?: Readonly<
    Record<
      string,
      (
        ctx: ConnectContext,
        vendor: V,
        query: Record<string, string | undefined>,
        browser: string | undefined,
      ) => Promise<CallbackOutcome>
    >
  >;
  /** The vendor's platform events, at `POST /webhooks/<provider>-connect`. */
  events?: {
    /** Verified with the vendor's secret; WEBHOOK_SIGNATURE_INVALID otherwise. */
    verify(vendor: V, rawBody: Buffer, headers: Record<string, unknown>): PlatformEvent;
    handle(ctx: ConnectContext, vendor: V, event: PlatformEvent): Promise<EventOutcome>;
  };
}
