import { randomBytes } from 'node:crypto';
import { pixSweepKey } from '../../../src/payments/pix/pix-keys';
import {
  closeRedis,
  createRedis,
  waitForRedis,
  type RedisCommands,
} from '../../../src/redis/redis';
import { txidOf } from '../../../src/payments/pix/pix-api';
import { checkoutKeys } from '../../../src/store/checkout-keys';
import { eventually, settled, WAIT_DEADLINE_MS } from '../../support/harness';
import { PixWorld } from '../../support/pix-world';
import { providerSuite } from '../../support/provider-suite';
import { adminApi, newPlatformAccount, requestOnRoute } from '../../support/registry-shop';

/**
 * Issue 43, finding 2: the API Pix's webhook is signed by no one (the PSP's mTLS ends at the
 * proxy), so anyone may post to `/webhooks/pix/<shop>/pix`. Attacked here as reproduced: many
 * calls of 20 Pix each, with long `devolucoes` ids, naming txids that are not the shop's, a Pix
 * already handled, another shop's charge, a real Pix's end-to-end id. Behind one proxy
 * (TRUST_PROXY_HOPS=1, the documented setup): each attacker is an address of its own, and the
 * fake PSP's genuine calls come from the proxy's.
 */
const LIMIT = 5;
const KEY = `k1:${randomBytes(32).toString('base64')}`;
const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;

const suite = providerSuite(() => new PixWorld({ SHOP_SECRET_KEYS: KEY, ADMIN_TOKEN }), {
  env: {
    TRUST_PROXY_HOPS: '1',
    RATE_LIMIT_WEBHOOK_FAILURES: String(LIMIT),
    // One pass at start, then none while the file runs: whatever settles a checkout here is a
    // webhook, never the reconciler.
    RECONCILE_INTERVAL_MS: '3600000',
  },
});

let redis: RedisCommands;
beforeAll(async () => {
  redis = createRedis(suite.h.redis.url, 'producer', 'pix-forgery-test');
  await waitForRedis(redis, WAIT_DEADLINE_MS);
  // The reconciler's pass at start has swept (its two keys written): what follows is the attack's.
  await eventually(
    async () => ((await redis.exists(pixSweepKey(suite.h.prefix, 'default'))) ? true : undefined),
    WAIT_DEADLINE_MS,
    'the first sweep',
  );
});
afterAll(() => closeRedis(redis));

/** The platform asks for a checkout of the env shop: its charge is made at the fake PSP. */
async function open(serviceId: number): Promise<{ checkoutId: string; txid: string }> {
  const { checkoutId } = await suite.open(serviceId);
  return { checkoutId, txid: txidOf(checkoutId) };
}

let nextAddress = 10;
/** An attacker's address of its own, so that each test's calls are counted apart. */
const newAddress = () => `203.0.113.${nextAddress++}`;

const alnum = (length: number) =>
  Array.from(randomBytes(length), (byte) => 'abcdefghijklmnopqrstuvwxyz0123456789'[byte % 36]).join(
    '',
  );

/** A Pix as the specification writes one, every id random: a txid of the connector's form. */
function forgedPix(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    endToEndId: `E12345678${alnum(23)}`,
    txid: `chk${randomBytes(16).toString('hex')}`,
    valor: '1.00',
    horario: new Date().toISOString(),
    // The longest the specification allows: 20 returns of 35-character ids.
    devolucoes: Array.from({ length: 20 }, () => ({
      id: alnum(35),
      rtrId: `D12345678${alnum(23)}`,
      valor: '0.01',
      horario: { solicitacao: new Date().toISOString() },
      status: 'DEVOLVIDO',
    })),
    ...fields,
  };
}

/** A call from `from` to the env shop's Pix webhook, as the PSP's callback path is. */
function post(from: string, body: unknown): Promise<Response> {
  return fetch(`${suite.h.url}/webhooks/pix/default/pix`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/**
 * The connector's data keys once it has nothing left to do: all under the test's prefix but the
 * queues' and the limiters' (one counter per address: the caller's cost).
 */
async function dataKeys(): Promise<string[]> {
  const { prefix } = suite.h;
  await settled(suite.h.connector.jobs);
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `{${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0');
  return keys
    .filter((key) => !key.startsWith(`{${prefix}:queue:`) && !key.startsWith(`{${prefix}:rl}`))
    .sort();
}

/** How many data keys `after` has beyond `before`, and the first few (cut short) if any. */
function growth(before: string[], after: string[]): { added: number; first: string[] } {
  const added = after.filter((key) => !before.includes(key));
  return {
    added: after.length - before.length,
    first: added.slice(0, 3).map((k) => k.slice(0, 90)),
  };
}

const cobReads = () =>
  suite.fake.pix.requests.filter((r) => r.method === 'GET' && r.path.includes('/cob/')).length;

/** Sends LIMIT calls from `from`, each answered 200; then one more, refused with 429. */
async function expectCountedAsFailures(from: string, body: () => unknown): Promise<void> {
  for (let i = 0; i < LIMIT; i++) expect((await post(from, body())).status).toBe(200);
  const refused = await post(from, body());
  expect(refused.status).toBe(429);
  expect(await refused.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
}

describe('forged Pix webhooks cost their caller, not Redis (issue 43, finding 2)', () => {
  it('writes nothing and reads nothing at the bank for txids that are not the shop’s, and logs little', async () => {
    const from = newAddress();
    const before = await dataKeys();
    const reads = cobReads();
    const logged = suite.h.log.text().length;
    const bodies = Array.from({ length: LIMIT }, () => ({
      pix: Array.from({ length: 20 }, () => forgedPix()),
    }));
    for (const body of bodies) {
      const answer = await post(from, body);
      expect(answer.status).toBe(200);
      const { results } = (await answer.json()) as { results: unknown[] };
      expect(results).toEqual(Array.from({ length: 20 }, () => ({ ignored: 'unknown payment' })));
    }
    expect(growth(before, await dataKeys())).toEqual({ added: 0, first: [] });
    expect(cobReads()).toBe(reads);
    // Never the body in a log line, at any level; a warning per call at most, a short one.
    const text = suite.h.log.text().slice(logged);
    const forgedIds = bodies.flatMap((body) =>
      body.pix.flatMap((pix) => [
        pix.endToEndId as string,
        ...(pix.devolucoes as Array<{ id: string }>).map((d) => d.id),
      ]),
    );
    expect(forgedIds.filter((id) => text.includes(id))).toEqual([]);
    const lines = text.split('\n').filter((line) => line.trim() !== '');
    const warnings = lines.filter(
      (line) => (JSON.parse(line) as { level: string }).level === 'warn',
    );
    expect(warnings.length).toBeLessThanOrEqual(LIMIT);
    expect(Math.max(0, ...lines.map((line) => line.length))).toBeLessThan(2000);
  });

  it('counts a call about txids that are not the shop’s as a failure: 429 past the limit', async () => {
    await expectCountedAsFailures(newAddress(), () => ({
      pix: Array.from({ length: 20 }, () => forgedPix()),
    }));
  });

  it('counts a replay of a Pix already handled as a failure, and writes nothing for it', async () => {
    const { checkoutId, txid } = await open(1001);
    const { pix, body } = await suite.fake.pix.payAndNotify(txid);
    expect(body).toEqual({ received: true, checkout_id: checkoutId, state: 'paid' });
    const before = await dataKeys();
    await expectCountedAsFailures(newAddress(), () => ({ pix: [pix] }));
    expect(growth(before, await dataKeys())).toEqual({ added: 0, first: [] });
  });

  it('counts a call about an open charge that teaches nothing (a made-up Pix) as a failure', async () => {
    const { txid } = await open(1002);
    const before = await dataKeys();
    await expectCountedAsFailures(newAddress(), () => ({ pix: [forgedPix({ txid })] }));
    expect(growth(before, await dataKeys())).toEqual({ added: 0, first: [] });
  });

  it('counts a body that is not an API Pix webhook as a failure', async () => {
    await expectCountedAsFailures(newAddress(), () => '{"pix": "nothing"}');
  });

  it('a forged call naming a real Pix’s end-to-end id leaves the genuine webhook to settle it', async () => {
    const { pix } = suite.fake;
    const { checkoutId, txid } = await open(1003);
    const other = await open(1005);
    const paid = pix.pay(txid);
    const from = newAddress();
    // Its end-to-end id with a txid that is no charge, and with another of the shop's charges,
    // still unpaid: neither makes the bank's own word about it a duplicate.
    for (const forgedTxid of [`chk${randomBytes(16).toString('hex')}`, other.txid]) {
      const forged = forgedPix({
        endToEndId: paid.endToEndId,
        txid: forgedTxid,
        devolucoes: undefined,
      });
      expect((await post(from, { pix: [forged] })).status).toBe(200);
    }
    const genuine = await pix.deliverWebhook(paid);
    expect(genuine).toEqual({
      status: 200,
      body: { received: true, checkout_id: checkoutId, state: 'paid' },
    });
    const { recorded } = await suite.outcomeOf(checkoutId, 1003);
    expect(recorded).toEqual([
      expect.objectContaining({ outcome: 'paid', requestId: expect.any(String) }),
    ]);
  });

  it('a key an earlier release kept from a forged body makes no genuine webhook a duplicate', async () => {
    const { checkoutId, txid } = await open(1006);
    const paid = suite.fake.pix.pay(txid);
    // As releases before this one kept a forged call's end-to-end id, for 7 days.
    const kept = checkoutKeys(suite.h.prefix, 'default').event('pix', paid.endToEndId);
    await redis.set(kept, '1', 'PX', 60_000);
    const genuine = await suite.fake.pix.deliverWebhook(paid);
    expect(genuine.body).toEqual({ received: true, checkout_id: checkoutId, state: 'paid' });
  });

  it('writes nothing and settles nothing for another shop’s charge named at this shop’s URL', async () => {
    const { h } = suite;
    const { pix, certs } = suite.fake;
    const other = `pix-vizinha-${randomBytes(3).toString('hex')}`;
    try {
      const added = await adminApi(h, ADMIN_TOKEN)('/shops', {
        method: 'POST',
        body: JSON.stringify({
          id: other,
          name: 'Vizinha Pix',
          platform: newPlatformAccount(h, `viz${randomBytes(3).toString('hex')}`),
          provider: {
            name: 'pix',
            psp: 'efi',
            apiUrl: pix.apiUrl,
            clientId: pix.clientId,
            clientSecret: pix.clientSecret,
            certificate: certs.clientPem,
            pixKey: pix.pixKey,
          },
        }),
      });
      expect(added.status).toBe(201);
      const { checkout_route: route } = (await added.json()) as {
        checkout_route: { url: string; token: string };
      };
      await h.connector.registry.refresh();
      const opened = await requestOnRoute(route, 1004);
      const { checkout_id: theirs } = (await opened.json()) as { checkout_id: string };
      const txid = await eventually(
        async () =>
          (await (await h.connector.directory.byId(other))?.deps.store.get(theirs))?.providerRef,
        WAIT_DEADLINE_MS,
        'the other shop’s charge',
      );
      await eventually(
        () => pix.webhookRegistrations.find((r) => r.webhookUrl.endsWith(`/webhooks/pix/${other}`)),
        WAIT_DEADLINE_MS,
        'the other shop’s webhook',
      );
      const paid = pix.pay(txid);
      const before = await dataKeys();
      await expectCountedAsFailures(newAddress(), () => ({ pix: [paid] }));
      expect(growth(before, await dataKeys())).toEqual({ added: 0, first: [] });
      const theirState = async () =>
        (await (await h.connector.directory.byId(other))?.deps.store.get(theirs))?.state;
      expect(await theirState()).toBe('url_sent');
      // Its own shop still learns of it from its own webhook.
      const own = await fetch(`${h.url}/webhooks/pix/${other}/pix`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ pix: [paid] }),
      });
      expect(await own.json()).toEqual({ received: true, checkout_id: theirs, state: 'paid' });
    } finally {
      // Both shops receive on the fake's one Pix key: its webhook is the env shop's again.
      pix.webhooks.set(pix.pixKey, `${h.url}/webhooks/pix/default`);
    }
  });
});
