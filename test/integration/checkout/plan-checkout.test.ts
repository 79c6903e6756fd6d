import { expireCheckout } from '../../../src/checkout/expire-checkout';
import { MAX_PART_CHECKOUTS } from '../../../src/checkout/ports';
import { AppError } from '../../../src/errors';
import { checkoutKeys } from '../../../src/store/checkout-keys';
import { startPart, type StartResult } from '../../../src/checkout/plan-checkout';
import { syncCheckout } from '../../../src/checkout/settle-checkout';
import type { PaymentRecord } from '../../../src/checkout/payment-record';
import type { PlanDocument } from '../../../src/payments/payment-plan';
import type { PaymentProvider } from '../../../src/payments/payment-provider';
import { useCaseSuite } from '../../support/checkout-deps';

/*
 * A shop with a plan (CONTRACT "The payment page"): the platform's checkout holds the plan and
 * alone reports; each payment on the page is a part checkout of its own, here at the sandbox.
 */
describe('a checkout paid on the payment page', () => {
  const suite = useCaseSuite({ expiryMs: 60 * 60_000 });
  const plan = (changes: Partial<PlanDocument> = {}): PlanDocument => ({
    deposit: { percent: 30 },
    finishOn: 'deposit',
    balanceDueDays: 30,
    splitTender: true,
    ...changes,
  });
  /** A checkout of a shop with `shopPlan`, its page's URL sent to the platform. */
  const planned = async (shopPlan: PlanDocument = plan()) => {
    const w = suite.world;
    w.deps.plan = shopPlan;
    w.deps.offered = { methods: ['pix', 'card'], maxInstallments: 12 };
    return suite.checkout();
  };
  const notification = async (kind: 'finish' | 'cancel', checkoutId: string) =>
    suite.world.jobs.notificationQueue.getJob(`${kind}-${checkoutId}`);
  const started = (result: StartResult) => {
    if (result.kind !== 'redirect') throw new Error(`not started: ${JSON.stringify(result)}`);
    return result.partCheckout;
  };
  /** The customer pays a part checkout at the sandbox, which tells the connector as a webhook does. */
  const pay = async (partCheckout: string, method: 'pix' | 'card' = 'card') => {
    const w = suite.world;
    await w.sandbox.settle(partCheckout, 'paid', method);
    await syncCheckout(w.deps, partCheckout);
  };
  /**
   * A plan finishing on the whole, its deposit paid by card, at a sandbox whose refunds are
   * `refundPayment` (undefined: a provider that cannot refund).
   */
  const depositPaidWithRefunds = async (
    refundPayment: PaymentProvider['refundPayment'],
  ): Promise<{ id: string; deposit: string }> => {
    const w = suite.world;
    const id = await planned(plan({ finishOn: 'full' }));
    const deposit = started(await startPart(w.deps, id, { part: 'deposit', method: 'card' }));
    await pay(deposit);
    w.deps.provider = Object.assign(Object.create(w.sandbox) as typeof w.sandbox, {
      refundPayment,
    });
    return { id, deposit };
  };
  /** The test's clock at the planned checkout's expiry. */
  const toExpiry = async (checkoutId: string) => {
    suite.world.now = new Date((await record(checkoutId)).expiresAt);
  };
  const record = async (checkoutId: string) => {
    const found = await suite.world.deps.store.get(checkoutId);
    if (!found) throw new Error(`no checkout ${checkoutId}`);
    return found;
  };

  it('hands the platform its page, the order cut into a deposit and its balance', async () => {
    const id = await planned();
    const parent = await record(id);
    expect(parent.url).toBe(`http://127.0.0.1:9/pay/${id}`);
    expect(parent.providerRef).toBeUndefined();
    const order = parent.amount?.amountMinor ?? 0;
    const [deposit, balance] = parent.plan?.parts ?? [];
    expect(deposit).toMatchObject({ part: 'deposit', amountMinor: Math.round(order * 0.3) });
    expect(balance).toMatchObject({ part: 'balance', dueDate: '2026-12-20' });
    expect((deposit?.amountMinor ?? 0) + (balance?.amountMinor ?? 0)).toBe(order);
    expect(parent.plan?.finishOn).toBe('deposit');
  });

  it('finishes on the deposit, then takes the balance with no second outcome', async () => {
    const w = suite.world;
    const id = await planned();
    // The balance waits for its deposit.
    expect(await startPart(w.deps, id, { part: 'balance', method: 'pix' })).toMatchObject({
      kind: 'refused',
      status: 409,
      problem: 'Pague primeiro a entrada.',
    });
    const queued: PaymentRecord[] = [];
    w.deps.paymentRecords = { queue: async (one) => void queued.push(one) };
    const deposit = started(await startPart(w.deps, id, { part: 'deposit', method: 'pix' }));
    // The part's checkout at the sandbox: its amount, its one method.
    const atSandbox = await w.sandbox.payment(deposit);
    const parent = await record(id);
    expect(atSandbox?.amount.amountMinor).toBe(parent.plan?.parts[0]?.amountMinor);
    expect(await record(deposit)).toMatchObject({
      parent: id,
      part: 'deposit',
      state: 'requested',
    });
    expect((await record(id)).partCheckouts).toEqual([deposit]);
    await pay(deposit, 'pix');
    expect((await record(id)).outcome).toBe('paid');
    expect(await notification('finish', id)).toBeDefined();
    // The part told the platform nothing of its own.
    expect(await notification('finish', deposit)).toBeUndefined();
    expect(await w.deps.line.inLine(deposit)).toBe(false);
    const balance = started(await startPart(w.deps, id, { part: 'balance', method: 'card' }));
    await pay(balance);
    expect(await record(balance)).toMatchObject({ outcome: 'paid', part: 'balance' });
    expect(await notification('cancel', id)).toBeUndefined();
    expect(await notification('finish', balance)).toBeUndefined();
    expect(await startPart(w.deps, id, { part: 'balance', method: 'card' })).toMatchObject({
      kind: 'refused',
      problem: 'Este pedido já está todo pago.',
    });
    // The ERP gets a record per part paid, each naming its place in the plan; none of the
    // platform's checkout itself.
    const order = parent.amount?.amountMinor;
    expect(queued.map((one) => [one.checkout_id, one.event, one.amounts.order, one.plan])).toEqual([
      [
        deposit,
        'paid',
        parent.plan?.parts[0]?.amountMinor,
        { part: 'deposit', split: null, parts: 2, order_total: order, checkout_id: id },
      ],
      [
        balance,
        'paid',
        parent.plan?.parts[1]?.amountMinor,
        { part: 'balance', split: null, parts: 2, order_total: order, checkout_id: id },
      ],
    ]);
  });

  it('counts a balance due once the deposit is reported, overdue after its day, until paid', async () => {
    const w = suite.world;
    const id = await planned(plan({ balanceDueDays: 10 }));
    expect(await w.deps.line.balances(w.now)).toEqual({ due: 0, overdue: 0 });
    await pay(started(await startPart(w.deps, id, { part: 'deposit', method: 'card' })));
    expect(await w.deps.line.balances(w.now)).toEqual({ due: 1, overdue: 0 });
    // Due on the 30th in Brasília (opened 2026-11-20 12:00 UTC): overdue from the 1st on.
    expect((await record(id)).plan?.parts[1]?.dueDate).toBe('2026-11-30');
    expect(await w.deps.line.balances(new Date('2026-12-01T02:59:59.000Z'))).toEqual({
      due: 1,
      overdue: 0,
    });
    expect(await w.deps.line.balances(new Date('2026-12-01T03:00:00.000Z'))).toEqual({
      due: 1,
      overdue: 1,
    });
    // Kept while the balance is owed: the plan and its paid deposit, until its day and the
    // retention after it (180 days), though the deposit was paid and reported today.
    const ttl = async (checkoutId: string) =>
      w.redis.pttl(checkoutKeys(w.prefix, 'default').record(checkoutId));
    const owed = Date.parse('2026-12-01T02:59:59.999Z') - w.now.getTime() + 180 * 86_400_000;
    expect(await ttl(id)).toBeGreaterThan(owed - 60_000);
    const [deposit] = (await record(id)).partCheckouts ?? [];
    expect(await ttl(deposit ?? '')).toBeGreaterThan(owed - 60_000);
    await pay(started(await startPart(w.deps, id, { part: 'balance', method: 'card' })));
    expect(await w.deps.line.balances(w.now)).toEqual({ due: 0, overdue: 0 });
  });

  it('finishes on the whole when the shop says full', async () => {
    const w = suite.world;
    const id = await planned(plan({ finishOn: 'full' }));
    // Open until the balance's due day ends in Brasília, not the deposit's hour.
    expect((await record(id)).expiresAt).toBe('2026-12-21T02:59:59.999Z');
    await pay(started(await startPart(w.deps, id, { part: 'deposit', method: 'card' })));
    expect((await record(id)).state).toBe('url_sent');
    expect(await notification('finish', id)).toBeUndefined();
    await pay(started(await startPart(w.deps, id, { part: 'balance', method: 'pix' })), 'pix');
    expect((await record(id)).outcome).toBe('paid');
    expect(await notification('finish', id)).toBeDefined();
  });

  it('takes a part two ways, the first amount the customer’s, adding up to the part', async () => {
    const w = suite.world;
    const id = await planned(plan({ deposit: undefined, splitTender: true }));
    const [full] = (await record(id)).plan?.parts ?? [];
    expect(full?.part).toBe('full');
    const first = started(
      await startPart(w.deps, id, { part: 'split-1', method: 'card', amount: '1,00' }),
    );
    expect((await record(first)).amount?.amountMinor).toBe(100);
    await pay(first);
    expect((await record(id)).state).toBe('url_sent');
    // The second: the rest, whatever way (the whole part's name asks for it too).
    const second = started(await startPart(w.deps, id, { part: 'full', method: 'card' }));
    expect(await record(second)).toMatchObject({ split: 2, part: 'full' });
    expect((await record(second)).amount?.amountMinor).toBe((full?.amountMinor ?? 0) - 100);
    await pay(second);
    expect((await record(id)).outcome).toBe('paid');
  });

  it('leads the same choice twice to the same checkout while it is open', async () => {
    const w = suite.world;
    const id = await planned();
    const once = started(await startPart(w.deps, id, { part: 'deposit', method: 'pix' }));
    const twice = started(await startPart(w.deps, id, { part: 'deposit', method: 'pix' }));
    expect(twice).toBe(once);
    const card = started(await startPart(w.deps, id, { part: 'deposit', method: 'card' }));
    expect(card).not.toBe(once);
  });

  it('answers a bad choice in the customer’s words, starting nothing', async () => {
    const w = suite.world;
    const id = await planned();
    const refusal = async (choice: Record<string, unknown>) => {
      const result = await startPart(w.deps, id, choice);
      return result.kind === 'refused' ? [result.status, result.problem] : result.kind;
    };
    expect(await refusal({ part: 'deposit', method: 'boleto' })).toEqual([
      422,
      'Escolha uma das formas de pagamento oferecidas.',
    ]);
    expect(await refusal({ part: 'whatever', method: 'pix' })).toEqual([
      400,
      'Escolha uma parte do pedido para pagar.',
    ]);
    expect(await refusal({ part: 'split-1', method: 'pix', amount: '0,50' })).toEqual([
      422,
      expect.stringMatching(
        /^O primeiro valor deve ficar entre R\$\u00a01,00 e R\$\u00a0[\d.]+,\d\d\.$/,
      ),
    ]);
    for (const amount of ['abc', '12.34', '', undefined, 10, '9'.repeat(30)]) {
      expect((await refusal({ part: 'split-1', method: 'card', amount }))[0]).toBe(422);
    }
    expect(await refusal({ part: 'split-2', method: 'pix' })).toEqual([
      409,
      'Pague primeiro o primeiro valor desta parte.',
    ]);
    expect((await record(id)).partCheckouts).toBeUndefined();
  });

  it('gives back a part paid twice, finishing once', async () => {
    const w = suite.world;
    const id = await planned();
    const byPix = started(await startPart(w.deps, id, { part: 'deposit', method: 'pix' }));
    const byCard = started(await startPart(w.deps, id, { part: 'deposit', method: 'card' }));
    await pay(byPix, 'pix');
    w.advance(1000);
    await pay(byCard);
    expect((await record(id)).outcome).toBe('paid');
    expect((await w.sandbox.payment(byCard))?.state).toBe('refunded');
    expect((await w.sandbox.payment(byPix))?.state).toBe('paid');
    expect((await record(byCard)).incidents).toEqual([
      expect.objectContaining({ kind: 'refund', note: expect.stringMatching(/paid twice/) }),
    ]);
  });

  it('expires undone with a part paid: the part refunded, one cancel', async () => {
    const w = suite.world;
    const id = await planned(plan({ finishOn: 'full' }));
    const deposit = started(await startPart(w.deps, id, { part: 'deposit', method: 'card' }));
    await pay(deposit);
    const balance = started(await startPart(w.deps, id, { part: 'balance', method: 'pix' }));
    // Finishing on the whole, it is open until its balance's day: an hour on, it waits.
    w.advance(60 * 60_000);
    expect(await expireCheckout(w.deps, id)).toBe('recheck');
    expect((await record(id)).state).toBe('url_sent');
    await toExpiry(id);
    expect(await expireCheckout(w.deps, id)).toBe('expired');
    expect((await record(id)).outcome).toBe('expired');
    expect(await notification('cancel', id)).toBeDefined();
    expect(await notification('finish', id)).toBeUndefined();
    expect((await w.sandbox.payment(deposit))?.state).toBe('refunded');
    expect((await record(deposit)).incidents).toEqual([
      expect.objectContaining({ kind: 'refund', note: expect.stringMatching(/ended undone/) }),
    ]);
    // The open part closed at the provider, and ended.
    expect((await record(balance)).outcome).toBe('expired');
    expect((await w.sandbox.payment(balance))?.state).toBe('expired');
    expect(await startPart(w.deps, id, { part: 'balance', method: 'pix' })).toMatchObject({
      kind: 'refused',
      status: 409,
    });
  });

  it('finishes, never cancels, a plan done whose move on a part’s payment stopped short', async () => {
    const w = suite.world;
    const id = await planned();
    const deposit = started(await startPart(w.deps, id, { part: 'deposit', method: 'card' }));
    // The part's outcome is recorded by a try that stopped before moving its plan on.
    await w.sandbox.settle(deposit, 'paid', 'card');
    const now = w.now;
    await w.deps.store.transition(deposit, 'paid', {}, now, now, await record(deposit));
    expect((await record(id)).state).toBe('url_sent');
    expect(await w.deps.line.inLine(deposit)).toBe(true);
    w.advance(60 * 60_000);
    expect(await expireCheckout(w.deps, id)).toBe('settled');
    expect((await record(id)).outcome).toBe('paid');
    expect(await notification('finish', id)).toBeDefined();
    expect(await notification('cancel', id)).toBeUndefined();
    expect((await w.sandbox.payment(deposit))?.state).toBe('paid');
  });

  it('asks a refund the provider could not make now again, on the retry, once', async () => {
    const w = suite.world;
    const { sandbox } = w;
    let away = true;
    let asked = 0;
    const { id, deposit } = await depositPaidWithRefunds(async (ref) => {
      asked += 1;
      if (away) throw new AppError('PROVIDER_UNAVAILABLE', 'the sandbox is away');
      return sandbox.refundPayment(ref);
    });
    await toExpiry(id);
    await expect(expireCheckout(w.deps, id)).rejects.toThrow('the sandbox is away');
    // Nothing told yet: the plan is still open, and its expiry is tried again; it is closing,
    // so no payment opens meanwhile.
    expect((await record(id)).state).toBe('url_sent');
    expect((await record(deposit)).incidents).toBeUndefined();
    expect(await startPart(w.deps, id, { part: 'balance', method: 'pix' })).toMatchObject({
      kind: 'refused',
      status: 409,
    });
    away = false;
    expect(await expireCheckout(w.deps, id)).toBe('expired');
    expect(await expireCheckout(w.deps, id)).toBe('closed');
    expect(asked).toBe(2);
    expect((await w.sandbox.payment(deposit))?.state).toBe('refunded');
    expect((await record(deposit)).incidents?.map((incident) => incident.kind)).toEqual(['refund']);
    expect(await notification('cancel', id)).toBeDefined();
  });

  it('gives up asking a provider that stays away a day after the expiry: owed, and the cancel', async () => {
    const w = suite.world;
    const { id, deposit } = await depositPaidWithRefunds(async () => {
      throw new AppError('PROVIDER_UNAVAILABLE', 'the sandbox is away');
    });
    await toExpiry(id);
    await expect(expireCheckout(w.deps, id)).rejects.toThrow('the sandbox is away');
    w.advance(25 * 60 * 60_000);
    expect(await expireCheckout(w.deps, id)).toBe('expired');
    expect((await record(deposit)).incidents).toEqual([
      expect.objectContaining({ kind: 'refund_owed', note: expect.stringMatching(/kept failing/) }),
    ]);
    expect(await notification('cancel', id)).toBeDefined();
  });

  it('leads the same way back to a payment under way, and holds another', async () => {
    const w = suite.world;
    const id = await planned();
    const byPix = started(await startPart(w.deps, id, { part: 'deposit', method: 'pix' }));
    await w.sandbox.settle(byPix, 'processing', 'pix');
    await syncCheckout(w.deps, byPix);
    expect((await record(byPix)).state).toBe('processing');
    expect(started(await startPart(w.deps, id, { part: 'deposit', method: 'pix' }))).toBe(byPix);
    expect(await startPart(w.deps, id, { part: 'deposit', method: 'card' })).toMatchObject({
      kind: 'refused',
      status: 409,
    });
  });

  it('takes at most MAX_PART_CHECKOUTS part checkouts for one plan', async () => {
    const w = suite.world;
    const id = await planned(plan({ deposit: undefined, splitTender: true }));
    for (let i = 0; i < MAX_PART_CHECKOUTS; i++) {
      started(
        await startPart(w.deps, id, { part: 'split-1', method: 'pix', amount: `${i + 1},00` }),
      );
    }
    expect(
      await startPart(w.deps, id, { part: 'split-1', method: 'pix', amount: '99,00' }),
    ).toMatchObject({ kind: 'refused', status: 409 });
    expect((await record(id)).partCheckouts).toHaveLength(MAX_PART_CHECKOUTS);
    // The same choice as before still leads to its checkout.
    expect(
      (await startPart(w.deps, id, { part: 'split-1', method: 'pix', amount: '1,00' })).kind,
    ).toBe('redirect');
  });

  it('says a refund is owed where the provider cannot make it', async () => {
    const w = suite.world;
    const { id, deposit } = await depositPaidWithRefunds(undefined);
    await toExpiry(id);
    expect(await expireCheckout(w.deps, id)).toBe('expired');
    expect((await w.sandbox.payment(deposit))?.state).toBe('paid');
    expect((await record(deposit)).incidents).toEqual([
      expect.objectContaining({
        kind: 'refund_owed',
        note: expect.stringMatching(/sandbox cannot refund through the connector/),
      }),
    ]);
    expect(await notification('cancel', id)).toBeDefined();
  });
});
