import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import type { Evidence } from '../../../src/cli/checkout-evidence';
import { waitForRedis } from '../../../src/redis/redis';
import { DEMO_CREDENTIALS } from '../../../src/simulator/platform-simulator';
import { jobIds } from '../../../src/jobs/queue-names';
import { runCliCaptured } from '../../support/cli';
import { recordsIn } from '../../support/erp-folder';
import { eventually, type Harness, WAIT_DEADLINE_MS } from '../../support/harness';
import { providerSuite } from '../../support/provider-suite';
import { TEST_PROVIDER_LIST } from '../../support/providers';

/*
 * `connector checkout evidence` (CONTRACT "Money that stays"): for a checkout paid at each
 * provider (its real adapter against its fake), the evidence prints every field the provider told
 * (ids, card, payer, time) and the story to the ERP's acknowledgement, in JSON and in text; run
 * as a Redis user that may not write, so a write would fail it.
 */

/** The paid record the ERP's folder holds for `checkoutId`. */
const paidRecordIn = (dir: string, checkoutId: string) => recordsIn(dir, checkoutId).get('paid');

/**
 * The CLI's variables, its Redis user one that may read and not write (`-@write`): a command
 * that wrote anything would fail with NOPERM.
 */
async function readOnlyEnv(h: Harness): Promise<Record<string, string>> {
  const admin = new Redis(h.redis.url, { lazyConnect: true });
  await admin.connect();
  await waitForRedis(admin, WAIT_DEADLINE_MS);
  const user = `evidence-${randomBytes(4).toString('hex')}`;
  const password = randomBytes(12).toString('hex');
  await admin.acl('SETUSER', user, 'reset', 'on', `>${password}`, '~*', '&*', '+@all', '-@write');
  await admin.quit();
  const url = new URL(h.redis.url);
  url.username = user;
  url.password = password;
  // The user reads, and may not write.
  const probe = new Redis(url.toString(), { lazyConnect: true });
  await probe.connect();
  expect(await probe.exists(`${h.prefix}:anything`)).toBe(0);
  await expect(probe.set(`${h.prefix}:written`, '1')).rejects.toThrow(/NOPERM/);
  await probe.quit();
  return {
    REDIS_URL: url.toString(),
    QUEUE_PREFIX: h.prefix,
    PLATFORM_BASE_URL: h.platformUrl,
    PLATFORM_EMAIL: DEMO_CREDENTIALS.email,
    PLATFORM_PASSWORD: DEMO_CREDENTIALS.password,
    PLATFORM_API_KEY: DEMO_CREDENTIALS.apiKey,
    LOG_LEVEL: 'error',
  };
}

const WITH_RECORD = TEST_PROVIDER_LIST.flatMap((row) =>
  row.record ? [[row.name, row.record.what, row, row.record] as const] : [],
);

describe.each(WITH_RECORD)('%s, %s: checkout evidence', (_name, _what, row, paying) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'erp-evidence-'));
  const suite = providerSuite(() => row.fake(), {
    fakeEnv: (fake) => row.env(fake),
    env: { ERP_SINK: 'directory', ERP_EXPORT_DIR: dir, ...paying.env },
    start: { produceBackoffMs: 50 },
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints every id, the card, the payer and the story to the ERP, writing nothing', async () => {
    const { fake, h } = suite;
    const serviceId = 1036;
    const { checkoutId } = await suite.open(serviceId);
    const order = (await h.connector.deps.store.get(checkoutId))!.amount!.amountMinor;
    const payment = await paying.pay(fake, h.url, checkoutId);
    const says = paying.says(fake, payment, order);
    await eventually(() => paidRecordIn(dir, checkoutId), WAIT_DEADLINE_MS, 'the paid record');
    await eventually(
      () => suite.accepted('finish-checkout', serviceId)[0],
      WAIT_DEADLINE_MS,
      'the finish',
    );
    // The ERP's acknowledgement is the job's completion, just after the file is written.
    const env = await readOnlyEnv(h);
    const evidence = await eventually(async () => {
      const run = await runCliCaptured(
        ['checkout', 'evidence', String(serviceId), '--format', 'json'],
        env,
      );
      expect(run).toMatchObject({ code: 0, stderr: '' });
      const read = JSON.parse(run.stdout) as Evidence;
      return read.checkouts[0]?.erp_records[0]?.state === 'completed' ? read : undefined;
    }, WAIT_DEADLINE_MS);

    expect(evidence.service).toEqual({
      read: true,
      erp_order: h.simulator.state.internalCode(serviceId),
      customer: { internal_code: expect.stringMatching(/^CLI-\d{4}$/) },
      status: expect.any(String),
    });
    const [checkout] = evidence.checkouts;
    expect(checkout).toMatchObject({
      checkout_id: checkoutId,
      provider: row.name,
      outcome: 'paid',
      method: says.method,
      installments: says.installments,
      amount: { amount_minor: order, currency: 'BRL' },
      payment: {
        payment_id: says.provider_ids.payment,
        pix_txid: says.provider_ids.pix_txid,
        pix_e2e: says.provider_ids.pix_e2e,
        authorization_code: says.card?.authorization_code ?? null,
        card: says.card ? { brand: says.card.brand, last4: says.card.last4 } : null,
        paid_at: says.paid_at,
        institution_cnpj: says.nfe.CNPJ,
      },
      payer: says.payer,
      erp_records: [
        {
          event: 'paid',
          record_id: paidRecordIn(dir, checkoutId)?.record_id,
          state: 'completed',
          acknowledged_at: expect.any(String),
        },
      ],
    });
    expect(checkout!.items.reduce((sum, item) => sum + item.amount_minor, 0)).toBe(order);
    const steps = checkout!.steps.map((step) => step.step);
    for (const step of [
      'requested',
      'URL sent',
      'paid',
      'finish delivered',
      'ERP acknowledged paid',
    ]) {
      expect(steps).toContain(step);
    }
    expect(checkout!.steps.every((step) => typeof step.at === 'string')).toBe(true);

    // The job is trimmed (7 days after it completed): the acknowledgement stays, on the checkout.
    const { record_id: recordId, acknowledged_at: acknowledgedAt } = checkout!.erp_records[0]!;
    expect(await h.connector.syncQueue!.queue.remove(jobIds.syncPayment(recordId))).toBe(1);
    const later = await runCliCaptured(
      ['checkout', 'evidence', String(serviceId), '--format', 'json'],
      env,
    );
    expect((JSON.parse(later.stdout) as Evidence).checkouts[0]?.erp_records).toEqual([
      {
        event: 'paid',
        record_id: recordId,
        state: 'completed',
        acknowledged_at: acknowledgedAt,
        attempts: null,
        last_error: null,
      },
    ]);

    // The text form says the same to a person.
    const text = await runCliCaptured(['checkout', 'evidence', String(serviceId)], env);
    expect(text.code).toBe(0);
    const told = [
      checkoutId,
      says.provider_ids.payment,
      says.provider_ids.pix_e2e,
      says.provider_ids.pix_txid,
      says.card?.authorization_code,
      says.card?.last4,
      says.payer?.name,
      says.payer?.document,
      says.nfe.CNPJ,
      'ERP acknowledged paid',
    ].filter((value): value is string => typeof value === 'string');
    // What every provider tells (the ids, the time, the ERP), and what each tells besides.
    expect(told.length).toBeGreaterThanOrEqual(4);
    for (const value of told) expect(text.stdout).toContain(value);
  });
});

describe('checkout evidence, the sandbox and what is not there', () => {
  const suite = providerSuite(() => TEST_PROVIDER_LIST.find((r) => r.name === 'sandbox')!.fake(), {
    start: { produceBackoffMs: 50 },
  });

  it("the sandbox's card, and a service with no checkout: exit 1 saying so", async () => {
    const { h } = suite;
    const serviceId = 1037;
    const { url } = await suite.open(serviceId);
    expect((await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    await eventually(
      () => suite.accepted('finish-checkout', serviceId)[0],
      WAIT_DEADLINE_MS,
      'the finish',
    );
    const env = await readOnlyEnv(h);
    const run = await runCliCaptured(
      ['checkout', 'evidence', String(serviceId), '--format', 'json'],
      env,
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const [checkout] = (JSON.parse(run.stdout) as Evidence).checkouts;
    expect(checkout).toMatchObject({
      provider: 'sandbox',
      method: 'card',
      payment: {
        card: { brand: 'visa', last4: '4242' },
        authorization_code: expect.stringMatching(/^[0-9A-F]{6}$/),
        paid_at: expect.any(String),
        institution_cnpj: null,
      },
      payer: null,
      // No ERP sink here: no record was sent.
      erp_records: [{ event: 'paid', state: 'not kept', acknowledged_at: null }],
    });

    const none = await runCliCaptured(['checkout', 'evidence', '1038'], env);
    expect(none.code).toBe(1);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('no checkout of service 1038 in shop default');
  });

  it('reads a service whose history names a checkout past its retention and one unreadable, writing nothing', async () => {
    const { h } = suite;
    const serviceId = 1040;
    /** A checkout of the service, declined and told to the platform. */
    const declined = async (nth: number) => {
      const opened = await suite.open(serviceId);
      // Its own page (the simulator names the service's first URL).
      const url = await eventually(
        async () => (await h.connector.deps.store.get(opened.checkoutId))?.url,
        WAIT_DEADLINE_MS,
        'its URL',
      );
      await fetch(`${url}/decline`, { method: 'POST', redirect: 'manual' });
      await eventually(
        () => suite.accepted('cancel-checkout', serviceId)[nth],
        WAIT_DEADLINE_MS,
        'the cancel',
      );
      return opened.checkoutId;
    };
    const gone = await declined(0);
    const unreadable = await declined(1);
    const last = (await suite.open(serviceId)).checkoutId;
    const admin = new Redis(h.redis.url, { lazyConnect: true });
    await admin.connect();
    await waitForRedis(admin, WAIT_DEADLINE_MS);
    const recordKey = async (checkoutId: string) => {
      const [, keys] = await admin.scan('0', 'MATCH', `*:chk:${checkoutId}`, 'COUNT', 100_000);
      expect(keys).toHaveLength(1);
      return keys[0]!;
    };
    // The first record expired (its retention over), the service's history still naming it; the
    // second holds a state no release wrote.
    await admin.del(await recordKey(gone));
    await admin.hset(await recordKey(unreadable), 'state', 'no-such-state');
    const env = await readOnlyEnv(h);

    const run = await runCliCaptured(
      ['checkout', 'evidence', String(serviceId), '--format', 'json'],
      env,
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const evidence = JSON.parse(run.stdout) as Evidence;
    expect(evidence.checkouts.map((c) => c.checkout_id)).toEqual([last]);
    expect(evidence.unreadable).toEqual([
      { checkout_id: unreadable, problem: expect.stringContaining('state') },
    ]);
    const text = await runCliCaptured(['checkout', 'evidence', String(serviceId)], env);
    expect(text.stdout).toContain(`checkout ${unreadable}  cannot be read`);

    // None left that reads: exit 1, saying how many cannot.
    await admin.hset(await recordKey(last), 'state', 'no-such-state');
    await admin.quit();
    const none = await runCliCaptured(['checkout', 'evidence', String(serviceId)], env);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('that can be read (2 cannot: checkout status --unreadable)');
  });

  it('prints the rest when the platform cannot be read, saying why', async () => {
    const { h } = suite;
    const serviceId = 1039;
    const { url } = await suite.open(serviceId);
    await fetch(`${url}/decline`, { method: 'POST', redirect: 'manual' });
    const env = { ...(await readOnlyEnv(h)), PLATFORM_BASE_URL: 'http://127.0.0.1:9' };
    const run = await runCliCaptured(
      ['checkout', 'evidence', String(serviceId), '--format', 'json'],
      env,
    );
    expect(run.code).toBe(0);
    const evidence = JSON.parse(run.stdout) as Evidence;
    expect(evidence.service).toEqual({ read: false, reason: expect.stringMatching(/\S/) });
    expect(evidence.checkouts).toHaveLength(1);
    expect(JSON.stringify(evidence)).not.toContain(DEMO_CREDENTIALS.password);
  });
});
