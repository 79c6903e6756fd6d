import { randomBytes } from 'node:crypto';
import { expireCheckout } from '../../../src/checkout/expire-checkout';
import { pixSweepKey } from '../../../src/payments/pix/pix-keys';
import { closeRedis, createRedis, waitForRedis } from '../../../src/redis/redis';
import { txidOf } from '../../../src/payments/pix/pix-api';
import { runCliCaptured } from '../../support/cli';
import { eventually, settled, WAIT_DEADLINE_MS } from '../../support/harness';
import { PixWorld } from '../../support/pix-world';
import { providerSuite } from '../../support/provider-suite';
import { adminApi, newPlatformAccount, requestOnRoute } from '../../support/registry-shop';

const KEY = `k1:${randomBytes(32).toString('base64')}`;
const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;

const suite = providerSuite(() => new PixWorld({ SHOP_SECRET_KEYS: KEY, ADMIN_TOKEN }), {
  env: { RECONCILE_INTERVAL_MS: '500' },
});

/** The platform asks for a checkout; the customer is sent to the connector's own Pix page. */
async function open(serviceId: number): Promise<{ checkoutId: string; txid: string }> {
  const { checkoutId, url } = await suite.open(serviceId);
  expect(url).toBe(`${suite.h.url}/pix/${checkoutId}`);
  return { checkoutId, txid: txidOf(checkoutId) };
}

const stateOf = async (checkoutId: string) =>
  (await suite.h.connector.deps.store.get(checkoutId))?.state;

describe('Pix through the shop’s own bank (the API Pix, against a fake PSP over mTLS)', () => {
  it('registers its webhook at start, for the env shop, on its Pix key', async () => {
    const { pix } = suite.fake;
    const url = await eventually(() => pix.webhooks.get(pix.pixKey), WAIT_DEADLINE_MS, 'webhook');
    expect(url).toBe(`${suite.h.url}/webhooks/pix/default`);
  });

  it('makes the charge as asked: the amount, the key, the checkout’s lifetime', async () => {
    const { pix } = suite.fake;
    const { checkoutId, txid } = await open(1020);
    const cob = pix.cobs.get(txid);
    expect(cob).toMatchObject({ status: 'ATIVA', chave: pix.pixKey });
    expect(cob?.calendario.expiracao).toBeGreaterThan(60);
    const record = await suite.h.connector.deps.store.get(checkoutId);
    expect(cob?.valor.original).toBe(((record?.amount?.amountMinor ?? 0) / 100).toFixed(2));
  });

  it('changes nothing on a forged webhook: the charge read says it is unpaid', async () => {
    const { checkoutId, txid } = await open(1022);
    const forged = {
      pix: [
        {
          endToEndId: `E00000000202611280000${randomBytes(6).toString('hex').slice(0, 11)}`,
          txid,
          valor: '99999.99',
          horario: new Date().toISOString(),
        },
      ],
    };
    const answer = await fetch(`${suite.h.url}/webhooks/pix/default/pix`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(forged),
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({
      received: true,
      checkout_id: checkoutId,
      state: 'url_sent',
    });
    await settled(suite.h.connector.jobs);
    expect(await stateOf(checkoutId)).toBe('url_sent');
    expect(suite.accepted('finish-checkout', 1022)).toEqual([]);
  });

  it('takes a call about several Pix, one result each; a malformed one is ignored whole', async () => {
    const { h } = suite;
    const first = await open(1029);
    const second = await open(1030);
    const paid = [suite.fake.pix.pay(first.txid), suite.fake.pix.pay(second.txid)];
    const post = (body: unknown) =>
      fetch(`${h.url}/webhooks/pix/default/pix`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    // An end-to-end id that is not one (the specification's 32 letters and digits): not a Pix call.
    const malformed = await post({ pix: [{ ...paid[0], endToEndId: 'x'.repeat(5000) }] });
    expect(await malformed.json()).toEqual({
      received: true,
      ignored: 'the body is not an API Pix webhook',
    });
    const answer = await post({ pix: paid });
    expect(await answer.json()).toEqual({
      received: true,
      results: [
        { checkout_id: first.checkoutId, state: 'paid' },
        { checkout_id: second.checkoutId, state: 'paid' },
      ],
    });
  });

  it('removes the charge at the checkout’s expiry, though the PSP would keep it payable', async () => {
    const { checkoutId, txid } = await open(1023);
    expect(await expireCheckout(suite.h.connector.deps, checkoutId)).toBe('settled');
    expect(suite.fake.pix.cobs.get(txid)?.status).toBe('REMOVIDA_PELO_USUARIO_RECEBEDOR');
    expect(() => suite.fake.pix.pay(txid)).toThrow();
    await eventually(() => suite.accepted('cancel-checkout', 1023)[0], WAIT_DEADLINE_MS, 'cancel');
    expect((await suite.h.connector.deps.store.get(checkoutId))?.outcome).toBe('expired');
  });

  it('returns a Pix paid after the expiry to the payer: an incident, never a second outcome', async () => {
    const { checkoutId, txid } = await open(1024);
    await expireCheckout(suite.h.connector.deps, checkoutId);
    await eventually(() => suite.accepted('cancel-checkout', 1024)[0], WAIT_DEADLINE_MS, 'cancel');
    // A Pix that raced the removal reaches the shop's account, and its webhook comes.
    const late = suite.fake.pix.pay(txid, { force: true });
    const answer = await suite.fake.pix.deliverWebhook(late);
    expect(answer.body).toMatchObject({ checkout_id: checkoutId, incident: 'late_payment' });
    const devolucao = suite.fake.pix.devolucoes.find((d) => d.endToEndId === late.endToEndId);
    expect(devolucao).toMatchObject({ endToEndId: late.endToEndId, valor: late.valor });
    const record = await suite.h.connector.deps.store.get(checkoutId);
    expect(record?.incidents).toContainEqual(
      expect.objectContaining({
        kind: 'late_payment',
        transactionId: late.endToEndId,
        note: expect.stringContaining(`devolução ${devolucao?.id}`),
      }),
    );
    // The bank tells of the return under way (the Pix with its devolução): nothing more is asked.
    const { pix } = suite.fake;
    await pix.deliverWebhook(pix.receivedPix(late.endToEndId));
    const asked = () => pix.devolucoes.filter((d) => d.endToEndId === late.endToEndId);
    expect(asked()).toHaveLength(1);
    // The bank could not make it (NAO_REALIZADO): the next word of it asks again, under a new id.
    pix.settleDevolucao(late.endToEndId, devolucao?.id ?? '', 'NAO_REALIZADO');
    await pix.deliverWebhook(pix.receivedPix(late.endToEndId));
    expect(asked().map((d) => [d.id, d.status])).toEqual([
      [devolucao?.id, 'NAO_REALIZADO'],
      [`${devolucao?.id}n1`, 'EM_PROCESSAMENTO'],
    ]);
    await settled(suite.h.connector.jobs);
    expect(suite.accepted('finish-checkout', 1024)).toEqual([]);
    expect(suite.accepted('cancel-checkout', 1024)).toHaveLength(1);
  });

  it('finds a late Pix whose webhook was lost by sweeping GET /pix', async () => {
    const { h } = suite;
    const { checkoutId, txid } = await open(1025);
    await expireCheckout(h.connector.deps, checkoutId);
    await eventually(() => suite.accepted('cancel-checkout', 1025)[0], WAIT_DEADLINE_MS, 'cancel');
    const late = suite.fake.pix.pay(txid, { force: true });
    // The next sweep is due (as five minutes later): the reconciler's pass lists the Pix.
    const redis = createRedis(h.redis.url, 'producer', 'pix-test');
    await waitForRedis(redis, WAIT_DEADLINE_MS);
    await redis.del(`${pixSweepKey(h.prefix, 'default')}:claim`);
    await closeRedis(redis);
    const record = await eventually(
      async () => {
        const found = await h.connector.deps.store.get(checkoutId);
        return found?.incidents?.length ? found : undefined;
      },
      WAIT_DEADLINE_MS,
      'the incident from the sweep',
    );
    expect(record.incidents).toContainEqual(
      expect.objectContaining({ kind: 'late_payment', transactionId: late.endToEndId }),
    );
    expect(suite.fake.pix.devolucoes.map((d) => d.endToEndId)).toContain(late.endToEndId);
  });

  it('asks for one token and uses it for every call while it lives', async () => {
    const { pix } = suite.fake;
    // The env shop's provider asked for its token to register the webhook at start.
    await eventually(() => pix.webhooks.get(pix.pixKey), WAIT_DEADLINE_MS, 'webhook');
    const tokens = pix.tokenRequests.length;
    const calls = pix.requests.filter((request) => request.auth).length;
    await open(1026);
    await open(1027);
    expect(pix.requests.filter((request) => request.auth).length).toBeGreaterThanOrEqual(calls + 2);
    expect(pix.tokenRequests).toHaveLength(tokens);
  });

  it('refuses to add a shop whose certificate the PSP does not trust, and stores nothing', async () => {
    const { h } = suite;
    const { pix, certs } = suite.fake;
    const api = adminApi(h, ADMIN_TOKEN);
    const shop = (certificate: string) => ({
      // A long id (up to 63 characters): its checkout ids are longer than the short shops'.
      id: `marcenaria-pix-de-sao-jose-dos-campos-${randomBytes(3).toString('hex')}`,
      name: 'Marcenaria Pix',
      platform: newPlatformAccount(h, `pix${randomBytes(3).toString('hex')}`),
      provider: {
        name: 'pix',
        psp: 'efi',
        apiUrl: pix.apiUrl,
        clientId: pix.clientId,
        clientSecret: pix.clientSecret,
        certificate,
        pixKey: pix.pixKey,
      },
    });
    const addShops = async () => {
      const refused = shop(certs.untrustedClientPem);
      const answer = await api('/shops', { method: 'POST', body: JSON.stringify(refused) });
      expect(answer.status).toBe(422);
      const body = (await answer.json()) as { error: { details: Array<{ field: string }> } };
      expect(body.error.details).toContainEqual(expect.objectContaining({ field: 'provider' }));
      expect((await api(`/shops/${refused.id}`)).status).toBe(404);
      // The shop's own certificate is accepted, and its webhook registered.
      const accepted = shop(certs.clientPem);
      const added = await api('/shops', { method: 'POST', body: JSON.stringify(accepted) });
      expect(added.status).toBe(201);
      const { checkout_route: route } = (await added.json()) as {
        checkout_route: { url: string; token: string };
      };
      await h.connector.registry.refresh();
      // Its customer reaches the Pix page of its checkout.
      const opened = await requestOnRoute(route, 1028);
      const { checkout_id: checkoutId } = (await opened.json()) as { checkout_id: string };
      await eventually(
        () => h.simulator.checkoutUrlFor(1028),
        WAIT_DEADLINE_MS,
        "the added shop's checkout URL",
      );
      const page = await fetch(`${h.url}/pix/${checkoutId}`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Marcenaria Pix');
      await eventually(
        () =>
          pix.webhookRegistrations.find((r) =>
            r.webhookUrl.endsWith(`/webhooks/pix/${accepted.id}`),
          ),
        WAIT_DEADLINE_MS,
        "the added shop's webhook",
      );
      // `shops verify` tries its certificate at the bank and tells the days it has left.
      const verified = await runCliCaptured(['shops', 'verify', accepted.id], {
        REDIS_URL: h.redis.url,
        QUEUE_PREFIX: h.prefix,
        SHOP_SECRET_KEYS: KEY,
        PUBLIC_URL: h.url,
        PROVIDER_API_ORIGINS: pix.url,
        PLATFORM_BASE_URL: h.platformUrl,
      });
      const daysLeft = Math.floor((certs.clientNotAfter.getTime() - Date.now()) / 86_400_000);
      expect(verified).toMatchObject({ code: 0 });
      expect(verified.stdout).toContain(
        `client certificate expires ${certs.clientNotAfter.toISOString().slice(0, 10)}: ${daysLeft} days left`,
      );
    };
    try {
      await addShops();
    } finally {
      // Both shops receive on the fake's one Pix key, whose one webhook is now the added shop's:
      // the env shop's again, for the other tests.
      pix.webhooks.set(pix.pixKey, `${h.url}/webhooks/pix/default`);
    }
  });
});
