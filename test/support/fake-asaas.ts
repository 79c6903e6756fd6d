import { randomBytes, randomUUID } from 'node:crypto';
import express, { type Response } from 'express';
import { LoopbackFake } from './loopback-server';

/**
 * A small fake of Asaas's API v3 on loopback, written from its public reference (docs.asaas.com)
 * for the calls the connector makes: create a checkout (`POST /v3/checkouts`: billingTypes PIX and
 * CREDIT_CARD, chargeTypes DETACHED and INSTALLMENT with installment.maxInstallmentCount, items
 * whose name is at most 30 characters, minutesToExpire, callback, splits), cancel it
 * (`POST /v3/checkouts/{id}/cancel`, only while ACTIVE), list payments (`GET /v3/payments`, filtered
 * by checkoutSession or externalReference, Asaas's list shape), read one payment
 * (`GET /v3/payments/{id}`) and its customer (`GET /v3/customers/{id}`), refund a payment in full or
 * in part (`POST /v3/payments/{id}/refund`) or a card plan (`POST /v3/installments/{id}/refund`),
 * read the balance; `access_token` auth and Asaas's error shape
 * (`{"errors": [{"code", "description"}]}`). Test controls play the
 * customer (a Pix, a card in installments) and Asaas's webhooks, which carry the webhook's token
 * in the `asaas-access-token` header.
 *
 * Accounts ("Subcontas Asaas"): the fake holds the shop's own account (`apiKey`, `walletId`), a
 * root account (`rootApiKey`, `rootWalletId`: the vendor's) and the subaccounts a root creates with
 * `POST /v3/accounts`. Every key sees only its own account's checkouts and payments (an object of
 * another account answers 404, "Códigos HTTP das respostas"); each account has its wallet
 * (`GET /v3/wallets`), its webhooks (`POST`/`GET /v3/webhooks`) and its keys, which the root may
 * manage for its subaccounts (`/v3/accounts/{id}/accessTokens`) and which can expire.
 *
 * Money ("Recuperar uma única cobrança", https://docs.asaas.com/reference/retrieve-a-single-payment):
 * each payment's `netValue` is its value less Asaas's fee (`fees`, a rate the test may set), and
 * its splits are taken from that net (https://docs.asaas.com/docs/payment-split), not out of it;
 * `estimatedCreditDate` once confirmed, `creditDate` once received; a Pix received names its
 * `pixTransaction`, whose `endToEndIdentifier` `GET /v3/pix/transactions/{id}` answers
 * (https://docs.asaas.com/reference/retrieve-a-single-transaction).
 */
export interface FakeCheckout {
  id: string;
  link: string;
  status: 'ACTIVE' | 'PAID' | 'CANCELED' | 'EXPIRED';
  billingTypes: string[];
  chargeTypes: string[];
  installment?: { maxInstallmentCount: number };
  minutesToExpire: number;
  callback: { successUrl: string; cancelUrl?: string; expiredUrl?: string };
  items: Array<{ name: string; description?: string; quantity: number; value: number }>;
  externalReference?: string;
  /** The splits it was created with (Asaas answers them as `split`), percentages as percentualValue. */
  splits?: FakeSplitRule[];
  dateCreated: string;
  /** When Asaas ends it (dateCreated + minutesToExpire): not a field of Asaas's answer. */
  expiresAt: number;
  /** The account whose key created it: not a field of Asaas's answer. */
  accountId: string;
}

export interface FakePayment {
  object: 'payment';
  id: string;
  dateCreated: string;
  customer: string;
  checkoutSession: string;
  installment: string | null;
  installmentNumber: number | null;
  value: number;
  /** "Net value of the charge after discounting the Asaas fee" (`fees`). */
  netValue: number;
  interestValue: number | null;
  billingType: 'PIX' | 'CREDIT_CARD';
  status: string;
  dueDate: string;
  canBePaidAfterDueDate: boolean;
  externalReference: string | null;
  deleted: boolean;
  /** "Estimated date when the credit will be available": set once the payment is confirmed. */
  estimatedCreditDate: string | null;
  /** "Date when the credit became available": set once the payment is received. */
  creditDate: string | null;
  /** Whether it was anticipated; the fake anticipates nothing, a test may say it was. */
  anticipated: boolean;
  /** The Pix transaction that paid it (a Pix received), as `pixTransactions` holds it. */
  pixTransaction: string | null;
  /**
   * The dates of https://docs.asaas.com/reference/retrieve-a-single-payment (Asaas's example:
   * `"confirmedDate": "2021-01-01", "paymentDate": "2021-01-01", "clientPaymentDate":
   * "2021-01-01"`), days in Brasília's time by the fake's clock: `confirmedDate` and
   * `clientPaymentDate` (the day the customer paid) once the payment is CONFIRMED or RECEIVED,
   * `paymentDate` once it is RECEIVED; null until then.
   */
  confirmedDate: string | null;
  paymentDate: string | null;
  clientPaymentDate: string | null;
  /**
   * A card payment's card, as the same reference shows it: `"creditCard": {"creditCardNumber":
   * "8829", "creditCardBrand": "MASTERCARD", "creditCardToken": "a75a1d98-…"}` (the number's last
   * four digits, the brand: VISA, MASTERCARD, ELO, HIPERCARD, AMEX, DINERS...). Asaas documents no
   * authorization code or NSU on a payment (its `transactionReceiptUrl` is a receipt page, not a
   * field), so the fake reports none. Absent on a Pix.
   */
  creditCard?: { creditCardNumber: string; creditCardBrand: string; creditCardToken: string };
  /** Only on a payment of a checkout with splits, as the reference's payment shows it. */
  split?: FakePaymentSplit[];
  /**
   * "After a payment undergoes refunds, the refunds attribute is returned in the object of the
   * payment" (https://docs.asaas.com/docs/refunds): absent until its first refund.
   */
  refunds?: FakeAsaasRefund[];
}

/** One of a payment's `refunds`, as https://docs.asaas.com/docs/refunds shows it. */
export interface FakeAsaasRefund {
  /** "2022-02-21 10:28:40": Brasília's time. */
  dateCreated: string;
  /** "The available status ... PENDING, CANCELLED, and DONE". */
  status: 'PENDING' | 'CANCELLED' | 'DONE';
  value: number;
  description: string | null;
  transactionReceiptUrl: string | null;
}

/**
 * The customer a payment names (`customer`), as https://docs.asaas.com/reference/retrieve-a-single-customer
 * answers it (`GET /v3/customers/{id}`). Asaas's checkout makes it from what the buyer types in;
 * the payer of a Pix is known only through it (a payment has no payer fields of its own).
 */
export interface FakeCustomer {
  object: 'customer';
  id: string;
  dateCreated: string;
  name: string;
  email: string | null;
  phone: string | null;
  mobilePhone: string | null;
  address: string | null;
  addressNumber: string | null;
  complement: string | null;
  province: string | null;
  postalCode: string | null;
  cpfCnpj: string;
  /** FISICA for a CPF (11 digits), JURIDICA for a CNPJ (14). */
  personType: 'FISICA' | 'JURIDICA';
  deleted: boolean;
  additionalEmails: string | null;
  externalReference: string | null;
  notificationDisabled: boolean;
  observations: string | null;
  city: number | null;
  cityName: string | null;
  state: string | null;
  country: string;
}

/** One entry of a checkout's `splits` ("Checkout com Split de Pagamento"). */
export interface FakeSplitRule {
  walletId: string;
  fixedValue?: number;
  percentualValue?: number;
  /** Installments only: the whole plan's amount, shared among the installments. */
  totalFixedValue?: number;
  externalReference?: string;
  description?: string;
}

/** A payment's split as Asaas answers it (the payment's `split` list). */
export interface FakePaymentSplit {
  id: string;
  walletId: string;
  fixedValue: number | null;
  percentualValue: number | null;
  /** What this split takes of this payment, computed on its netValue. */
  totalValue: number;
  status:
    | 'PENDING'
    | 'AWAITING_CREDIT'
    | 'CANCELLED'
    | 'DONE'
    | 'REFUNDED'
    | 'BLOCKED_BY_VALUE_DIVERGENCE';
  cancellationReason: string | null;
  externalReference: string | null;
  description: string | null;
}

/** A Pix received, as `GET /v3/pix/transactions/{id}` answers it (the fields the fake knows). */
export interface FakePixTransaction {
  id: string;
  /** The Central Bank's id: `E`, the payer's bank's ISPB (8), yyyyMMddHHmm UTC (12), a sequence (11). */
  endToEndIdentifier: string;
  value: number;
  effectiveDate: string;
  status: 'DONE';
  type: 'CREDIT';
  originType: 'DYNAMIC_QRCODE';
  /** The payment it paid. */
  payment: string;
  dateCreated: string;
}

/**
 * Asaas's fees on what it receives, as the fake takes them from each payment's value. The
 * defaults are Asaas's public prices as its price page (asaas.com, "Preços e taxas") listed them
 * when this was written: a Pix received R$ 1,99; a card 2,99% at once, 3,49% in 2 to 6
 * installments, 3,99% in 7 to 12, plus R$ 0,49 a transaction (the fake takes it from the first
 * installment: the reference does not say how a plan's payments share it). Prices change and an
 * account may have its own: a test that asserts figures sets `fees` itself.
 */
export interface FakeAsaasFees {
  pixMinor: number;
  /** Hundredths of a percent by the most installments it applies to, in ascending order. */
  card: Array<{ upTo: number; percentHundredths: number }>;
  cardFixedMinor: number;
}

export const ASAAS_PUBLIC_FEES: FakeAsaasFees = {
  pixMinor: 199,
  card: [
    { upTo: 1, percentHundredths: 299 },
    { upTo: 6, percentHundredths: 349 },
    { upTo: 12, percentHundredths: 399 },
  ],
  cardFixedMinor: 49,
};

/**
 * When the fake credits what it received, as Asaas tells its customers (the fake's assumption: the
 * reference gives the dates, not the rule): a Pix at once, a card 32 days after it is confirmed,
 * each further installment a month (30 days) after the one before.
 */
const CARD_CREDIT_DAYS = 32;
const INSTALLMENT_DAYS = 30;

/** An Asaas account of the fake: the shop's, the root, or a subaccount. */
export interface FakeAccount {
  id: string;
  walletId: string;
  /** The account that created it (a subaccount's root); null for an account nobody created. */
  parentId: string | null;
  /** The key it was made with (a subaccount's is answered once, on its creation). */
  apiKey: string;
  /** What `POST /v3/accounts` accepted (name, email, cpfCnpj...); empty for the fake's own two. */
  data: Record<string, unknown>;
  webhooks: FakeWebhook[];
}

/** A webhook registered with `POST /v3/webhooks` (or in `POST /v3/accounts`'s `webhooks`). */
export interface FakeWebhook {
  id: string;
  name: string | null;
  url: string;
  email: string | null;
  enabled: boolean;
  interrupted: boolean;
  apiVersion: number;
  /** Sent as `asaas-access-token`; Asaas makes one when none is given and shows it only once. */
  authToken: string;
  sendType: 'SEQUENTIALLY' | 'NON_SEQUENTIALLY';
  events: string[];
  /** Consecutive deliveries not answered 200 (Asaas interrupts at 15): not a field of Asaas's. */
  failures: number;
}

/** An API key ("chave de API"): its account, whether it is enabled, and its expirationDate. */
export interface FakeApiKey {
  id: string;
  accountId: string;
  name: string;
  enabled: boolean;
  /** "YYYY-MM-DD" (usable through that day, Brasília time) or "YYYY-MM-DD HH:mm:ss"; null: never. */
  expirationDate: string | null;
  dateCreated: string;
}

const BILLING_TYPES = ['PIX', 'CREDIT_CARD'];
const CHARGE_TYPES = ['DETACHED', 'INSTALLMENT'];
const COMPANY_TYPES = ['MEI', 'LIMITED', 'INDIVIDUAL', 'ASSOCIATION'];
const SEND_TYPES = ['SEQUENTIALLY', 'NON_SEQUENTIALLY'];
/** The reference lists webhook events by entity; these are the entities' prefixes. */
const WEBHOOK_EVENT =
  /^(PAYMENT|CHECKOUT|INVOICE|TRANSFER|BILL|RECEIVABLE_ANTICIPATION|MOBILE_PHONE_RECHARGE|ACCOUNT_STATUS|SUBSCRIPTION|ACCESS_TOKEN)_[A-Z_]+$/;
/** "Você pode ter até 10 Webhooks configurados por conta" (Criar novo Webhook). */
const MAX_WEBHOOKS = 10;
/** The queue is interrupted after 15 consecutive failures (Webhooks FAQ). */
const MAX_FAILURES = 15;
/** The root's key management opens for 2 hours ("Gerenciamento das chaves de API de subcontas"). */
const KEY_MANAGEMENT_MS = 2 * 3600_000;
/** Asaas's dates are Brasília's (UTC-3, no daylight saving since 2019). */
const BRT_MS = -3 * 3600_000;

type Problem = [code: string, description: string];

/** The statuses of a payment Asaas has the money of: the ones a refund may start from. */
const PAID = new Set(['RECEIVED', 'CONFIRMED']);

export class FakeAsaas extends LoopbackFake {
  readonly checkouts = new Map<string, FakeCheckout>();
  readonly payments = new Map<string, FakePayment>();
  /** The Pix received, by id (a payment's `pixTransaction`). */
  readonly pixTransactions = new Map<string, FakePixTransaction>();
  /** The buyers checkouts were paid by, by id (a payment's `customer`), and their accounts. */
  readonly customers = new Map<string, FakeCustomer>();
  private readonly customerAccounts = new Map<string, string>();
  /** Asaas's fees, taken from each payment as it is made (`netValue`). */
  fees: FakeAsaasFees = ASAAS_PUBLIC_FEES;
  /** Every call to the API, with the `access_token` it came with (`apiKey`: whose key it used). */
  readonly requests: Array<{ method: string; path: string; body?: unknown; apiKey?: string }> = [];
  /** Every account by id: the shop's, the root and the subaccounts. */
  readonly accounts = new Map<string, FakeAccount>();
  /** The subaccounts created with `POST /v3/accounts`, by id. */
  readonly subaccounts = new Map<string, FakeAccount>();
  /** Every key that answers, by its value; a revoked key is gone from here. */
  readonly keys = new Map<string, FakeApiKey>();
  /** The fake's time (checkouts' expiry, keys' expirationDate): a test may set its own. */
  clock: () => Date = () => new Date();
  readonly walletId: string = randomUUID();
  readonly rootWalletId: string = randomUUID();
  /** Until when the root may manage its subaccounts' keys (opened by `enableKeyManagement`). */
  private keyManagementUntil = 0;

  constructor(
    readonly apiKey = `$aact_hmlg_${randomBytes(24).toString('base64url')}`,
    readonly webhookToken = `whtok-${randomBytes(24).toString('hex')}`,
    readonly rootApiKey = `$aact_hmlg_root_${randomBytes(24).toString('base64url')}`,
  ) {
    super();
    this.addAccount({ walletId: this.walletId, parentId: null, apiKey, data: {} });
    this.addAccount({ walletId: this.rootWalletId, parentId: null, apiKey: rootApiKey, data: {} });
  }

  protected buildApp(): express.Express {
    const app = express();
    app.use(express.json());
    const api = express.Router();
    api.use((req, res, next) => {
      this.requests.push({
        method: req.method,
        path: req.path,
        body: req.body as unknown,
        apiKey: req.header('access_token'),
      });
      if (!req.header('user-agent')) {
        return asaasError(res, 400, 'invalid_user_agent', 'O header User-Agent é obrigatório.');
      }
      const account = this.accountOf(req.header('access_token') ?? '');
      if (!account) {
        return asaasError(
          res,
          401,
          'invalid_access_token',
          'A chave de API informada não pertence a este ambiente.',
        );
      }
      res.locals.account = account;
      next();
    });
    api.post('/checkouts', (req, res) => {
      const body = req.body as Partial<FakeCheckout> & { splits?: unknown };
      const problem = checkoutProblem(body);
      if (problem) return asaasError(res, 400, 'invalid_checkout', problem);
      const splits = normalSplits(body.splits);
      const problems = this.splitProblems(splits, callerOf(res), body as FakeCheckout);
      if (problems.length) return asaasErrors(res, 400, problems);
      const id = randomUUID();
      const now = this.now();
      const checkout: FakeCheckout = {
        ...(body as FakeCheckout),
        id,
        link: `${this.url}/checkoutSession/show?id=${id}`,
        status: 'ACTIVE',
        splits: splits ?? undefined,
        dateCreated: new Date(now).toISOString(),
        expiresAt: now + (body.minutesToExpire ?? 60) * 60_000,
        accountId: callerOf(res).id,
      };
      if (!checkout.splits) delete checkout.splits;
      this.checkouts.set(id, checkout);
      return res.json(this.view(checkout));
    });
    api.post('/checkouts/:id/cancel', (req, res) => {
      const checkout = this.checkouts.get(req.params.id);
      if (!checkout || checkout.accountId !== callerOf(res).id) {
        return asaasError(res, 404, 'not_found', 'Checkout não encontrado.');
      }
      if (this.statusOf(checkout) !== 'ACTIVE') {
        return asaasError(
          res,
          400,
          'invalid_action',
          'Somente checkouts ativos podem ser cancelados.',
        );
      }
      checkout.status = 'CANCELED';
      return res.json(this.view(checkout));
    });
    api.get('/payments', (req, res) => {
      const session = req.query.checkoutSession;
      const reference = req.query.externalReference;
      const mine = callerOf(res).id;
      const found = [...this.payments.values()].filter(
        (p) =>
          this.checkouts.get(p.checkoutSession)?.accountId === mine &&
          (session === undefined || p.checkoutSession === session) &&
          (reference === undefined || p.externalReference === reference),
      );
      listOf(res, req.query, found);
    });
    // "Recuperar uma única cobrança": only the account whose checkout it paid sees it.
    api.get('/payments/:id', (req, res) => {
      const payment = this.payments.get(req.params.id);
      const owner = payment && this.checkouts.get(payment.checkoutSession)?.accountId;
      if (!payment || owner !== callerOf(res).id) {
        return asaasError(res, 404, 'not_found', 'Cobrança não encontrada.');
      }
      return res.json(payment);
    });
    // "Refund payment" (https://docs.asaas.com/reference/refund-payment): `value` (all that is
    // left when absent) and `description`; answers the payment. Only the account whose checkout it
    // paid finds it.
    api.post('/payments/:id/refund', (req, res) => {
      const payment = this.payments.get(req.params.id);
      const owner = payment && this.checkouts.get(payment.checkoutSession)?.accountId;
      if (!payment || owner !== callerOf(res).id) {
        return asaasError(res, 404, 'not_found', 'Cobrança não encontrada.');
      }
      const body = (req.body ?? {}) as { value?: unknown; description?: unknown };
      const problem = this.refundPayment(payment, body.value, body.description);
      if (problem) return asaasErrors(res, 400, [problem]);
      return res.json(payment);
    });
    // "Refund installment" (https://docs.asaas.com/reference/refund-installment): "an installment
    // received or confirmed via credit card", every installment of it Asaas has the money of,
    // each in full; answers the installment.
    api.post('/installments/:id/refund', (req, res) => {
      const mine = callerOf(res).id;
      const plan = [...this.payments.values()].filter(
        (p) =>
          p.installment === req.params.id &&
          this.checkouts.get(p.checkoutSession)?.accountId === mine,
      );
      if (!plan.length) return asaasError(res, 404, 'not_found', 'Parcelamento não encontrado.');
      const body = (req.body ?? {}) as { description?: unknown };
      const refundable = plan.filter((p) => p.billingType === 'CREDIT_CARD' && PAID.has(p.status));
      if (!refundable.length) {
        return asaasError(
          res,
          400,
          'invalid_action',
          'Nenhuma parcela deste parcelamento pode ser estornada.',
        );
      }
      for (const payment of refundable) {
        this.refundPayment(payment, undefined, body.description);
      }
      return res.json(installmentView(plan));
    });
    // "Recuperar um único cliente": only the account it is a customer of sees it.
    api.get('/customers/:id', (req, res) => {
      const customer = this.customers.get(req.params.id);
      if (!customer || this.customerAccounts.get(customer.id) !== callerOf(res).id) {
        return asaasError(res, 404, 'not_found', 'Cliente não encontrado.');
      }
      return res.json(customer);
    });
    api.get('/finance/balance', (_req, res) => res.json({ balance: 0 }));
    // "Recuperar uma única transação" (Pix): only the account that received it sees it.
    api.get('/pix/transactions/:id', (req, res) => {
      const found = this.pixTransactions.get(req.params.id);
      const paid = found && this.payments.get(found.payment);
      const owner = paid && this.checkouts.get(paid.checkoutSession)?.accountId;
      if (!found || owner !== callerOf(res).id) {
        return asaasError(res, 404, 'not_found', 'Transação não encontrada.');
      }
      return res.json(found);
    });

    // Subaccounts: "Criar subconta" (POST /v3/accounts), listed with GET /v3/accounts.
    api.post('/accounts', (req, res) => {
      const caller = callerOf(res);
      // Subaccounts hang under a root ("vinculadas a uma conta raiz"); the reference shows no
      // refusal's shape for a subaccount's key, so the fake answers 403, "requisição não autorizada".
      if (caller.parentId) {
        return asaasError(res, 403, 'forbidden', 'Somente a conta raiz pode criar subcontas.');
      }
      const body = req.body as Record<string, unknown>;
      const problems = this.accountProblems(body);
      if (problems.length) return asaasErrors(res, 400, problems);
      const config = (body.accessTokenConfig ?? {}) as { name?: unknown };
      const apiKey = `$aact_hmlg_${randomBytes(24).toString('base64url')}`;
      const { webhooks: _webhooks, accessTokenConfig: _config, ...data } = body;
      const account = this.addAccount(
        { walletId: randomUUID(), parentId: caller.id, apiKey, data },
        typeof config.name === 'string' ? config.name : undefined,
      );
      for (const hook of (body.webhooks as Record<string, unknown>[] | undefined) ?? []) {
        account.webhooks.push(newWebhook(hook));
      }
      this.subaccounts.set(account.id, account);
      return res.json({ ...accountView(account), apiKey });
    });
    api.get('/accounts', (req, res) => {
      const mine = [...this.subaccounts.values()].filter((a) => a.parentId === callerOf(res).id);
      listOf(res, req.query, mine.map(accountView));
    });

    // The subaccounts' keys, managed by their root ("Gerenciamento das chaves de API de subcontas").
    api.use('/accounts/:id/accessTokens', (req, res, next) => {
      const account = this.subaccounts.get(req.params.id ?? '');
      if (!account || account.parentId !== callerOf(res).id) {
        return asaasError(res, 404, 'not_found', 'Subconta não encontrada.');
      }
      // Opened in the web interface for 2 hours; the reference names no code for a closed one.
      if (this.now() >= this.keyManagementUntil) {
        return asaasError(
          res,
          403,
          'forbidden',
          'O gerenciamento de chaves de API de subcontas não está habilitado.',
        );
      }
      res.locals.subaccount = account;
      next();
    });
    api.get('/accounts/:id/accessTokens', (req, res) => {
      const { id } = res.locals.subaccount as FakeAccount;
      const keys = [...this.keys.values()].filter((k) => k.accountId === id);
      listOf(res, req.query, keys.map(keyView));
    });
    api.post('/accounts/:id/accessTokens', (req, res) => {
      const body = req.body as { name?: unknown; expirationDate?: unknown };
      const problems = this.keyProblems(body);
      if (problems.length) return asaasErrors(res, 400, problems);
      const value = `$aact_hmlg_${randomBytes(24).toString('base64url')}`;
      const key = this.addKey(value, (res.locals.subaccount as FakeAccount).id, {
        name: typeof body.name === 'string' ? body.name : undefined,
        expirationDate: typeof body.expirationDate === 'string' ? body.expirationDate : null,
      });
      // "O access_token é retornado somente na resposta desta operação."
      return res.json({ ...keyView(key), access_token: value });
    });
    api.put('/accounts/:id/accessTokens/:tokenId', (req, res) => {
      const found = this.keyById(res, req.params.tokenId);
      if (!found) return asaasError(res, 404, 'not_found', 'Chave de API não encontrada.');
      const body = req.body as { name?: unknown; expirationDate?: unknown; enabled?: unknown };
      const problems = this.keyProblems(body, true);
      if (problems.length) return asaasErrors(res, 400, problems);
      if (typeof body.name === 'string') found.name = body.name;
      if (typeof body.enabled === 'boolean') found.enabled = body.enabled;
      if (body.expirationDate !== undefined) {
        found.expirationDate = (body.expirationDate as string | null) ?? null;
      }
      return res.json(keyView(found));
    });
    api.delete('/accounts/:id/accessTokens/:tokenId', (req, res) => {
      const found = this.keyById(res, req.params.tokenId);
      if (!found) return asaasError(res, 404, 'not_found', 'Chave de API não encontrada.');
      for (const [value, key] of this.keys) if (key === found) this.keys.delete(value);
      return res.json({ id: found.id, deleted: true });
    });

    // "Recuperar WalletId": the caller's wallet, in Asaas's list shape.
    api.get('/wallets', (req, res) =>
      listOf(res, req.query, [{ object: 'wallet', id: callerOf(res).walletId }]),
    );

    // Webhooks by API, for root and subaccounts alike ("Criar novo Webhook pela API").
    api.post('/webhooks', (req, res) => {
      const caller = callerOf(res);
      const body = req.body as Record<string, unknown>;
      const problems = this.webhookProblems(body);
      if (caller.webhooks.length >= MAX_WEBHOOKS) {
        problems.push(['invalid_action', `Limite de ${MAX_WEBHOOKS} Webhooks por conta atingido.`]);
      }
      if (problems.length) return asaasErrors(res, 400, problems);
      const webhook = newWebhook(body);
      caller.webhooks.push(webhook);
      // The token is shown once, in this answer; a listing says only hasAuthToken.
      return res.json({ ...webhookView(webhook), authToken: webhook.authToken });
    });
    api.get('/webhooks', (req, res) =>
      listOf(res, req.query, callerOf(res).webhooks.map(webhookView)),
    );

    api.use((_req, res) => asaasError(res, 404, 'not_found', 'Recurso não encontrado.'));
    app.use('/v3', api);
    return app;
  }

  /** ASAAS_API_URL and the rest: the variables that aim the connector at this fake. */
  env(): Record<string, string> {
    return {
      PAYMENT_PROVIDER: 'asaas',
      ASAAS_API_KEY: this.apiKey,
      ASAAS_WEBHOOK_TOKEN: this.webhookToken,
      ASAAS_API_URL: `${this.url}/v3`,
      // A loopback fake is no official host: the deployment lists it (CONTRACT "Provider hosts").
      PROVIDER_API_ORIGINS: this.url,
    };
  }

  /** The account a key opens, while the key is enabled and not past its expirationDate. */
  accountOf(apiKey: string): FakeAccount | undefined {
    const key = this.keys.get(apiKey);
    if (!key?.enabled || (key.expirationDate && this.now() >= expiryOf(key.expirationDate))) {
      return undefined;
    }
    return this.accounts.get(key.accountId);
  }

  /** The key is deleted (as in Asaas's panel, for good): it then answers 401. */
  revokeKey(apiKey: string): void {
    if (!this.keys.delete(apiKey)) throw new Error('no such key');
  }

  /** The key's expirationDate passes (yesterday, by the fake's clock): it then answers 401. */
  expireKey(apiKey: string): FakeApiKey {
    const key = this.keys.get(apiKey);
    if (!key) throw new Error('no such key');
    key.expirationDate = brtDate(this.now() - 86_400_000);
    return key;
  }

  /** The root opens its subaccounts' key management in the web interface, for 2 hours. */
  enableKeyManagement(): void {
    this.keyManagementUntil = this.now() + KEY_MANAGEMENT_MS;
  }

  /** A checkout as Asaas answers it (its expiry is seen when read, as Asaas ends it on time). */
  private view(checkout: FakeCheckout): Record<string, unknown> {
    const { expiresAt: _expiresAt, accountId: _accountId, splits, ...shown } = checkout;
    return { ...shown, ...(splits ? { split: splits } : {}), status: this.statusOf(checkout) };
  }

  statusOf(checkout: FakeCheckout): FakeCheckout['status'] {
    if (checkout.status === 'ACTIVE' && this.now() >= checkout.expiresAt)
      checkout.status = 'EXPIRED';
    return checkout.status;
  }

  checkoutFor(externalReference: string): FakeCheckout | undefined {
    return [...this.checkouts.values()].find((c) => c.externalReference === externalReference);
  }

  /**
   * The customer pays an active checkout: a Pix (PENDING until `settle`, RECEIVED at once, or
   * CONFIRMED: held by Asaas's precautionary hold until `update` makes it RECEIVED or REFUNDED) or a
   * card, in `installments` (one payment per installment, all CONFIRMED), with `interestMinor` of
   * interest on top when the buyer pays some. Throws when the checkout can no longer be paid,
   * unless `late`: a Pix code the customer copied while the checkout was active, paid after it
   * closed (Asaas's reference does not say it refuses one; the connector's late-payment path
   * exists for it). A checkout with splits gives each payment its `split`. The buyer becomes a
   * customer of the checkout's account (`payer`: Maria Souza, CPF 529.982.247-25 by default), whom
   * each payment names; a card payment carries its `creditCard` (`card`: last four digits `8829`
   * and brand `MASTERCARD` by default, as Asaas's reference example).
   */
  pay(
    checkout: FakeCheckout,
    how: {
      billingType: 'PIX' | 'CREDIT_CARD';
      status?: string;
      installments?: number;
      interestMinor?: number;
      valueMinor?: number;
      late?: boolean;
      card?: { last4?: string; brand?: string };
      payer?: { name?: string; cpfCnpj?: string; email?: string };
    },
  ): FakePayment[] {
    if (this.statusOf(checkout) !== 'ACTIVE' && !how.late) {
      throw new Error(`checkout ${checkout.status}`);
    }
    if (!checkout.billingTypes.includes(how.billingType)) {
      throw new Error(`${how.billingType} is not offered`);
    }
    const count = how.installments ?? 1;
    if (count > 1 && (checkout.installment?.maxInstallmentCount ?? 1) < count) {
      throw new Error(`at most ${checkout.installment?.maxInstallmentCount ?? 1} installments`);
    }
    const orderMinor = how.valueMinor ?? totalMinorOf(checkout);
    const totalMinor = orderMinor + (how.interestMinor ?? 0);
    const plan = count > 1 ? randomUUID() : null;
    const status = how.status ?? (how.billingType === 'PIX' ? 'PENDING' : 'CONFIRMED');
    const today = new Date(this.now()).toISOString().slice(0, 10);
    const customer = this.addCustomer(checkout.accountId, how.payer ?? {});
    const creditCard =
      how.billingType === 'CREDIT_CARD'
        ? {
            creditCardNumber: how.card?.last4 ?? '8829',
            creditCardBrand: how.card?.brand ?? 'MASTERCARD',
            creditCardToken: randomUUID(),
          }
        : undefined;
    const made: FakePayment[] = [];
    for (let n = 1; n <= count; n++) {
      const share = (total: number) =>
        n < count ? Math.floor(total / count) : total - Math.floor(total / count) * (count - 1);
      const value = share(totalMinor) / 100;
      const interest = how.interestMinor ? share(how.interestMinor) / 100 : null;
      const payment: FakePayment = {
        object: 'payment',
        id: `pay_${randomBytes(8).toString('hex')}`,
        dateCreated: today,
        customer: customer.id,
        checkoutSession: checkout.id,
        installment: plan,
        installmentNumber: plan ? n : null,
        value,
        netValue:
          (share(totalMinor) - this.feeOf(how.billingType, count, n, share(totalMinor))) / 100,
        interestValue: interest,
        billingType: how.billingType,
        status,
        dueDate: today,
        canBePaidAfterDueDate: false,
        externalReference: null,
        deleted: false,
        estimatedCreditDate: null,
        creditDate: null,
        anticipated: false,
        pixTransaction: null,
        confirmedDate: null,
        paymentDate: null,
        clientPaymentDate: null,
        ...(creditCard ? { creditCard: { ...creditCard } } : {}),
      };
      this.settle(payment);
      if (checkout.splits) payment.split = paymentSplits(checkout.splits, payment, share);
      this.payments.set(payment.id, payment);
      made.push(payment);
    }
    // A closed checkout stays as it was closed; only an active one becomes PAID.
    const paid = status === 'RECEIVED' || status === 'CONFIRMED';
    if (paid && this.statusOf(checkout) === 'ACTIVE') checkout.status = 'PAID';
    return made;
  }

  /**
   * Asaas ends an active checkout by itself: the shop cancels it in Asaas's panel (CANCELED), or
   * Asaas's own clock runs out (EXPIRED). Asaas then posts CHECKOUT_CANCELED or CHECKOUT_EXPIRED
   * (docs.asaas.com, "Eventos para Checkout"); the test sends it with `event`.
   */
  endCheckout(checkout: FakeCheckout, status: 'CANCELED' | 'EXPIRED'): FakeCheckout {
    if (this.statusOf(checkout) !== 'ACTIVE') throw new Error(`checkout ${checkout.status}`);
    checkout.status = status;
    return checkout;
  }

  /**
   * Payments change status (a Pix received, a refund, a chargeback...), and their splits with them.
   * A payment Asaas has the money of made REFUNDED is refunded as `refund` does it (a `refunds`
   * entry of all that was left), at once (a held Pix, too).
   */
  update(payments: FakePayment[], status: string): FakePayment[] {
    for (const payment of payments) {
      if (status === 'REFUNDED' && PAID.has(payment.status)) {
        this.applyRefund(payment, this.leftMinor(payment), null, false);
        continue;
      }
      payment.status = status;
      this.settle(payment);
      for (const split of payment.split ?? []) followPayment(split, status);
    }
    const checkout = payments[0] && this.checkouts.get(payments[0].checkoutSession);
    const paid = status === 'RECEIVED' || status === 'CONFIRMED';
    if (checkout && paid && this.statusOf(checkout) === 'ACTIVE') checkout.status = 'PAID';
    return payments;
  }

  /**
   * Whether a payment's refund waits for its settlement: REFUND_IN_PROGRESS, "Estorno em
   * processamento (liquidação já está agendada, cobrança será estornada após executar a
   * liquidação)" (https://docs.asaas.com/docs/webhook-para-cobrancas), until `finishRefund`. The
   * reference does not say which payments' settlements are scheduled: none by default; a test
   * names them (a card's, say).
   */
  refundAwaitsSettlement: (payment: FakePayment) => boolean = () => false;

  /**
   * The shop refunds payments in Asaas's panel: each of all that is left, or `value` (reais), as
   * `POST /v3/payments/{id}/refund` does it. Throws what Asaas would refuse.
   */
  refund(
    payments: FakePayment[],
    options: { value?: number; description?: string } = {},
  ): FakePayment[] {
    for (const payment of payments) {
      const problem = this.refundPayment(payment, options.value, options.description);
      if (problem) throw new Error(`Asaas refuses the refund: ${problem[1]}`);
    }
    return payments;
  }

  /** The settlement runs: REFUND_IN_PROGRESS payments become REFUNDED, their refunds DONE. */
  finishRefund(payments: FakePayment[]): FakePayment[] {
    for (const payment of payments) {
      if (payment.status !== 'REFUND_IN_PROGRESS') {
        throw new Error(`payment ${payment.id} is ${payment.status}`);
      }
      for (const refund of payment.refunds ?? []) {
        if (refund.status === 'PENDING') refund.status = 'DONE';
      }
      payment.status = 'REFUNDED';
      for (const split of payment.split ?? []) followPayment(split, 'REFUNDED');
    }
    return payments;
  }

  /**
   * A refund of a payment, or why Asaas refuses it ("Refund payment"): a card "received or
   * confirmed", a Pix received ("Billings received via Pix allow for a full refund or multiple
   * partial refunds. The sum of these refunds cannot exceed the total amount"); `value` all that
   * is left by default ("If no value is provided, the full amount of the billing will be used"),
   * a positive number no more than what is left. The reference names no error codes for a
   * refusal: the fake says `invalid_action` (a payment it cannot refund) and `invalid_value`. It
   * keeps no balance, so never refuses a refund for one (the reference's "increase your balance").
   */
  private refundPayment(
    payment: FakePayment,
    value: unknown,
    description: unknown,
  ): Problem | null {
    const allowed =
      payment.billingType === 'CREDIT_CARD'
        ? PAID.has(payment.status)
        : payment.status === 'RECEIVED';
    if (!allowed) {
      return [
        'invalid_action',
        `A cobrança ${payment.id} não pode ser estornada: sua situação é ${payment.status}.`,
      ];
    }
    const left = this.leftMinor(payment);
    if (value !== undefined && (typeof value !== 'number' || !(value > 0))) {
      return ['invalid_value', 'O valor do estorno deve ser maior que zero.'];
    }
    // "Caso não seja informado, o estorno considerará o valor integral da cobrança" (Refund
    // payment): no value is the whole charge, refused once part of it was refunded.
    const minor = value === undefined ? Math.round(payment.value * 100) : Math.round(value * 100);
    if (minor > left) {
      return [
        'invalid_value',
        `O valor do estorno (R$ ${(minor / 100).toFixed(2)}) excede o valor disponível para estorno (R$ ${(left / 100).toFixed(2)}).`,
      ];
    }
    const text = typeof description === 'string' ? description : null;
    this.applyRefund(payment, minor, text, this.refundAwaitsSettlement(payment));
    return null;
  }

  /**
   * The refund made: a `refunds` entry; the payment REFUNDED once all of it is refunded (its
   * splits follow) or REFUND_IN_PROGRESS when it waits for the settlement (the entry PENDING);
   * refunded in part, it keeps its status.
   */
  private applyRefund(
    payment: FakePayment,
    minor: number,
    description: string | null,
    waits: boolean,
  ): void {
    const whole = minor === this.leftMinor(payment);
    const inProgress = whole && waits;
    const receipt = String(randomBytes(6).readUIntBE(0, 6)).padStart(16, '0');
    (payment.refunds ??= []).push({
      dateCreated: brtDateTime(this.now()),
      status: inProgress ? 'PENDING' : 'DONE',
      value: minor / 100,
      description,
      transactionReceiptUrl: `${this.url}/comprovantes/${receipt}`,
    });
    if (!whole) return;
    payment.status = inProgress ? 'REFUND_IN_PROGRESS' : 'REFUNDED';
    if (!inProgress) for (const split of payment.split ?? []) followPayment(split, 'REFUNDED');
  }

  /** What is left to refund of a payment, in centavos (refunds not CANCELLED count). */
  private leftMinor(payment: FakePayment): number {
    const refunded = (payment.refunds ?? [])
      .filter((r) => r.status !== 'CANCELLED')
      .reduce((sum, r) => sum + Math.round(r.value * 100), 0);
    return Math.round(payment.value * 100) - refunded;
  }

  paymentsOf(checkout: FakeCheckout): FakePayment[] {
    return [...this.payments.values()].filter((p) => p.checkoutSession === checkout.id);
  }

  /**
   * An event as Asaas posts it: `{id: "evt_...", event, dateCreated, account, checkout|payment}`;
   * `account` is the checkout's account, with its root as ownerId.
   */
  event(
    event: string,
    about: { checkout: FakeCheckout } | { payment: FakePayment },
  ): Record<string, unknown> {
    const owner = this.ownerOf(about);
    return {
      id: `evt_${randomBytes(16).toString('hex')}&${Math.floor(Math.random() * 1e7)}`,
      event,
      dateCreated: new Date(this.now()).toISOString().replace('T', ' ').slice(0, 19),
      account: { id: owner?.id ?? randomUUID(), ownerId: owner?.parentId ?? null },
      ...('checkout' in about
        ? { checkout: this.view(about.checkout) }
        : { payment: about.payment }),
    };
  }

  /** Posts an event to the connector with the webhook's token (or `token`; null: none); its answer. */
  async notify(
    endpoint: string,
    event: Record<string, unknown>,
    token: string | null = this.webhookToken,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token === null ? {} : { 'asaas-access-token': token }),
      },
      body: JSON.stringify(event),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  /**
   * Asaas delivers an event (from `event`) to the webhooks its account registered: each enabled,
   * not interrupted one that observes it gets a POST with its authToken as `asaas-access-token`.
   * Only a 200 counts as delivered; 15 failures in a row interrupt the webhook (Webhooks FAQ). The
   * fake posts one at a time whatever the sendType (both deliver in order when posted one by one).
   */
  async deliver(
    event: Record<string, unknown>,
  ): Promise<Array<{ webhook: FakeWebhook; status: number; body: unknown }>> {
    const about = event as { checkout?: { id?: string }; payment?: FakePayment };
    const checkout = this.checkouts.get(about.checkout?.id ?? about.payment?.checkoutSession ?? '');
    const owner = checkout && this.accounts.get(checkout.accountId);
    if (!owner) throw new Error('the event is about no checkout of the fake');
    const answers = [];
    for (const webhook of owner.webhooks) {
      if (!webhook.enabled || webhook.interrupted || !webhook.events.includes(String(event.event)))
        continue;
      const response = await fetch(webhook.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'asaas-access-token': webhook.authToken },
        body: JSON.stringify(event),
      });
      const text = await response.text();
      webhook.failures = response.status === 200 ? 0 : webhook.failures + 1;
      if (webhook.failures >= MAX_FAILURES) webhook.interrupted = true;
      answers.push({ webhook, status: response.status, body: parsed(text) });
    }
    return answers;
  }

  private now(): number {
    return this.clock().getTime();
  }

  /**
   * Asaas's fee on one payment of a plan of `count` (`n` its number), in centavos, never more
   * than the payment: a Pix's fixed fee, or a card's rate for the plan's installments (rounded half
   * up) and its fixed part on the first installment.
   */
  private feeOf(billingType: string, count: number, n: number, valueMinor: number): number {
    const fees = this.fees;
    if (billingType === 'PIX') return Math.min(valueMinor, fees.pixMinor);
    const rate = fees.card.find((r) => count <= r.upTo) ?? fees.card.at(-1);
    const percent = Math.floor((valueMinor * (rate?.percentHundredths ?? 0) + 5_000) / 10_000);
    return Math.min(valueMinor, percent + (n === 1 ? fees.cardFixedMinor : 0));
  }

  /**
   * The least a checkout nets after the fake's fees, whichever way it is paid: a Pix, or a card in
   * as many installments as it allows (the fee of the whole at that rate, close to the sum of the
   * installments' fees).
   */
  private leastNetMinor(checkout: FakeCheckout): number {
    const total = totalMinorOf(checkout);
    const most = checkout.chargeTypes.includes('INSTALLMENT')
      ? (checkout.installment?.maxInstallmentCount ?? 1)
      : 1;
    const fees = checkout.billingTypes.map((type) =>
      type === 'PIX' ? this.feeOf('PIX', 1, 1, total) : this.feeOf(type, most, 1, total),
    );
    return total - Math.max(0, ...fees);
  }

  /**
   * A payment's credit as its status moves (dates are Brasília's): confirmed, the day Asaas
   * estimates (a card's installment `n`: 32 days, plus a month for each before it); received,
   * credited on that day (the fake does not wait for it; a Pix the same day), and a Pix received
   * gets its Pix transaction.
   */
  private settle(payment: FakePayment): void {
    const paid = payment.status === 'CONFIRMED' || payment.status === 'RECEIVED';
    const day = brtDate(this.now());
    if (paid) {
      payment.confirmedDate ??= day;
      payment.clientPaymentDate ??= day;
    }
    if (payment.status === 'RECEIVED') payment.paymentDate ??= day;
    if (!paid || payment.estimatedCreditDate) {
      if (payment.status === 'RECEIVED') payment.creditDate ??= payment.estimatedCreditDate;
      return;
    }
    const days =
      payment.billingType === 'PIX'
        ? 0
        : CARD_CREDIT_DAYS + INSTALLMENT_DAYS * ((payment.installmentNumber ?? 1) - 1);
    payment.estimatedCreditDate = brtDate(this.now() + days * 86_400_000);
    if (payment.status === 'RECEIVED') payment.creditDate = payment.estimatedCreditDate;
    if (payment.billingType === 'PIX' && payment.status === 'RECEIVED') this.receivePix(payment);
  }

  /** The Pix transaction of a Pix received, with an end-to-end id of the Central Bank's shape. */
  private receivePix(payment: FakePayment): FakePixTransaction {
    const at = new Date(this.now()).toISOString();
    const stamp = at.slice(0, 16).replace(/\D/g, '');
    const sequence = randomBytes(16).toString('base64url').replace(/[-_]/g, '').slice(0, 11);
    const transaction: FakePixTransaction = {
      id: randomUUID(),
      endToEndIdentifier: `E18236120${stamp}${sequence.padEnd(11, '0')}`.slice(0, 32),
      value: payment.value,
      effectiveDate: brtDateTime(this.now()),
      status: 'DONE',
      type: 'CREDIT',
      originType: 'DYNAMIC_QRCODE',
      payment: payment.id,
      dateCreated: brtDateTime(this.now()),
    };
    this.pixTransactions.set(transaction.id, transaction);
    payment.pixTransaction = transaction.id;
    return transaction;
  }

  /** A new customer of the account, from what the buyer typed in (defaults: Maria Souza's). */
  private addCustomer(
    accountId: string,
    payer: { name?: string; cpfCnpj?: string; email?: string },
  ): FakeCustomer {
    const cpfCnpj = payer.cpfCnpj ?? '52998224725';
    const customer: FakeCustomer = {
      object: 'customer',
      // Like the reference's cus_000005219613.
      id: `cus_${String(randomBytes(6).readUIntBE(0, 6) % 1e12).padStart(12, '0')}`,
      dateCreated: brtDate(this.now()),
      name: payer.name ?? 'Maria Souza',
      email: payer.email ?? 'maria@example.com',
      phone: null,
      mobilePhone: null,
      address: null,
      addressNumber: null,
      complement: null,
      province: null,
      postalCode: null,
      cpfCnpj,
      personType: cpfCnpj.replace(/\D/g, '').length === 14 ? 'JURIDICA' : 'FISICA',
      deleted: false,
      additionalEmails: null,
      externalReference: null,
      notificationDisabled: false,
      observations: null,
      city: null,
      cityName: null,
      state: null,
      country: 'Brasil',
    };
    this.customers.set(customer.id, customer);
    this.customerAccounts.set(customer.id, accountId);
    return customer;
  }

  private addAccount(
    account: Omit<FakeAccount, 'id' | 'webhooks'>,
    keyName = 'Chave de API',
  ): FakeAccount {
    const made: FakeAccount = { id: randomUUID(), webhooks: [], ...account };
    this.accounts.set(made.id, made);
    this.addKey(made.apiKey, made.id, { name: keyName, expirationDate: null });
    return made;
  }

  private addKey(
    value: string,
    accountId: string,
    { name, expirationDate }: { name?: string; expirationDate: string | null },
  ): FakeApiKey {
    const key: FakeApiKey = {
      id: randomUUID(),
      accountId,
      name: name ?? 'Chave de API',
      enabled: true,
      expirationDate,
      dateCreated: brtDateTime(this.now()),
    };
    this.keys.set(value, key);
    return key;
  }

  private keyById(res: Response, id: string | undefined): FakeApiKey | undefined {
    const { id: accountId } = res.locals.subaccount as FakeAccount;
    return [...this.keys.values()].find((k) => k.id === id && k.accountId === accountId);
  }

  private ownerOf(about: { checkout: FakeCheckout } | { payment: FakePayment }) {
    const checkout =
      'checkout' in about ? about.checkout : this.checkouts.get(about.payment.checkoutSession);
    return checkout && this.accounts.get(checkout.accountId);
  }

  /**
   * What Asaas would refuse in a subaccount's creation ("Criar subconta"): name, email, cpfCnpj,
   * mobilePhone, incomeValue, address, addressNumber, province and postalCode required; birthDate
   * for a person (CPF), companyType for a company (CNPJ). One error per problem, as the reference's
   * 400 example lists them. Also the fake's own choices where the reference is silent: a CPF/CNPJ
   * must have its check digits, an email may open one account only, and a postalCode is 8 digits
   * (the fake has no CEP table: any 8 digits are found).
   */
  private accountProblems(body: Record<string, unknown>): Problem[] {
    const problems: Problem[] = [];
    const text = (field: string) => {
      const value = body[field];
      return typeof value === 'string' && value.trim() !== '';
    };
    const digits = (field: string) => String(body[field] ?? '').replace(/\D/g, '');
    for (const field of [
      'name',
      'email',
      'cpfCnpj',
      'mobilePhone',
      'address',
      'addressNumber',
      'province',
      'postalCode',
    ]) {
      if (!text(field)) problems.push([`invalid_${field}`, `O campo ${field} deve ser informado.`]);
    }
    if (text('email')) {
      const email = String(body.email).toLowerCase();
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
        problems.push(['invalid_email', 'O email informado é inválido.']);
      } else if (
        [...this.subaccounts.values()].some((a) => String(a.data.email).toLowerCase() === email)
      ) {
        problems.push(['invalid_email', `O email ${email} já está em uso.`]);
      }
    }
    if (typeof body.incomeValue !== 'number' || !(body.incomeValue > 0)) {
      problems.push(['invalid_incomeValue', 'O campo incomeValue deve ser informado.']);
    }
    if (text('mobilePhone') && !/^\d{10,11}$/.test(digits('mobilePhone'))) {
      problems.push(['invalid_mobilePhone', 'O celular informado é inválido.']);
    }
    if (text('postalCode') && !/^\d{8}$/.test(digits('postalCode'))) {
      problems.push(['invalid_city', 'O CEP informado não foi encontrado: informe a cidade.']);
    }
    const document = digits('cpfCnpj');
    if (text('cpfCnpj') && !validCpfCnpj(document)) {
      problems.push(['invalid_cpfCnpj', 'O CPF/CNPJ informado é inválido.']);
    } else if (document.length === 11) {
      const birth = String(body.birthDate ?? '');
      if (!/^\d{4}-\d{2}-\d{2}$/.test(birth) || !(Date.parse(birth) < this.now())) {
        problems.push(['invalid_birthDate', 'A data de nascimento deve ser informada.']);
      }
    } else if (document.length === 14 && !COMPANY_TYPES.includes(String(body.companyType))) {
      problems.push([
        'invalid_companyType',
        `O tipo de empresa deve ser informado: ${COMPANY_TYPES.join(', ')}.`,
      ]);
    }
    for (const hook of Array.isArray(body.webhooks) ? body.webhooks : []) {
      problems.push(...this.webhookProblems(hook as Record<string, unknown>));
    }
    return problems;
  }

  /**
   * What Asaas would refuse in a webhook ("Criar novo Webhook pela API"): a url (http or https),
   * sendType SEQUENTIALLY or NON_SEQUENTIALLY, a list of events, apiVersion 3, and an authToken,
   * when given, that is "secure": 32 to 255 characters, no spaces, no numeric sequence (12345) nor
   * 4 repeated letters, and no Asaas API key.
   */
  private webhookProblems(body: Record<string, unknown>): Problem[] {
    const problems: Problem[] = [];
    let url: URL | undefined;
    try {
      url = new URL(String(body.url ?? ''));
    } catch {
      url = undefined;
    }
    if (!url || !['http:', 'https:'].includes(url.protocol)) {
      problems.push(['invalid_url', 'Informe uma URL válida (http ou https).']);
    }
    if (!SEND_TYPES.includes(String(body.sendType))) {
      problems.push(['invalid_sendType', `O sendType deve ser ${SEND_TYPES.join(' ou ')}.`]);
    }
    const events = body.events;
    if (!Array.isArray(events) || events.length === 0) {
      problems.push(['invalid_events', 'Informe ao menos um evento.']);
    } else {
      for (const event of events) {
        if (typeof event !== 'string' || !WEBHOOK_EVENT.test(event)) {
          problems.push(['invalid_events', `O evento ${String(event)} não existe.`]);
        }
      }
    }
    if (body.apiVersion !== undefined && body.apiVersion !== 3) {
      problems.push(['invalid_apiVersion', 'A versão da API deve ser 3.']);
    }
    if (body.email !== undefined && body.email !== null) {
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(String(body.email))) {
        problems.push(['invalid_email', 'O email informado é inválido.']);
      }
    }
    const token = body.authToken;
    if (token !== undefined && token !== null) {
      if (typeof token !== 'string' || !secureToken(token) || this.keys.has(token)) {
        problems.push([
          'invalid_authToken',
          'O token de autenticação deve ter de 32 a 255 caracteres, sem espaços, sem sequências numéricas nem 4 letras repetidas, e não pode ser uma chave de API.',
        ]);
      }
    }
    return problems;
  }

  /**
   * What Asaas would refuse in a checkout's splits ("Checkout com Split de Pagamento", "FAQ do
   * Split"): a walletId of an Asaas account, never the caller's own wallet; a fixed value or a
   * percentage (of the netValue) each; the total no more than the net value (percentages no more
   * than 100%). The net value is the least the checkout may net after the fake's fees
   * (`leastNetMinor`). The reference names no error code: the fake says `invalid_split`.
   */
  private splitProblems(
    splits: FakeSplitRule[] | null | undefined,
    caller: FakeAccount,
    checkout: FakeCheckout,
  ): Problem[] {
    if (splits === undefined) return [];
    if (splits === null) return [['invalid_split', 'splits deve ser uma lista.']];
    const problems: Problem[] = [];
    const wallets = new Set([...this.accounts.values()].map((a) => a.walletId));
    const netMinor = this.leastNetMinor(checkout);
    let fixed = 0;
    let percent = 0;
    for (const split of splits) {
      const amounts = [split.fixedValue, split.percentualValue, split.totalFixedValue];
      const given = amounts.filter((v) => v !== undefined);
      if (typeof split.walletId !== 'string' || !wallets.has(split.walletId)) {
        problems.push(['invalid_split', `A carteira ${String(split.walletId)} não existe.`]);
      } else if (split.walletId === caller.walletId) {
        problems.push(['invalid_split', 'Não é permitido split para a sua própria carteira.']);
      }
      if (given.length !== 1 || given.some((v) => typeof v !== 'number' || !(v > 0))) {
        problems.push([
          'invalid_split',
          'Informe fixedValue ou percentualValue (maior que zero) de cada split.',
        ]);
        continue;
      }
      if (split.totalFixedValue !== undefined && !checkout.chargeTypes.includes('INSTALLMENT')) {
        problems.push(['invalid_split', 'totalFixedValue vale apenas para parcelamentos.']);
      }
      fixed += split.fixedValue ?? split.totalFixedValue ?? 0;
      percent += split.percentualValue ?? 0;
    }
    if (percent > 100) {
      problems.push(['invalid_split', 'A soma dos percentuais não pode ultrapassar 100%.']);
    } else if (Math.round(fixed * 100) + Math.round((netMinor * percent) / 100) > netMinor) {
      problems.push([
        'invalid_split',
        `O valor total do split excede o valor líquido a receber (R$ ${(netMinor / 100).toFixed(2)}).`,
      ]);
    }
    return problems;
  }

  /** A key's name and expirationDate ("YYYY-MM-DD" or "YYYY-MM-DD HH:mm:ss", not past). */
  private keyProblems(
    body: { name?: unknown; expirationDate?: unknown; enabled?: unknown },
    update = false,
  ): Problem[] {
    const problems: Problem[] = [];
    if (body.name !== undefined || !update) {
      if (typeof body.name !== 'string' || body.name.trim() === '') {
        problems.push(['invalid_name', 'O nome da chave deve ser informado.']);
      }
    }
    const date = body.expirationDate;
    if (date !== undefined && date !== null) {
      const shape = /^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2})?$/;
      if (typeof date !== 'string' || !shape.test(date) || !(expiryOf(date) > this.now())) {
        problems.push(['invalid_expirationDate', 'A data de expiração deve ser futura.']);
      }
    }
    if (body.enabled !== undefined && typeof body.enabled !== 'boolean') {
      problems.push(['invalid_enabled', 'enabled deve ser true ou false.']);
    }
    return problems;
  }
}

/** What Asaas would refuse in a checkout's creation, as its reference describes the fields. */
function checkoutProblem(body: Partial<FakeCheckout>): string | undefined {
  if (!body.billingTypes?.length || body.billingTypes.some((t) => !BILLING_TYPES.includes(t))) {
    return 'billingTypes deve conter PIX e/ou CREDIT_CARD.';
  }
  if (!body.chargeTypes?.length || body.chargeTypes.some((t) => !CHARGE_TYPES.includes(t))) {
    return 'chargeTypes inválido.';
  }
  if (body.chargeTypes.includes('INSTALLMENT')) {
    const count = body.installment?.maxInstallmentCount;
    if (!Number.isInteger(count) || (count ?? 0) < 1) {
      return 'installment.maxInstallmentCount é obrigatório para INSTALLMENT.';
    }
    if (!body.billingTypes.includes('CREDIT_CARD')) return 'INSTALLMENT exige CREDIT_CARD.';
  }
  if (!Number.isInteger(body.minutesToExpire) || (body.minutesToExpire ?? 0) < 1) {
    return 'minutesToExpire deve ser um inteiro positivo.';
  }
  if (!body.callback?.successUrl) return 'callback.successUrl é obrigatório.';
  if (!body.items?.length) return 'items é obrigatório.';
  for (const item of body.items) {
    if (!item.name || item.name.length > 30) return 'O nome do item deve ter até 30 caracteres.';
    if (!(item.value > 0) || !Number.isInteger(item.quantity) || item.quantity < 1) {
      return 'Informe quantity e value de cada item.';
    }
  }
  return undefined;
}

/**
 * A checkout's `splits` as the fake keeps them: the guide names the percentage `percentualValue`,
 * Asaas's own SDK (from its OpenAPI) `percentageValue` for checkouts; both are read. Null: not a list.
 */
function normalSplits(splits: unknown): FakeSplitRule[] | null | undefined {
  if (splits === undefined) return undefined;
  if (!Array.isArray(splits)) return null;
  return splits.map((raw: Record<string, unknown>) => {
    const { percentageValue, ...split } = raw ?? {};
    const rule = { ...split } as unknown as FakeSplitRule;
    if (rule.percentualValue === undefined && percentageValue !== undefined) {
      rule.percentualValue = percentageValue as number;
    }
    return rule;
  });
}

/**
 * A payment's `split`: each rule's amount on this payment's netValue (a totalFixedValue shared
 * among the installments as the reference's example, 33.33 + 33.33 + 33.34). PENDING until the
 * payment is confirmed; a total above the netValue is blocked (BLOCKED_BY_VALUE_DIVERGENCE).
 */
function paymentSplits(
  rules: FakeSplitRule[],
  payment: FakePayment,
  share: (totalMinor: number) => number,
): FakePaymentSplit[] {
  const splits = rules.map((rule): FakePaymentSplit => {
    const minor =
      rule.totalFixedValue !== undefined
        ? share(Math.round(rule.totalFixedValue * 100))
        : rule.fixedValue !== undefined
          ? Math.round(rule.fixedValue * 100)
          : Math.round(payment.netValue * (rule.percentualValue ?? 0));
    return {
      id: randomUUID(),
      walletId: rule.walletId,
      fixedValue: rule.fixedValue ?? (rule.totalFixedValue !== undefined ? minor / 100 : null),
      percentualValue: rule.percentualValue ?? null,
      totalValue: minor / 100,
      status: 'PENDING',
      cancellationReason: null,
      externalReference: rule.externalReference ?? null,
      description: rule.description ?? null,
    };
  });
  const total = splits.reduce((sum, s) => sum + Math.round(s.totalValue * 100), 0);
  for (const split of splits) {
    if (total > Math.round(payment.netValue * 100)) split.status = 'BLOCKED_BY_VALUE_DIVERGENCE';
    else followPayment(split, payment.status);
  }
  return splits;
}

/**
 * A split follows its payment (Asaas's changelog, "Um novo status foi criado... CANCELLED" and
 * "Novo status Split de Pagamento"): PENDING until the payment is confirmed, then AWAITING_CREDIT
 * until the transfer, DONE (the fake transfers when the payment is RECEIVED); CANCELLED when the
 * payment is received in cash, refunded before the transfer or overdue; REFUNDED when
 * refunded after it.
 */
function followPayment(split: FakePaymentSplit, status: string): void {
  if (split.status === 'BLOCKED_BY_VALUE_DIVERGENCE' || split.status === 'CANCELLED') return;
  const cancel = (reason: string) => {
    split.status = 'CANCELLED';
    split.cancellationReason = reason;
  };
  if (status === 'CONFIRMED') split.status = 'AWAITING_CREDIT';
  else if (status === 'RECEIVED') split.status = 'DONE';
  else if (status === 'RECEIVED_IN_CASH') cancel('PAYMENT_RECEIVED_IN_CASH');
  else if (status === 'OVERDUE') cancel('PAYMENT_OVERDUE');
  else if (status === 'REFUNDED') {
    if (split.status === 'DONE') split.status = 'REFUNDED';
    else cancel('PAYMENT_REFUNDED');
  }
}

function newWebhook(body: Record<string, unknown>): FakeWebhook {
  return {
    id: randomUUID(),
    name: typeof body.name === 'string' ? body.name : null,
    url: String(body.url),
    email: typeof body.email === 'string' ? body.email : null,
    enabled: body.enabled !== false,
    interrupted: body.interrupted === true,
    apiVersion: 3,
    authToken: typeof body.authToken === 'string' ? body.authToken : generatedToken(),
    sendType: body.sendType as FakeWebhook['sendType'],
    events: [...(body.events as string[])],
    failures: 0,
  };
}

/** A webhook as a listing shows it: `hasAuthToken`, never the token. */
function webhookView(webhook: FakeWebhook): Record<string, unknown> {
  const { authToken: _token, failures: _failures, ...shown } = webhook;
  return { ...shown, hasAuthToken: true };
}

/** A subaccount as Asaas answers it (AccountSaveResponseDto), its apiKey aside. */
function accountView(account: FakeAccount): Record<string, unknown> {
  const data = account.data as Record<string, string | number | undefined>;
  const document = String(data.cpfCnpj ?? '').replace(/\D/g, '');
  const or = (field: string) => data[field] ?? null;
  return {
    object: 'account',
    id: account.id,
    name: data.name,
    email: data.email,
    loginEmail: data.loginEmail ?? data.email,
    phone: or('phone'),
    mobilePhone: data.mobilePhone,
    address: data.address,
    addressNumber: data.addressNumber,
    complement: or('complement'),
    province: data.province,
    postalCode: data.postalCode,
    cpfCnpj: data.cpfCnpj,
    birthDate: or('birthDate'),
    personType: document.length === 11 ? 'FISICA' : 'JURIDICA',
    companyType: or('companyType'),
    // The fake has no CEP table, so it knows no city.
    city: null,
    state: null,
    country: 'Brasil',
    tradingName: data.name,
    site: or('site'),
    walletId: account.walletId,
    accountNumber: { agency: '0001', account: account.id.slice(0, 6), accountDigit: '0' },
  };
}

/**
 * An installment (a card plan) as Asaas answers it ("Refund installment" answers it; the fields of
 * its installment object, "Recuperar um único parcelamento"): its total `value` and `netValue`,
 * each installment's `paymentValue`, `installmentCount`, and what its payments share.
 */
function installmentView(plan: FakePayment[]): Record<string, unknown> {
  const first = plan[0]!;
  const sum = (pick: (p: FakePayment) => number) =>
    plan.reduce((total, p) => total + Math.round(pick(p) * 100), 0) / 100;
  return {
    object: 'installment',
    id: first.installment,
    value: sum((p) => p.value),
    netValue: sum((p) => p.netValue),
    paymentValue: first.value,
    installmentCount: plan.length,
    billingType: first.billingType,
    paymentDate: null,
    description: null,
    expirationDay: null,
    dateCreated: first.dateCreated,
    customer: first.customer,
    checkoutSession: first.checkoutSession,
    deleted: false,
  };
}

/** A key as a listing shows it, as in the ACCESS_TOKEN_* events' `accessToken`. */
function keyView(key: FakeApiKey): Record<string, unknown> {
  return {
    id: key.id,
    name: key.name,
    enabled: key.enabled,
    dateCreated: key.dateCreated,
    disableReason: key.enabled ? null : 'MANUAL',
    expirationDate: key.expirationDate,
    projectedExpirationDateByLackOfUse: null,
  };
}

/** Asaas's list shape, paged by limit (at most 100) and offset. */
function listOf(res: Response, query: Record<string, unknown>, all: unknown[]): void {
  const limit = Math.min(100, Number(query.limit ?? 10));
  const offset = Number(query.offset ?? 0);
  res.json({
    object: 'list',
    hasMore: offset + limit < all.length,
    totalCount: all.length,
    limit,
    offset,
    data: all.slice(offset, offset + limit),
  });
}

function callerOf(res: Response): FakeAccount {
  return res.locals.account as FakeAccount;
}

function totalMinorOf(checkout: Pick<FakeCheckout, 'items'>): number {
  return checkout.items.reduce(
    (sum, item) => sum + Math.round(item.value * 100) * item.quantity,
    0,
  );
}

/**
 * When a key's expirationDate passes: a date is usable through that day, a date and time until
 * then, both in Brasília's time (the reference gives the field, "2024-06-12", not its hour).
 */
function expiryOf(expirationDate: string): number {
  const [day, time] = expirationDate.split(' ');
  const start = Date.parse(`${day}T${time ?? '00:00:00'}Z`) - BRT_MS;
  return time ? start : start + 86_400_000;
}

function brtDate(ms: number): string {
  return new Date(ms + BRT_MS).toISOString().slice(0, 10);
}

function brtDateTime(ms: number): string {
  return new Date(ms + BRT_MS).toISOString().replace('T', ' ').slice(0, 19);
}

/** A CPF (11 digits) or CNPJ (14) with its two check digits right. */
function validCpfCnpj(digits: string): boolean {
  if (!/^(\d{11}|\d{14})$/.test(digits) || /^(\d)\1+$/.test(digits)) return false;
  const check = (length: number) => {
    const weights =
      digits.length === 11
        ? Array.from({ length }, (_, i) => length + 1 - i)
        : Array.from({ length }, (_, i) => ((length - 1 - i) % 8) + 2);
    const sum = weights.reduce((total, weight, i) => total + weight * Number(digits[i]), 0);
    return sum % 11 < 2 ? 0 : 11 - (sum % 11);
  };
  const base = digits.length - 2;
  return check(base) === Number(digits[base]) && check(base + 1) === Number(digits[base + 1]);
}

/** A webhook authToken as the reference asks it to be. */
function secureToken(token: string): boolean {
  if (token.length < 32 || token.length > 255 || /\s/.test(token)) return false;
  if (/([A-Za-z])\1{3}/.test(token) || token.startsWith('$aact_')) return false;
  for (let i = 0; i + 5 <= token.length; i++) {
    const run = token.slice(i, i + 5);
    if (!/^\d{5}$/.test(run)) continue;
    const steps = [...run].slice(1).map((d, j) => Number(d) - Number(run[j]));
    if (steps.every((s) => s === 1) || steps.every((s) => s === -1)) return false;
  }
  return true;
}

/** The token Asaas makes when none is given: one that passes its own rules. */
function generatedToken(): string {
  for (;;) {
    const token = `whsec_${randomBytes(32).toString('base64url')}`;
    if (secureToken(token)) return token;
  }
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function asaasError(res: Response, status: number, code: string, description: string): void {
  res.status(status).json({ errors: [{ code, description }] });
}

function asaasErrors(res: Response, status: number, problems: Problem[]): void {
  res
    .status(status)
    .json({ errors: problems.map(([code, description]) => ({ code, description })) });
}
