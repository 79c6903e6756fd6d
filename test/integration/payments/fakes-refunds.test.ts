import Stripe from 'stripe';
import { FakeAsaas, type FakeCheckout, type FakePayment } from '../../support/fake-asaas';
import {
  FakeMercadoPago,
  type FakeMercadoPagoRefund,
  type FakePreference,
} from '../../support/fake-mercadopago';
import { FakeStripe } from '../../support/fake-stripe';

/*
 * The fakes of Stripe, Mercado Pago and Asaas refund a paid payment as each real API does, read
 * here over HTTP as a client of that API would: Stripe with its official client (`POST
 * /v1/refunds`), Mercado Pago's `POST /v1/payments/{id}/refunds`, Asaas's `POST
 * /v3/payments/{id}/refund` and `POST /v3/installments/{id}/refund`. Each: a full refund, a
 * partial one then the rest, a repeated request refunding once, the refusals, and a later read of
 * the payment showing the refund.
 */

describe("the fake Stripe's refunds", () => {
  const stripe = new FakeStripe();
  let sdk: Stripe;

  beforeAll(async () => {
    await stripe.start();
    sdk = stripe.client();
  });
  afterAll(() => stripe.stop());

  /** A session of R$ 100,00 paid `method` (settled, for a Pix or a boleto): its ids. */
  async function paid(
    method: 'card' | 'pix' | 'boleto' = 'card',
    options: Stripe.RequestOptions = {},
  ): Promise<{ session: string; intent: string; charge: string }> {
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
      },
      options,
    );
    stripe.pay(created.id, method);
    if (method !== 'card') stripe.settle(created.id, true);
    const charge = stripe.chargeOf(created.id);
    return { session: created.id, intent: charge.payment_intent, charge: charge.id };
  }

  async function chargeRead(id: string, options: Stripe.RequestOptions = {}) {
    return sdk.charges.retrieve(id, { expand: ['refunds'] }, options);
  }

  it('refunds a card in full by its PaymentIntent: the refund, and the charge read later', async () => {
    const { session, intent, charge } = await paid();
    const refund = await sdk.refunds.create({
      payment_intent: intent,
      reason: 'requested_by_customer',
      metadata: { order: '1001' },
    });
    expect(refund).toMatchObject({
      id: expect.stringMatching(/^re_/),
      object: 'refund',
      amount: 10_000,
      charge,
      payment_intent: intent,
      currency: 'brl',
      status: 'succeeded',
      reason: 'requested_by_customer',
      metadata: { order: '1001' },
      created: expect.any(Number),
    });
    expect(await sdk.refunds.retrieve(refund.id)).toMatchObject({ id: refund.id, amount: 10_000 });
    const read = await chargeRead(charge);
    expect(read).toMatchObject({ amount_refunded: 10_000, refunded: true });
    expect(read.refunds?.data.map((r) => r.id)).toEqual([refund.id]);
    // The session's charge says so too.
    const expanded = await sdk.checkout.sessions.retrieve(session, {
      expand: ['payment_intent.latest_charge'],
    });
    const latest = (expanded.payment_intent as Stripe.PaymentIntent).latest_charge as Stripe.Charge;
    expect(latest).toMatchObject({ amount_refunded: 10_000, refunded: true });
  });

  it('refunds part of a charge, then the rest by default; then refuses charge_already_refunded', async () => {
    const { charge } = await paid();
    const first = await sdk.refunds.create({ charge, amount: 3_000 });
    expect(first).toMatchObject({ amount: 3_000, status: 'succeeded', reason: null });
    expect(await chargeRead(charge)).toMatchObject({ amount_refunded: 3_000, refunded: false });
    const rest = await sdk.refunds.create({ charge });
    expect(rest.amount).toBe(7_000);
    const read = await chargeRead(charge);
    expect(read).toMatchObject({ amount_refunded: 10_000, refunded: true });
    expect(read.refunds?.data.map((r) => r.amount)).toEqual([7_000, 3_000]);
    await expect(sdk.refunds.create({ charge })).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 400,
      code: 'charge_already_refunded',
    });
    const listed = await sdk.refunds.list({ charge });
    expect(listed.data.map((r) => r.id)).toEqual([rest.id, first.id]);
  });

  it('answers the same refund to the same Idempotency-Key and refunds once; other params: idempotency_error', async () => {
    const { intent, charge } = await paid();
    const key = `refund-${charge}`;
    const once = await sdk.refunds.create(
      { payment_intent: intent, amount: 2_500 },
      { idempotencyKey: key },
    );
    const again = await sdk.refunds.create(
      { payment_intent: intent, amount: 2_500 },
      { idempotencyKey: key },
    );
    expect(again.id).toBe(once.id);
    expect(stripe.refundsOf(charge)).toHaveLength(1);
    expect(await chargeRead(charge)).toMatchObject({ amount_refunded: 2_500 });
    await expect(
      sdk.refunds.create({ payment_intent: intent, amount: 1_000 }, { idempotencyKey: key }),
    ).rejects.toMatchObject({ type: 'StripeIdempotencyError', statusCode: 400 });
    expect(stripe.refundsOf(charge)).toHaveLength(1);
    // A key's saved answer is a refusal too, once the refund was tried.
    const tooMuch = { payment_intent: intent, amount: 9_000 };
    const refused = { code: 'amount_too_large', statusCode: 400, param: 'amount' };
    await expect(sdk.refunds.create(tooMuch, { idempotencyKey: `${key}-2` })).rejects.toMatchObject(
      refused,
    );
    await expect(sdk.refunds.create(tooMuch, { idempotencyKey: `${key}-2` })).rejects.toMatchObject(
      refused,
    );
    expect(await chargeRead(charge)).toMatchObject({ amount_refunded: 2_500, refunded: false });
  });

  it('refuses what Stripe refuses, and leaves the charge as it was', async () => {
    const card = await paid();
    await expect(sdk.refunds.create({ charge: card.charge, amount: 10_001 })).rejects.toMatchObject(
      {
        code: 'amount_too_large',
        param: 'amount',
      },
    );
    await expect(sdk.refunds.create({})).rejects.toMatchObject({ code: 'parameter_missing' });
    await expect(sdk.refunds.create({ charge: card.charge, amount: 0 })).rejects.toMatchObject({
      code: 'parameter_invalid_integer',
    });
    await expect(sdk.refunds.create({ charge: 'ch_unknown' })).rejects.toMatchObject({
      statusCode: 404,
      code: 'resource_missing',
    });
    expect(await chargeRead(card.charge)).toMatchObject({ amount_refunded: 0, refunded: false });

    // A Pix not yet paid: its PaymentIntent has no succeeded charge.
    const open = await sdk.checkout.sessions.create({
      mode: 'payment',
      success_url: 'https://shop.example/return',
      line_items: [
        {
          quantity: 1,
          price_data: { currency: 'brl', unit_amount: 5_000, product_data: { name: 'Pedido' } },
        },
      ],
    });
    const processing = stripe.pay(open.id, 'pix');
    await expect(
      sdk.refunds.create({ payment_intent: processing.payment_intent! }),
    ).rejects.toMatchObject({ statusCode: 400, code: 'payment_intent_unexpected_state' });

    // A charge the buyer disputed with the card's issuer.
    const disputed = await paid();
    stripe.dispute(disputed.session);
    await expect(sdk.refunds.create({ charge: disputed.charge })).rejects.toMatchObject({
      code: 'charge_disputed',
    });

    // A boleto: "Boleto payments can't be refunded".
    const boleto = await paid('boleto');
    await expect(sdk.refunds.create({ charge: boleto.charge })).rejects.toMatchObject({
      code: 'charge_not_refundable',
    });
    expect(stripe.refundsOf(boleto.charge)).toEqual([]);
  });

  it('a Pix refund is pending until it settles; a failed one gives its amount back', async () => {
    const { charge } = await paid('pix');
    const pending = await sdk.refunds.create({ charge, amount: 4_000 });
    expect(pending).toMatchObject({ status: 'pending', pending_reason: 'processing' });
    expect(await chargeRead(charge)).toMatchObject({ amount_refunded: 4_000 });
    stripe.settleRefund(pending.id);
    expect(await sdk.refunds.retrieve(pending.id)).toMatchObject({ status: 'succeeded' });
    expect((await sdk.refunds.retrieve(pending.id)).pending_reason).toBeUndefined();

    const failing = await sdk.refunds.create({ charge });
    expect(await chargeRead(charge)).toMatchObject({ amount_refunded: 10_000, refunded: true });
    stripe.settleRefund(failing.id, false);
    expect(await sdk.refunds.retrieve(failing.id)).toMatchObject({
      status: 'failed',
      failure_reason: 'unknown',
    });
    expect(await chargeRead(charge)).toMatchObject({ amount_refunded: 4_000, refunded: false });
  });

  it("a connected account's charge is refunded only as that account", async () => {
    const account = await sdk.accounts.create({ type: 'express', country: 'BR' });
    await stripe.completeOnboarding(account.id);
    const theirs = await paid('card', { stripeAccount: account.id });
    await expect(sdk.refunds.create({ charge: theirs.charge })).rejects.toMatchObject({
      statusCode: 404,
      code: 'resource_missing',
    });
    const refund = await sdk.refunds.create(
      { payment_intent: theirs.intent },
      { stripeAccount: account.id },
    );
    await expect(sdk.refunds.retrieve(refund.id)).rejects.toMatchObject({ statusCode: 404 });
    expect(await sdk.refunds.retrieve(refund.id, {}, { stripeAccount: account.id })).toMatchObject({
      amount: 10_000,
    });
    expect(await chargeRead(theirs.charge, { stripeAccount: account.id })).toMatchObject({
      refunded: true,
    });
  });

  it('the dashboard hook makes the same refund: the API then finds nothing left', async () => {
    const { session, charge } = await paid();
    const refunded = stripe.refund(session, { amount: 6_000 });
    expect(refunded).toMatchObject({ amount_refunded: 6_000, refunded: false });
    const [made] = stripe.refundsOf(charge);
    expect(await sdk.refunds.retrieve(made!.id)).toMatchObject({ amount: 6_000, charge });
    await expect(sdk.refunds.create({ charge, amount: 4_001 })).rejects.toMatchObject({
      code: 'amount_too_large',
    });
    stripe.refund(session);
    expect(await chargeRead(charge)).toMatchObject({ amount_refunded: 10_000, refunded: true });
    // Refunded in full, the hook leaves it so.
    expect(stripe.refund(session).amount_refunded).toBe(10_000);
    expect(stripe.refundsOf(charge)).toHaveLength(2);
  });
});

describe("the fake Mercado Pago's refunds", () => {
  const mp = new FakeMercadoPago();
  let keys = 0;

  beforeAll(() => mp.start());
  afterAll(() => mp.stop());

  async function preference(): Promise<FakePreference> {
    const response = await fetch(`${mp.url}/checkout/preferences`, {
      method: 'POST',
      headers: { authorization: `Bearer ${mp.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        items: [{ title: 'Pedido', quantity: 1, unit_price: 100, currency_id: 'BRL' }],
        external_reference: `ref-${Math.random().toString(36).slice(2)}`,
        back_urls: { success: 'https://shop.example/ok', pending: '', failure: '' },
      }),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as FakePreference;
  }

  /** `POST /v1/payments/{id}/refunds`, with a new X-Idempotency-Key unless one is given (null: none). */
  async function refund(
    id: number,
    body?: Record<string, unknown>,
    key: string | null = `key-${++keys}`,
    token = mp.accessToken,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`${mp.url}/v1/payments/${id}/refunds`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        ...(key === null ? {} : { 'x-idempotency-key': key }),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  async function read(path: string): Promise<unknown> {
    const response = await fetch(`${mp.url}${path}`, {
      headers: { authorization: `Bearer ${mp.accessToken}` },
    });
    expect(response.status).toBe(200);
    return response.json();
  }

  const payment = (id: number) => read(`/v1/payments/${id}`) as Promise<Record<string, unknown>>;

  it('refunds an approved payment in full: the refund, the payment and its refunds read later', async () => {
    const paid = mp.pay(await preference(), 'approved');
    const answer = await refund(paid.id);
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      id: expect.any(Number),
      payment_id: paid.id,
      amount: 100,
      status: 'approved',
      refund_mode: 'standard',
      source: { type: 'collector' },
      date_created: expect.stringMatching(/-04:00$/),
    });
    expect(await payment(paid.id)).toMatchObject({
      status: 'refunded',
      status_detail: 'refunded',
      transaction_amount_refunded: 100,
      refunds: [answer.body],
    });
    expect(await read(`/v1/payments/${paid.id}/refunds`)).toEqual([answer.body]);
    expect(await read(`/v1/payments/${paid.id}/refunds/${String(answer.body.id)}`)).toEqual(
      answer.body,
    );
  });

  it('refunds part, the payment stays approved partially_refunded; then the rest', async () => {
    const paid = mp.pay(await preference(), 'approved');
    const part = await refund(paid.id, { amount: 30.5 });
    expect(part).toMatchObject({ status: 201, body: { amount: 30.5 } });
    expect(await payment(paid.id)).toMatchObject({
      status: 'approved',
      status_detail: 'partially_refunded',
      transaction_amount_refunded: 30.5,
    });
    const rest = await refund(paid.id);
    expect(rest).toMatchObject({ status: 201, body: { amount: 69.5 } });
    const read = await payment(paid.id);
    expect(read).toMatchObject({ status: 'refunded', transaction_amount_refunded: 100 });
    expect((read.refunds as FakeMercadoPagoRefund[]).map((r) => r.amount)).toEqual([30.5, 69.5]);
  });

  it('answers the same refund to the same X-Idempotency-Key, refunding once', async () => {
    const paid = mp.pay(await preference(), 'approved');
    const once = await refund(paid.id, { amount: 25 }, 'same-key');
    const again = await refund(paid.id, { amount: 25 }, 'same-key');
    expect(again).toEqual(once);
    expect(once.status).toBe(201);
    const read = await payment(paid.id);
    expect(read).toMatchObject({ transaction_amount_refunded: 25 });
    expect(read.refunds).toHaveLength(1);
  });

  it('refuses what Mercado Pago refuses, in its error shape, and changes nothing', async () => {
    const paid = mp.pay(await preference(), 'approved');
    const cause = (code: number) => ({
      status: 400,
      body: { status: 400, error: 'bad_request', cause: [expect.objectContaining({ code })] },
    });
    expect(await refund(paid.id, undefined, null)).toMatchObject(cause(4292));
    expect(await refund(paid.id, { amount: 0 })).toMatchObject(cause(4040));
    expect(await refund(paid.id, { amount: '10' })).toMatchObject(cause(4041));
    expect(await refund(paid.id, { amount: 100.01 })).toMatchObject({
      status: 400,
      body: { error: 'bad_request', message: expect.stringMatching(/more than/) },
    });
    expect(await payment(paid.id)).toMatchObject({
      status: 'approved',
      transaction_amount_refunded: 0,
      refunds: [],
    });
    // Not approved (yet), or refunded already: not valid for the payment's state.
    const pending = mp.pay(await preference(), 'pending', undefined, {
      paymentType: 'bank_transfer',
    });
    expect(await refund(pending.id)).toMatchObject(cause(2063));
    await refund(paid.id);
    expect(await refund(paid.id)).toMatchObject(cause(2063));
    // Unknown, another seller's, a bad token.
    expect(await refund(999)).toMatchObject({ status: 404, body: { cause: [{ code: 2000 }] } });
    const theirs = mp.pay({ ...(await preference()), collector_id: 42 }, 'approved');
    expect((await refund(theirs.id)).status).toBe(404);
    expect(theirs).toMatchObject({ status: 'approved', refunds: [] });
    expect((await refund(paid.id, undefined, undefined, 'not-a-token')).status).toBe(401);
  });

  it('the panel hook (update to refunded) makes the same refund: the API then refuses', async () => {
    const paid = mp.pay(await preference(), 'approved');
    mp.update(paid, 'refunded');
    const read = await payment(paid.id);
    expect(read).toMatchObject({ status: 'refunded', transaction_amount_refunded: 100 });
    expect(read.refunds).toEqual([expect.objectContaining({ amount: 100, payment_id: paid.id })]);
    expect((await refund(paid.id)).status).toBe(400);
    const part = mp.pay(await preference(), 'approved');
    mp.refund(part, 40);
    expect(await payment(part.id)).toMatchObject({ status_detail: 'partially_refunded' });
    expect((await refund(part.id, { amount: 60 })).status).toBe(201);
    expect(await payment(part.id)).toMatchObject({ status: 'refunded' });
  });
});

describe("the fake Asaas's refunds", () => {
  const asaas = new FakeAsaas();

  beforeAll(() => asaas.start());
  afterAll(() => asaas.stop());

  function call(path: string, body?: unknown, apiKey = asaas.apiKey): Promise<Response> {
    return fetch(`${asaas.url}/v3${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        access_token: apiKey,
        'user-agent': 'fakes-refunds',
        'content-type': 'application/json',
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  async function json(response: Response, status = 200): Promise<Record<string, unknown>> {
    expect(response.status).toBe(status);
    return (await response.json()) as Record<string, unknown>;
  }

  async function checkout(): Promise<FakeCheckout> {
    const created = await json(
      await call('/checkouts', {
        billingTypes: ['PIX', 'CREDIT_CARD'],
        chargeTypes: ['DETACHED', 'INSTALLMENT'],
        installment: { maxInstallmentCount: 3 },
        minutesToExpire: 60,
        callback: { successUrl: 'https://shop.example/ok' },
        items: [{ name: 'Pedido', quantity: 1, value: 100 }],
      }),
    );
    return asaas.checkouts.get(String(created.id))!;
  }

  async function paid(how: Parameters<FakeAsaas['pay']>[1]): Promise<FakePayment[]> {
    return asaas.pay(await checkout(), how);
  }

  const refused = (code: string) => ({
    errors: [{ code, description: expect.any(String) }],
  });

  it('refunds a card in full: the payment REFUNDED with its refund, read later', async () => {
    const [card] = await paid({ billingType: 'CREDIT_CARD' });
    const answer = await json(await call(`/payments/${card!.id}/refund`, {}));
    expect(answer).toMatchObject({ object: 'payment', id: card!.id, status: 'REFUNDED' });
    expect(answer.refunds).toEqual([
      {
        dateCreated: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        status: 'DONE',
        value: 100,
        description: null,
        transactionReceiptUrl: expect.any(String),
      },
    ]);
    expect(await json(await call(`/payments/${card!.id}`))).toEqual(answer);
  });

  it('refunds part of a Pix (it stays RECEIVED), then the rest by its value (REFUNDED); no value after a part is the whole charge: refused', async () => {
    const [pix] = await paid({ billingType: 'PIX', status: 'RECEIVED' });
    const part = await json(
      await call(`/payments/${pix!.id}/refund`, { value: 30.25, description: 'Item faltante' }),
    );
    expect(part).toMatchObject({
      status: 'RECEIVED',
      refunds: [{ value: 30.25, description: 'Item faltante', status: 'DONE' }],
    });
    // "Caso não seja informado, o estorno considerará o valor integral da cobrança".
    expect(await json(await call(`/payments/${pix!.id}/refund`, {}), 400)).toEqual(
      refused('invalid_value'),
    );
    const rest = await json(await call(`/payments/${pix!.id}/refund`, { value: 69.75 }));
    expect(rest.status).toBe('REFUNDED');
    expect((rest.refunds as Array<{ value: number }>).map((r) => r.value)).toEqual([30.25, 69.75]);
    expect(await json(await call(`/payments/${pix!.id}`))).toMatchObject({ status: 'REFUNDED' });
  });

  it('the same refund asked again refunds once: the second is refused', async () => {
    const [card] = await paid({ billingType: 'CREDIT_CARD' });
    await json(await call(`/payments/${card!.id}/refund`, {}));
    expect(await json(await call(`/payments/${card!.id}/refund`, {}), 400)).toEqual(
      refused('invalid_action'),
    );
    const read = await json(await call(`/payments/${card!.id}`));
    expect(read.refunds).toHaveLength(1);
  });

  it('refunds a card plan: every installment REFUNDED, the installment answered', async () => {
    const plan = await paid({ billingType: 'CREDIT_CARD', installments: 3 });
    const id = plan[0]!.installment!;
    const answer = await json(await call(`/installments/${id}/refund`, {}));
    expect(answer).toMatchObject({
      object: 'installment',
      id,
      value: 100,
      installmentCount: 3,
      billingType: 'CREDIT_CARD',
      customer: plan[0]!.customer,
    });
    for (const installment of plan) {
      expect(await json(await call(`/payments/${installment.id}`))).toMatchObject({
        status: 'REFUNDED',
        refunds: [{ value: installment.value, status: 'DONE' }],
      });
    }
    expect(await json(await call(`/installments/${id}/refund`, {}), 400)).toEqual(
      refused('invalid_action'),
    );
  });

  it('refuses what Asaas refuses, in its error shape, and changes nothing', async () => {
    const [pending] = await paid({ billingType: 'PIX' });
    expect(await json(await call(`/payments/${pending!.id}/refund`, {}), 400)).toEqual(
      refused('invalid_action'),
    );
    const [pix] = await paid({ billingType: 'PIX', status: 'RECEIVED' });
    for (const value of [100.01, 0, '10']) {
      expect(await json(await call(`/payments/${pix!.id}/refund`, { value }), 400)).toEqual(
        refused('invalid_value'),
      );
    }
    const read = await json(await call(`/payments/${pix!.id}`));
    expect(read.status).toBe('RECEIVED');
    expect(read).not.toHaveProperty('refunds');
    // Unknown, or another account's: not found.
    expect(await json(await call('/payments/pay_unknown/refund', {}), 404)).toEqual(
      refused('not_found'),
    );
    expect((await call(`/payments/${pix!.id}/refund`, {}, asaas.rootApiKey)).status).toBe(404);
    expect((await call('/installments/unknown/refund', {})).status).toBe(404);
    const plan = await paid({ billingType: 'CREDIT_CARD', installments: 2 });
    const other = await call(`/installments/${plan[0]!.installment!}/refund`, {}, asaas.rootApiKey);
    expect(other.status).toBe(404);
    expect(plan.map((p) => p.status)).toEqual(['CONFIRMED', 'CONFIRMED']);
  });

  it('a refund waiting for the settlement is REFUND_IN_PROGRESS until it runs', async () => {
    asaas.refundAwaitsSettlement = (payment) => payment.billingType === 'CREDIT_CARD';
    try {
      const [card] = await paid({ billingType: 'CREDIT_CARD' });
      const answer = await json(await call(`/payments/${card!.id}/refund`, {}));
      expect(answer).toMatchObject({
        status: 'REFUND_IN_PROGRESS',
        refunds: [{ status: 'PENDING', value: 100 }],
      });
      expect((await call(`/payments/${card!.id}/refund`, {})).status).toBe(400);
      asaas.finishRefund([card!]);
      expect(await json(await call(`/payments/${card!.id}`))).toMatchObject({
        status: 'REFUNDED',
        refunds: [{ status: 'DONE' }],
      });
    } finally {
      asaas.refundAwaitsSettlement = () => false;
    }
  });

  it('the panel hooks (update to REFUNDED, refund) make the same refund: the API then refuses', async () => {
    const [card] = await paid({ billingType: 'CREDIT_CARD' });
    asaas.update([card!], 'REFUNDED');
    expect(await json(await call(`/payments/${card!.id}`))).toMatchObject({
      status: 'REFUNDED',
      refunds: [{ value: 100, status: 'DONE' }],
    });
    expect((await call(`/payments/${card!.id}/refund`, {})).status).toBe(400);
    const [pix] = await paid({ billingType: 'PIX', status: 'RECEIVED' });
    asaas.refund([pix!], { value: 60 });
    expect(await json(await call(`/payments/${pix!.id}/refund`, { value: 40.01 }), 400)).toEqual(
      refused('invalid_value'),
    );
    expect(await json(await call(`/payments/${pix!.id}/refund`, { value: 40 }))).toMatchObject({
      status: 'REFUNDED',
    });
  });
});
