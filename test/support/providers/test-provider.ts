import type fc from 'fast-check';
import type { PaymentMethod } from '../../../src/payments/payment-offer';
import type { PaidWith, WebhookInput } from '../../../src/payments/payment-provider';
import type { ProviderModule } from '../../../src/payments/provider-module';
import type { ProviderName } from '../../../src/payments/providers';
import type { ShapedBody } from '../provider-endpoint-bodies';
import type { InboundWorld } from '../provider-endpoint-paths';
import type { ProviderFake } from '../provider-suite';

/*
 * A provider as the tests know it: what src/payments/<name>/ is to the code, one row of
 * test/support/providers.ts is to the tests (its fake, how a test acts at it, the variables that
 * aim a shop at it). The flow scenarios, the provider contract, the property test, the incidents,
 * the payment records, the return pages and README's check read the rows.
 */

/**
 * Webhooks a provider must refuse: a body changed after signing, another secret, an old signature,
 * none at all.
 */
export type Forgery = 'tampered' | 'wrong secret' | 'stale' | 'missing';

/**
 * The customer's hand at the provider (pay by card, start and confirm a Pix, issue a boleto where
 * the provider offers one, the shop's refund), and the provider's webhooks, valid or forged, as
 * the adapter receives them: what the provider contract needs of a provider's world.
 */
export interface ContractDriver {
  pay(checkoutId: string, providerRef: string): Promise<void>;
  startPix(checkoutId: string, providerRef: string): Promise<void>;
  confirmPix(checkoutId: string, providerRef: string): Promise<void>;
  /** Undefined for a provider whose checkout offers no boleto. */
  issueBoleto?(checkoutId: string, providerRef: string): Promise<void>;
  /** The shop refunds a paid payment (from the provider's dashboard, or its bank's API). */
  refund(checkoutId: string, providerRef: string): Promise<void>;
  /**
   * The provider completes the refunds under way (a Pix's devolução made by the bank); absent
   * where a refund the connector asks is made at once.
   */
  settleRefunds?(checkoutId: string, providerRef: string): Promise<void>;
  /**
   * How many refunds the provider made of the checkout's payments, as its own records say (a
   * charge's refunds, a payment's, a Pix's devoluções); absent where a refund is a state alone.
   */
  refundsMade?(checkoutId: string, providerRef: string): Promise<number>;
  /**
   * The methods the checkout the adapter created offers the customer, as the provider's own record
   * of it says (a Stripe session's allowed types, a Mercado Pago preference's exclusions, an Asaas
   * checkout's billingTypes, the sandbox's page), in our words; in no particular order.
   */
  methodsOffered(checkoutId: string, providerRef: string): Promise<PaymentMethod[]>;
  /** Undefined for a provider without webhooks (the sandbox: its page reports directly). */
  webhook?(checkoutId: string, providerRef: string, forgery?: Forgery): Promise<WebhookInput>;
}

/**
 * What the flow scenarios (provider-flow-suite.ts) need of one provider's fake, against a running
 * connector: the customer's payments at the provider, and the provider's word of them to the
 * connector (webhook, notification or event).
 */
export interface FlowDriver<P> {
  /** How the customer pays in full (`pay`): the method the record keeps. */
  readonly method: PaidWith;
  /** The URL the provider holds for the checkout: the one the platform must get. */
  urlOf(checkoutId: string): string | undefined;
  /** The customer pays the checkout in full; nobody tells the connector yet. */
  pay(checkoutId: string): P;
  /** The customer pays the checkout an amount other than the checkout's. */
  payWrongAmount(checkoutId: string): P;
  /** The id the platform's finish carries for the payment. */
  transactionIdOf(payment: P): string;
  /** The provider tells the connector of the payment, as it does; resolves the answer. */
  notify(payment: P): Promise<{ status: number; body: unknown }>;
}

/** The connector's answer to what a provider told it. */
export interface Answer {
  status: number;
  body: unknown;
}

/**
 * A paid payment refunded, then charged back, at a provider's fake: each changes the payment at
 * the fake and returns the provider's word of it to the connector (a webhook, a notification, an
 * event), to send, and to send again as a provider retrying does; it resolves the answer.
 */
export interface Incidents<F, P> {
  /** The notes the connector records with each, in the provider's words. */
  readonly notes: { readonly refund: string; readonly chargeback: string };
  refund(fake: F, connectorUrl: string, paid: P): () => Promise<Answer>;
  chargeBack(fake: F, connectorUrl: string, paid: P): () => Promise<Answer>;
}

/** What the ERP's payment record says of a payment (docs/payments-to-the-erp.md). */
export interface RecordSays {
  /** The payment's id at the provider: the record's id is made of it. */
  transactionId: string;
  method: PaidWith;
  installments: number | null;
  amounts: {
    order: number;
    interest: number;
    paid: number;
    provider_fee: number | null;
    vendor_fee: number;
    net: number | null;
  };
  release_date: string | null | undefined;
  provider_ids: { payment: string; pix_e2e: string | null; pix_txid: string | null };
  /** Version 2's: when the money moved, who paid, the card, the NF-e's payment group. */
  paid_at: string | null;
  payer: { name: string | null; document: string | null } | null;
  card: { brand: string | null; last4: string | null; authorization_code: string | null } | null;
  nfe: { tPag: string | null; tBand: string | null; cAut: string | null; CNPJ: string | null };
}

/** A payment whose record the ERP gets: how the customer pays, and what its record must say. */
export interface RecordCase<F, P> {
  /** The payment, as a test's title names it ("a Pix"). */
  readonly what: string;
  /** The connector's variables it needs besides the row's (a card in installments). */
  readonly env?: Record<string, string>;
  /** The customer pays `checkoutId` at the fake (at the rates the case sets), and it is told. */
  pay(fake: F, connectorUrl: string, checkoutId: string): Promise<P>;
  /** What the record of `paid` must say, from what the fake reported (`order`: the checkout's). */
  says(fake: F, paid: P, order: number): RecordSays;
  /** The provider's fee on `order` at the rate the case set; null: the provider tells none. */
  fee(order: number): number | null;
}

/**
 * Where the provider sends the customer back to the connector, after each case it has: the
 * customer does it at the fake, and the URL the connector gave the provider for it is returned.
 */
export interface ReturnPages<F> {
  /** Paid (by card), nobody told the connector yet. */
  paid(fake: F, checkoutId: string): string;
  /** A payment that did not go through (a refused card, a failed Pix). */
  failed?(fake: F, checkoutId: string): string;
  /** A Pix whose code is shown, not yet paid. */
  pixPending?(fake: F, checkoutId: string): string;
  /** The customer left the provider's page without paying. */
  left?(fake: F, checkoutId: string): string;
}

/** What a provider's checkout offers: a card, a boleto, a Pix under way before it is paid. */
export interface Offers {
  card: boolean;
  boleto: boolean;
  pixUnderWay: boolean;
}

/** What the property test sends a provider's endpoints besides any body of any shape. */
export interface InboundShapes {
  /** Credentials of the provider's forms (its signature's header), never the right ones. */
  forgedAuth: ReadonlyArray<Record<string, string>>;
  /** The body of its own webhook path (`/webhooks/<name>/<shop>/<suffix>`), when it has one. */
  webhookBody?(world: InboundWorld): fc.Arbitrary<ShapedBody>;
  /** The body of its link's form (`/connect/<token>/<name>`), when its flow takes one. */
  linkForm?: fc.Arbitrary<ShapedBody>;
  /** The body of its platform's events (`/webhooks/<name>-connect`), when its flow takes them. */
  connectEvent?: fc.Arbitrary<ShapedBody>;
}

/**
 * One provider's row. `F` is its fake; `P` a payment at it, as the flow's driver hands it on.
 * The functions are methods so that a row of any fake is a row of the list.
 */
export interface TestProvider<F extends ProviderFake = ProviderFake, P = unknown> {
  readonly name: ProviderName;
  /** The provider as README.md presents it ("Stripe Checkout"): its descriptor's label in it. */
  readonly title: string;
  /** A loopback fake of the provider, not yet started (the sandbox's starts nothing). */
  fake(): F;
  /**
   * The env shop's variables aimed at the started fake: PAYMENT_PROVIDER, the provider's own,
   * the fake's origin, and whatever a connector in a process of its own needs to reach it.
   */
  env(fake: F): Record<string, string>;
  /** The deployment's vendor account at the fake, for a provider a link can connect. */
  vendorEnv?(fake: F): Record<string, string>;
  readonly contract: {
    /** What the checkout offers (a case of the contract on what it lacks is skipped). */
    readonly offers: Offers;
    /** The forged webhooks the adapter refuses (none: its webhook is only a hint, read again). */
    readonly forgeries: readonly Forgery[];
    /** The hand at the started fake, for the adapter (and its pages' part) built from `env`. */
    driver(fake: F, built: ProviderModule): ContractDriver;
  };
  /** The flow scenarios' driver at the started fake, for the connector at `connectorUrl`. */
  flow?(fake: F, connectorUrl: string): FlowDriver<P>;
  // The cases below sit beside the flow's driver, not in it: a test file declares a case only for
  // the rows that have it, before any fake is started.
  /**
   * A refund and a chargeback of the flow's paid payment (none: its provider cannot charge back,
   * or it has no flow: the sandbox's, through its page, are payment-incidents.test.ts's own).
   */
  readonly incidents?: Incidents<F, P>;
  /** A payment whose record for the ERP tells what the provider reported of it. */
  readonly record?: RecordCase<F, P>;
  /** Its return pages (none: the customer never leaves the connector's pages). */
  readonly returns?: ReturnPages<F>;
  readonly inbound: InboundShapes;
}

/** A row, checked against its own fake's and payment's types, as the list holds rows of any. */
export function testProvider<F extends ProviderFake, P>(row: TestProvider<F, P>): TestProvider {
  return row;
}
