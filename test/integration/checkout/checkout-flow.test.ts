import { checkoutRouteWorld, post, sandboxFlowWorld } from '../../support/checkout-flow-world';
import {
  eventually,
  ROUTE_TOKEN,
  settled,
  type Harness,
  WAIT_DEADLINE_MS,
} from '../../support/harness';

/*
 * A checkout the way it goes (docs/checkout-flow.md), with the sandbox provider: from the
 * platform's request to the customer's page and a finish or a cancel at the platform, once each
 * however often the customer clicks or the platform repeats its request, with how the customer
 * paid; and the checkout route taking its token and its service_id in each place they may be
 * sent. What fails (an unknown service, a platform that will not take the URL, bad input, Redis
 * away) is checkout-flow.errors.test.ts's; callers without the token and the token kept out of
 * the log are checkout-flow.security.test.ts's.
 */
describe('checkout flow with the sandbox provider', () => {
  const world = sandboxFlowWorld();
  const { checkoutUrlOf, calls } = world;
  let h: Harness;
  beforeAll(() => {
    h = world.h;
  });

  it('walks a checkout from request to finish', async () => {
    const requested = await h.simulator.requestCheckout(1001);
    expect(requested.status).toBe(202);
    expect(requested.body).toEqual({
      service_id: 1001,
      checkout_id: expect.stringMatching(/^chk_[0-9a-f]{24}$/),
      status: 'accepted',
    });
    const checkoutId = (requested.body as { checkout_id: string }).checkout_id;

    const url = await checkoutUrlOf(1001);
    expect(url).toBe(`${h.url}/sandbox/checkout/${checkoutId}`);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Pedido nº 1001');
    expect(html).toMatch(/R\$\s?[\d.]+,\d{2}/);

    const paid = await post(`${url}/pay`, '');
    expect(paid.status).toBe(303);
    const returnUrl = paid.headers.get('location') ?? '';
    expect(returnUrl).toBe(`${h.url}/return/sandbox?checkout_id=${checkoutId}`);
    expect(await (await fetch(returnUrl)).text()).toContain('Pagamento confirmado');

    const finish = await eventually(
      () => calls('finish-checkout', 1001)[0],
      WAIT_DEADLINE_MS,
      'finish',
    );
    expect(finish.body).toEqual({
      service_id: 1001,
      transaction_id: expect.stringMatching(/^sbx_pay_[0-9a-f]{16}$/),
    });
    expect(finish.idempotencyKey).toBe(`finish:${checkoutId}`);
    await eventually(async () =>
      (await h.connector.deps.store.get(checkoutId))?.state === 'reported' ? true : undefined,
    );
    expect(calls('cancel-checkout', 1001)).toHaveLength(0);
  });

  it('reports a declined payment as one cancel', async () => {
    await h.simulator.requestCheckout(1002);
    const url = await checkoutUrlOf(1002);
    expect((await post(`${url}/decline`, '')).status).toBe(303);
    const cancel = await eventually(
      () => calls('cancel-checkout', 1002)[0],
      WAIT_DEADLINE_MS,
      'cancel',
    );
    expect(cancel.body).toEqual({ service_id: 1002, reason: 'declined in the sandbox' });
    expect(calls('finish-checkout', 1002)).toHaveLength(0);
  });

  it('changes nothing when the customer pays twice, or declines after paying', async () => {
    await h.simulator.requestCheckout(1003);
    const url = await checkoutUrlOf(1003);
    await Promise.all([post(`${url}/pay`, ''), post(`${url}/pay`, ''), post(`${url}/decline`, '')]);
    await post(`${url}/pay`, '');
    await eventually(() => calls('finish-checkout', 1003)[0] ?? calls('cancel-checkout', 1003)[0]);
    await settled(h.connector.jobs);
    expect(calls('finish-checkout', 1003).length + calls('cancel-checkout', 1003).length).toBe(1);
    expect(await (await fetch(url)).text()).toMatch(/já foi pago|foi recusado/);
  });

  it('re-sends the same URL on a repeat request and creates no second payment', async () => {
    const first = await h.simulator.requestCheckout(1004);
    const url = await checkoutUrlOf(1004);
    // A repeat while the URL is still on its way is answered by that URL: wait until the
    // connector has recorded it sent, so this one is a repeat of a complete request.
    const checkoutId = (first.body as { checkout_id: string }).checkout_id;
    await eventually(async () =>
      (await h.connector.deps.store.get(checkoutId))?.state === 'url_sent' ? true : undefined,
    );
    const second = await h.simulator.requestCheckout(1004);
    expect((second.body as { checkout_id: string }).checkout_id).toBe(
      (first.body as { checkout_id: string }).checkout_id,
    );
    await eventually(() => (calls('checkout-url', 1004).length >= 2 ? true : undefined));
    const urls = calls('checkout-url', 1004).map(
      (c) => (c.body as { checkout_url: string }).checkout_url,
    );
    expect(new Set(urls)).toEqual(new Set([url]));
    expect(new Set(calls('checkout-url', 1004).map((c) => c.idempotencyKey)).size).toBe(
      urls.length,
    );
  });

  it('creates exactly one checkout for twenty concurrent requests', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => h.simulator.requestCheckout(1005)),
    );
    expect(answers.every((a) => a.status === 202)).toBe(true);
    expect(new Set(answers.map((a) => (a.body as { checkout_id: string }).checkout_id)).size).toBe(
      1,
    );
    await checkoutUrlOf(1005);
    await settled(h.connector.jobs);
    const urls = calls('checkout-url', 1005).map(
      (c) => (c.body as { checkout_url: string }).checkout_url,
    );
    expect(new Set(urls).size).toBe(1);
    const keys = await h.connector.deps.store.get(
      (answers[0]!.body as { checkout_id: string }).checkout_id,
    );
    expect(keys?.state).toBe('url_sent');
  });

  it('starts a new checkout after the previous one ended, and refuses one after payment', async () => {
    const first = await h.simulator.requestCheckout(1006);
    const firstUrl = await checkoutUrlOf(1006);
    await post(`${firstUrl}/decline`, '');
    await eventually(() => calls('cancel-checkout', 1006)[0]);
    const second = await h.simulator.requestCheckout(1006);
    expect(second.status).toBe(202);
    expect((second.body as { checkout_id: string }).checkout_id).not.toBe(
      (first.body as { checkout_id: string }).checkout_id,
    );
    const secondUrl = await eventually(() => {
      const url = h.simulator.checkoutUrlFor(1006);
      return url !== firstUrl ? url : undefined;
    });
    await post(`${secondUrl}/pay`, '');
    await eventually(() => calls('finish-checkout', 1006)[0]);
    const third = await h.simulator.requestCheckout(1006);
    expect(third.status).toBe(409);
    expect((third.body as { error: { code: string } }).error.code).toBe('CHECKOUT_ALREADY_PAID');
  });

  it('records how the customer paid on the page: Pay by card, Pix, boleto', async () => {
    const open = async (serviceId: number) => {
      const checkoutId = (
        (await h.simulator.requestCheckout(serviceId)).body as { checkout_id: string }
      ).checkout_id;
      return { checkoutId, url: await checkoutUrlOf(serviceId) };
    };
    const recordOf = async (id: string) => h.connector.deps.store.get(id);

    const card = await open(1011);
    // Each method has its own button and action.
    const page = await (await fetch(card.url)).text();
    const path = new URL(card.url).pathname;
    for (const action of ['pay', 'pix', 'boleto']) {
      expect(page).toContain(`action="${path.replace(/\/$/, '')}/${action}"`);
    }
    expect((await post(`${card.url}/pay`, '')).status).toBe(303);
    expect(await recordOf(card.checkoutId)).toMatchObject({ outcome: 'paid', method: 'card' });

    const pix = await open(1012);
    expect((await post(`${pix.url}/pix`, '')).status).toBe(303);
    expect(await recordOf(pix.checkoutId)).toMatchObject({ state: 'processing', method: 'pix' });
    // The bank confirms it (Pay on the page under way): paid, still by Pix.
    expect((await post(`${pix.url}/pay`, '')).status).toBe(303);
    expect(await recordOf(pix.checkoutId)).toMatchObject({ outcome: 'paid', method: 'pix' });

    const boleto = await open(1013);
    expect((await post(`${boleto.url}/boleto`, '')).status).toBe(303);
    expect(await recordOf(boleto.checkoutId)).toMatchObject({
      state: 'processing',
      method: 'boleto',
    });
    expect(await (await fetch(boleto.url)).text()).toContain('Pagamento em processamento');
  });
});

describe('the checkout route takes its token and service_id wherever they may be sent', () => {
  const { route, json } = checkoutRouteWorld();

  it.each([
    ['X-Api-Key', { 'x-api-key': ROUTE_TOKEN }, ''],
    ['?token=', {}, `?token=${ROUTE_TOKEN}`],
  ])('accepts the token as %s', async (_name, headers, query) => {
    const res = await post(`${route()}${query}`, '{"service_id": "1010"}', { ...json, ...headers });
    expect(res.status).toBe(202);
    expect(res.body.service_id).toBe(1010);
  });

  it('accepts a form body and a query parameter', async () => {
    const auth = { authorization: `Bearer ${ROUTE_TOKEN}` };
    const form = await post(route(), 'service_id=1011', {
      ...auth,
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(202);
    expect(form.body.service_id).toBe(1011);
    const query = await post(`${route()}?service_id=1012`, '', auth);
    expect(query.status).toBe(202);
    expect(query.body.service_id).toBe(1012);
  });
});
