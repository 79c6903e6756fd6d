import { handleProviderWebhook } from '../../../src/checkout/handle-provider-webhook';
import { AppError } from '../../../src/errors';
import type { WebhookHint, WebhookInput } from '../../../src/payments/payment-provider';
import { sandboxWith, useCaseSuite } from '../../support/checkout-deps';

/**
 * The webhook use case, with the sandbox behind a provider that has webhooks: the body is the
 * event (`{"id", "ref"}`) and the header `x-test-signature: good` stands for a valid signature.
 */
describe('a provider webhook', () => {
  const suite = useCaseSuite();
  let statusReads = 0;

  beforeEach(() => {
    statusReads = 0;
    const { sandbox, deps } = suite.world;
    const provider = sandboxWith(sandbox, {
      parseWebhook: async (input): Promise<WebhookHint> => {
        if (input.headers['x-test-signature'] !== 'good') {
          throw new AppError('UNAUTHORIZED', 'The webhook signature does not verify.');
        }
        const event = JSON.parse(input.rawBody.toString()) as { id: string; ref?: string };
        return event.ref ? { providerRef: event.ref, eventId: event.id } : { ignore: 'no payment' };
      },
    });
    deps.provider = {
      ...provider,
      getStatus: (ref) => {
        statusReads += 1;
        return provider.getStatus(ref);
      },
    };
  });

  const webhook = (event: { id: string; ref?: string }, signature = 'good'): WebhookInput => ({
    headers: { 'x-test-signature': signature },
    query: {},
    rawBody: Buffer.from(JSON.stringify(event)),
  });
  const refOf = async (checkoutId: string) =>
    (await suite.world.deps.store.get(checkoutId))!.providerRef!;

  it('reads the truth from the provider and records it', async () => {
    const { deps, sandbox } = suite.world;
    const id = await suite.checkout();
    await sandbox.settle(id, 'paid');
    const result = await handleProviderWebhook(
      deps,
      webhook({ id: 'evt_1', ref: await refOf(id) }),
    );
    expect(result).toEqual({ kind: 'synced', eventId: 'evt_1', checkoutId: id, state: 'paid' });
    expect(await suite.world.jobs.notificationQueue.getJob(`finish-${id}`)).toBeDefined();
  });

  it('handles an event once: a duplicate changes nothing and reads nothing', async () => {
    const { deps, sandbox } = suite.world;
    const id = await suite.checkout();
    await sandbox.settle(id, 'processing');
    const event = { id: 'evt_2', ref: await refOf(id) };
    expect((await handleProviderWebhook(deps, webhook(event))).kind).toBe('synced');
    await sandbox.settle(id, 'paid');
    expect(await handleProviderWebhook(deps, webhook(event))).toEqual({
      kind: 'duplicate',
      eventId: 'evt_2',
    });
    expect(statusReads).toBe(1);
    expect((await deps.store.get(id))?.state).toBe('processing');
  });

  it('refuses a bad signature and changes nothing', async () => {
    const { deps, sandbox } = suite.world;
    const id = await suite.checkout();
    await sandbox.settle(id, 'paid');
    const forged = handleProviderWebhook(
      deps,
      webhook({ id: 'evt_3', ref: await refOf(id) }, 'bad'),
    );
    await expect(forged).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect((await deps.store.get(id))?.state).toBe('url_sent');
    expect(statusReads).toBe(0);
  });

  it('acknowledges an event about a payment it does not know, and logs it', async () => {
    const { deps, log } = suite.world;
    const result = await handleProviderWebhook(deps, webhook({ id: 'evt_4', ref: 'sbx_nobody' }));
    expect(result).toEqual({ kind: 'unknown_payment', eventId: 'evt_4' });
    expect(log.entries().find((e) => e.message === 'webhook for an unknown payment')).toMatchObject(
      { level: 'warn', eventId: 'evt_4' },
    );
  });

  it('processes a redelivered event again when the first try failed halfway', async () => {
    const { deps, sandbox } = suite.world;
    const id = await suite.checkout();
    await sandbox.settle(id, 'paid');
    const event = { id: 'evt_5', ref: await refOf(id) };
    const working = deps.provider;
    deps.provider = {
      ...working,
      getStatus: async () => {
        throw new AppError('PLATFORM_UNAVAILABLE', 'provider away');
      },
    };
    await expect(handleProviderWebhook(deps, webhook(event))).rejects.toThrow('provider away');
    deps.provider = working;
    expect((await handleProviderWebhook(deps, webhook(event))).kind).toBe('synced');
    expect((await deps.store.get(id))?.outcome).toBe('paid');
  });

  it('ignores what the provider says is not about a payment', async () => {
    expect(await handleProviderWebhook(suite.world.deps, webhook({ id: 'evt_6' }))).toEqual({
      kind: 'ignored',
      reason: 'no payment',
    });
  });
});
