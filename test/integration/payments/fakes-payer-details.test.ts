import Stripe from 'stripe';
import { FakeAsaas, type FakeCheckout } from '../../support/fake-asaas';
import { FakeMercadoPago, type FakePreference } from '../../support/fake-mercadopago';
import { FakeStripe } from '../../support/fake-stripe';

/*
 * The fakes of Stripe, Mercado Pago and Asaas report a paid payment's card (brand, last four
 * digits, authorization code, credit or debit) and its payer (name, CPF or CNPJ) where each real API
 * puts them, read here over HTTP as a client of that API reads them: Stripe with its official
 * client, Mercado Pago's `GET /v1/payments/{id}`, Asaas's `GET /v3/payments/{id}` and
 * `GET /v3/customers/{id}`.
 */

/** 22:30 on 10 March in Brazil (UTC-3): already the 11th in UTC. */
const NOW = new Date('2025-03-11T01:30:00Z');
const NOW_SECONDS = Math.floor(NOW.getTime() / 1000);

describe("the fake Stripe's card and payer details", () => {
  const stripe = new FakeStripe();
  let sdk: Stripe;

  beforeAll(async () => {
    await stripe.start();
    stripe.clock = () => NOW;
    sdk = stripe.client();
  });
  afterAll(() => stripe.stop());

  async function session(
    params: Partial<Stripe.Checkout.SessionCreateParams> = {},
    options: Stripe.RequestOptions = {},
  ): Promise<string> {
    const created = await sdk.checkout.sessions.create(
      {
        mode: 'payment',
        success_url: 'https://shop.example/return',
        line_items: [
          {
            quantity: 1,
            price_data: { currency: 'brl', unit_amount: 10_000, product_data: { name: 'Pedido' } },
          },
        ],
        ...params,
      },
      options,
    );
    return created.id;
  }

  async function paid(id: string, options: Stripe.RequestOptions = {}) {
    const read = await sdk.checkout.sessions.retrieve(
      id,
      { expand: ['payment_intent.latest_charge', 'payment_intent.payment_method'] },
      options,
    );
    const intent = read.payment_intent as Stripe.PaymentIntent;
    return {
      session: read,
      charge: intent.latest_charge as Stripe.Charge,
      method: intent.payment_method as Stripe.PaymentMethod,
    };
  }

  it('a card by default: a credit Visa ending 4242 with a six-digit authorization code', async () => {
    const id = await session();
    stripe.pay(id, 'card');
    const { session: read, charge, method } = await paid(id);
    expect(charge.payment_method_details?.type).toBe('card');
    expect(charge.payment_method_details?.card).toMatchObject({
      brand: 'visa',
      last4: '4242',
      funding: 'credit',
      authorization_code: expect.stringMatching(/^\d{6}$/),
      network: 'visa',
      installments: null,
      amount_authorized: 10_000,
    });
    // Stripe gives an online card its authorization code in payment_method_details.card only.
    expect(charge).not.toHaveProperty('authorization_code');
    expect(method.card).toMatchObject({ brand: 'visa', last4: '4242', funding: 'credit' });
    // The payer's name and email; no tax ID for a Brazilian account's charge.
    expect(charge.billing_details).toEqual({
      address: null,
      email: 'maria@example.com',
      name: 'Maria Souza',
      phone: null,
      tax_id: null,
    });
    expect(method.billing_details).toEqual(charge.billing_details);
    // Checkout collected no tax ID: the session did not enable tax_id_collection.
    expect(read.customer_details).toMatchObject({
      name: 'Maria Souza',
      email: 'maria@example.com',
      tax_ids: [],
    });
    // Made at the fake's clock, with its balance transaction.
    expect(charge.created).toBe(NOW_SECONDS);
    const transaction = await sdk.balanceTransactions.retrieve(
      charge.balance_transaction as string,
    );
    expect(transaction.created).toBe(NOW_SECONDS);
  });

  it("a card as given: a debit Mastercard, its code, the payer's CNPJ in tax_ids when collected", async () => {
    const id = await session({ tax_id_collection: { enabled: true } });
    stripe.pay(id, 'card', {
      installments: 3,
      card: { brand: 'mastercard', last4: '5100', funding: 'debit', authorizationCode: '123456' },
      payer: { name: 'Loja Exemplo Ltda', email: 'loja@example.com', taxId: '11222333000181' },
    });
    const { session: read, charge, method } = await paid(id);
    expect(charge.payment_method_details?.card).toMatchObject({
      brand: 'mastercard',
      last4: '5100',
      funding: 'debit',
      authorization_code: '123456',
      installments: { plan: { count: 3, interval: 'month', type: 'fixed_count' } },
    });
    expect(method.card).toMatchObject({ brand: 'mastercard', last4: '5100', funding: 'debit' });
    expect(charge.billing_details.name).toBe('Loja Exemplo Ltda');
    expect(read.tax_id_collection).toEqual({ enabled: true, required: 'never' });
    expect(read.customer_details?.tax_ids).toEqual([{ type: 'br_cnpj', value: '11222333000181' }]);
  });

  it('a card whose issuer reported no authorization code: null', async () => {
    const id = await session();
    stripe.pay(id, 'card', { card: { authorizationCode: null } });
    const { charge } = await paid(id);
    expect(charge.payment_method_details?.card?.authorization_code).toBeNull();
  });

  it("a boleto: the payer's CPF in payment_method_details.boleto.tax_id, a CPF in tax_ids", async () => {
    const id = await session({ tax_id_collection: { enabled: true } });
    stripe.pay(id, 'boleto');
    stripe.settle(id, true);
    const { session: read, charge, method } = await paid(id);
    expect(charge.payment_method_details).toEqual({
      type: 'boleto',
      boleto: { tax_id: '52998224725' },
    });
    expect(method.boleto).toEqual({ tax_id: '52998224725' });
    expect(charge.billing_details).toMatchObject({
      name: 'Maria Souza',
      email: 'maria@example.com',
      address: expect.objectContaining({ country: 'BR' }),
      tax_id: null,
    });
    expect(read.customer_details?.tax_ids).toEqual([{ type: 'br_cpf', value: '52998224725' }]);
  });

  it('a boleto without a tax ID cannot be paid', async () => {
    const id = await session();
    expect(() => stripe.pay(id, 'boleto', { payer: { taxId: null } })).toThrow(/CPF or CNPJ/);
  });

  it('a Pix: the bank transaction id, the email and no name; the charge made when it settles', async () => {
    const id = await session();
    stripe.pay(id, 'pix');
    const later = new Date(NOW.getTime() + 60_000);
    stripe.clock = () => later;
    try {
      stripe.settle(id, true, { bankTransactionId: 'E00000000202503110131abcdefghijk' });
    } finally {
      stripe.clock = () => NOW;
    }
    const { session: read, charge } = await paid(id);
    expect(charge.payment_method_details).toEqual({
      type: 'pix',
      pix: { bank_transaction_id: 'E00000000202503110131abcdefghijk' },
    });
    expect(charge.billing_details).toMatchObject({ name: null, email: 'maria@example.com' });
    expect(read.customer_details).toMatchObject({ name: null, tax_ids: [] });
    expect(charge.created).toBe(NOW_SECONDS + 60);
    const transaction = await sdk.balanceTransactions.retrieve(
      charge.balance_transaction as string,
    );
    expect(transaction.created).toBe(NOW_SECONDS + 60);
  });

  it("a Pix to a seller outside Latin America: the buyer's CPF in billing_details.tax_id", async () => {
    const account = await sdk.accounts.create({
      type: 'express',
      country: 'US',
      capabilities: { card_payments: { requested: true }, transfers: { requested: true } },
    });
    await stripe.completeOnboarding(account.id);
    const id = await session({}, { stripeAccount: account.id });
    stripe.pay(id, 'pix');
    stripe.settle(id, true);
    const { charge } = await paid(id, { stripeAccount: account.id });
    expect(charge.billing_details.tax_id).toBe('52998224725');
  });

  it('the charge and the PaymentMethod retrievable on their own, only as their account', async () => {
    const id = await session();
    stripe.pay(id, 'card');
    const charge = stripe.chargeOf(id);
    const read = await sdk.charges.retrieve(charge.id);
    expect(read.payment_method_details?.card?.last4).toBe('4242');
    const method = await sdk.paymentMethods.retrieve(charge.payment_method as string);
    expect(method).toMatchObject({ type: 'card', card: { brand: 'visa', last4: '4242' } });
    await expect(sdk.charges.retrieve('ch_unknown')).rejects.toMatchObject({ statusCode: 404 });
    // A connected account's charge and PaymentMethod are found only as that account.
    const account = await sdk.accounts.create({ type: 'express', country: 'BR' });
    await stripe.completeOnboarding(account.id);
    const direct = await session({}, { stripeAccount: account.id });
    stripe.pay(direct, 'card');
    const theirs = stripe.chargeOf(direct);
    await expect(sdk.charges.retrieve(theirs.id)).rejects.toMatchObject({ statusCode: 404 });
    await expect(
      sdk.paymentMethods.retrieve(theirs.payment_method as string),
    ).rejects.toMatchObject({ statusCode: 404 });
    const asTheirs = await sdk.charges.retrieve(theirs.id, {}, { stripeAccount: account.id });
    expect(asTheirs.billing_details.name).toBe('Maria Souza');
  });
});

describe("the fake Mercado Pago's card and payer details", () => {
  const mp = new FakeMercadoPago();

  beforeAll(async () => {
    await mp.start();
    mp.clock = () => NOW;
  });
  afterAll(() => mp.stop());

  async function preference(): Promise<FakePreference> {
    const response = await fetch(`${mp.url}/checkout/preferences`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${mp.accessToken}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        items: [{ title: 'Pedido', quantity: 1, unit_price: 100, currency_id: 'BRL' }],
        external_reference: `ref-${Math.random().toString(36).slice(2)}`,
        back_urls: { success: 'https://shop.example/ok', pending: '', failure: '' },
      }),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as FakePreference;
  }

  async function read(id: number): Promise<Record<string, unknown>> {
    const response = await fetch(`${mp.url}/v1/payments/${id}`, {
      headers: { authorization: `Bearer ${mp.accessToken}` },
    });
    expect(response.status).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  }

  it("a card by default: Mercado Pago's test Mastercard, its authorization code, the payer", async () => {
    const payment = await read(mp.pay(await preference(), 'approved').id);
    expect(payment).toMatchObject({
      payment_type_id: 'credit_card',
      payment_method_id: 'master',
      authorization_code: expect.stringMatching(/^\d{6}$/),
      date_approved: '2025-03-10T21:30:00.000-04:00',
      card: {
        first_six_digits: '503143',
        last_four_digits: '6351',
        expiration_month: 11,
        expiration_year: 2030,
        cardholder: { name: 'MARIA SOUZA', identification: { type: 'CPF', number: '52998224725' } },
      },
      payer: {
        id: expect.stringMatching(/^\d+$/),
        email: 'maria@example.com',
        first_name: 'Maria',
        last_name: 'Souza',
        identification: { type: 'CPF', number: '52998224725' },
      },
    });
  });

  it('a debit card as given, its holder and code; the payer a company', async () => {
    const payment = await read(
      mp.pay(await preference(), 'approved', undefined, {
        paymentType: 'debit_card',
        card: {
          firstSix: '506776',
          lastFour: '1234',
          holderName: 'JOAO SILVA',
          holderDocument: { type: 'CPF', number: '11144477735' },
        },
        authorizationCode: '654321',
        payer: {
          firstName: 'Loja',
          lastName: 'Exemplo',
          email: 'loja@example.com',
          identification: { type: 'CNPJ', number: '11222333000181' },
        },
      }).id,
    );
    expect(payment).toMatchObject({
      payment_type_id: 'debit_card',
      payment_method_id: 'debelo',
      authorization_code: '654321',
      card: {
        first_six_digits: '506776',
        last_four_digits: '1234',
        cardholder: { name: 'JOAO SILVA', identification: { type: 'CPF', number: '11144477735' } },
      },
      payer: { first_name: 'Loja', identification: { type: 'CNPJ', number: '11222333000181' } },
    });
  });

  it('a card payment gets its authorization code when it is approved, not before', async () => {
    const pending = mp.pay(await preference(), 'in_process', undefined, {
      authorizationCode: '777777',
    });
    expect(await read(pending.id)).toMatchObject({ authorization_code: null, date_approved: null });
    mp.update(pending, 'approved');
    expect(await read(pending.id)).toMatchObject({ authorization_code: '777777' });
  });

  it('a Pix and a boleto: no card, no authorization code, the payer', async () => {
    for (const paymentType of ['bank_transfer', 'ticket']) {
      const made = mp.pay(await preference(), 'pending', undefined, { paymentType });
      mp.update(made, 'approved');
      const payment = await read(made.id);
      expect(payment).toMatchObject({
        payment_type_id: paymentType,
        card: {},
        authorization_code: null,
        payer: { first_name: 'Maria', identification: { type: 'CPF', number: '52998224725' } },
      });
    }
  });
});

describe("the fake Asaas's card and payer details", () => {
  const asaas = new FakeAsaas();

  beforeAll(async () => {
    await asaas.start();
    asaas.clock = () => NOW;
  });
  afterAll(() => asaas.stop());

  function get(path: string, apiKey = asaas.apiKey): Promise<Response> {
    return fetch(`${asaas.url}/v3${path}`, {
      headers: { access_token: apiKey, 'user-agent': 'fakes-payer-details' },
    });
  }

  async function checkout(): Promise<FakeCheckout> {
    const response = await fetch(`${asaas.url}/v3/checkouts`, {
      method: 'POST',
      headers: {
        access_token: asaas.apiKey,
        'user-agent': 'fakes-payer-details',
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        billingTypes: ['PIX', 'CREDIT_CARD'],
        chargeTypes: ['DETACHED', 'INSTALLMENT'],
        installment: { maxInstallmentCount: 3 },
        minutesToExpire: 60,
        callback: { successUrl: 'https://shop.example/ok' },
        items: [{ name: 'Pedido', quantity: 1, value: 100 }],
      }),
    });
    expect(response.status).toBe(200);
    const { id } = (await response.json()) as { id: string };
    return asaas.checkouts.get(id)!;
  }

  async function json(response: Response): Promise<Record<string, unknown>> {
    expect(response.status).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  }

  it('a card by default: a MASTERCARD ending 8829, its dates, and the payer as the customer', async () => {
    const [made] = asaas.pay(await checkout(), { billingType: 'CREDIT_CARD' });
    const payment = await json(await get(`/payments/${made!.id}`));
    expect(payment).toMatchObject({
      billingType: 'CREDIT_CARD',
      status: 'CONFIRMED',
      creditCard: {
        creditCardNumber: '8829',
        creditCardBrand: 'MASTERCARD',
        creditCardToken: expect.stringMatching(/^[0-9a-f-]{36}$/),
      },
      // 22:30 on the 10th in Brasília.
      confirmedDate: '2025-03-10',
      clientPaymentDate: '2025-03-10',
      paymentDate: null,
    });
    // Asaas reports no authorization code or NSU on a payment.
    expect(Object.keys(payment).filter((key) => /authori|nsu/i.test(key))).toEqual([]);
    const customer = await json(await get(`/customers/${String(payment.customer)}`));
    expect(customer).toMatchObject({
      object: 'customer',
      id: payment.customer,
      name: 'Maria Souza',
      cpfCnpj: '52998224725',
      email: 'maria@example.com',
      personType: 'FISICA',
      deleted: false,
    });
    // Received later: its paymentDate that day, the others as they were.
    const later = new Date(NOW.getTime() + 2 * 86_400_000);
    asaas.clock = () => later;
    try {
      asaas.update([made!], 'RECEIVED');
    } finally {
      asaas.clock = () => NOW;
    }
    expect(await json(await get(`/payments/${made!.id}`))).toMatchObject({
      confirmedDate: '2025-03-10',
      paymentDate: '2025-03-12',
    });
  });

  it("a card as given, in installments: every installment carries it; a company's customer", async () => {
    const made = asaas.pay(await checkout(), {
      billingType: 'CREDIT_CARD',
      installments: 3,
      card: { last4: '1111', brand: 'ELO' },
      payer: { name: 'Loja Exemplo Ltda', cpfCnpj: '11222333000181', email: 'loja@example.com' },
    });
    expect(made).toHaveLength(3);
    for (const installment of made) {
      const payment = await json(await get(`/payments/${installment.id}`));
      expect(payment.creditCard).toMatchObject({
        creditCardNumber: '1111',
        creditCardBrand: 'ELO',
      });
      expect(payment.customer).toBe(made[0]!.customer);
    }
    expect(await json(await get(`/customers/${made[0]!.customer}`))).toMatchObject({
      name: 'Loja Exemplo Ltda',
      cpfCnpj: '11222333000181',
      personType: 'JURIDICA',
    });
  });

  it('a Pix: no creditCard, the payer only through the customer, dates once received', async () => {
    const [made] = asaas.pay(await checkout(), { billingType: 'PIX' });
    expect(await json(await get(`/payments/${made!.id}`))).toMatchObject({
      status: 'PENDING',
      confirmedDate: null,
      paymentDate: null,
      clientPaymentDate: null,
    });
    asaas.update([made!], 'RECEIVED');
    const payment = await json(await get(`/payments/${made!.id}`));
    expect(payment).not.toHaveProperty('creditCard');
    expect(payment).toMatchObject({
      confirmedDate: '2025-03-10',
      paymentDate: '2025-03-10',
      clientPaymentDate: '2025-03-10',
    });
    expect(await json(await get(`/customers/${String(payment.customer)}`))).toMatchObject({
      name: 'Maria Souza',
      cpfCnpj: '52998224725',
    });
  });

  it("an unknown customer or payment, or another account's: 404; no key: 401", async () => {
    const [made] = asaas.pay(await checkout(), { billingType: 'PIX' });
    for (const path of ['/customers/cus_000000000000', '/payments/pay_unknown']) {
      const response = await get(path);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({
        errors: [{ code: 'not_found', description: expect.any(String) }],
      });
    }
    expect((await get(`/customers/${made!.customer}`, asaas.rootApiKey)).status).toBe(404);
    expect((await get(`/payments/${made!.id}`, asaas.rootApiKey)).status).toBe(404);
    expect((await get(`/customers/${made!.customer}`, 'not-a-key')).status).toBe(401);
  });
});
