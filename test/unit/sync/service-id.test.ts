import { InvalidArgumentError } from 'commander';
import { AppError } from '../../../src/errors';
import { parseServiceId } from '../../../src/cli/services-commands';
import { serviceIdFrom } from '../../../src/http/routes/checkout-routes';
import {
  syncBatchJobSchema,
  syncDeliverJobSchema,
  syncIncidentJobSchema,
} from '../../../src/jobs/queue-names';
import { isServiceId, MAX_SERVICE_ID, serviceIdOfText } from '../../../src/shop/service-id';
import { runSyncPass } from '../../../src/sync/sync-pass';
import type { SyncDeps, SyncItem } from '../../../src/sync/ports';

const SIXTEEN_DIGITS = 1_234_567_890_123_456;

/** The error `fn` throws. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

describe('one range of service ids, from one definition', () => {
  it('is 1 to 15 digits', () => {
    expect(MAX_SERVICE_ID).toBe(999_999_999_999_999);
    expect([1, 1001, MAX_SERVICE_ID].every(isServiceId)).toBe(true);
    expect(
      [0, -1, 1.5, MAX_SERVICE_ID + 1, SIXTEEN_DIGITS, Number.NaN, '1001'].some(isServiceId),
    ).toBe(false);
    expect(serviceIdOfText('999999999999999')).toBe(MAX_SERVICE_ID);
    expect(serviceIdOfText('000000000001001')).toBe(1001);
    for (const text of ['', '0', '1234567890123456', '1e3', '-1', ' 1', '0x10']) {
      expect(serviceIdOfText(text)).toBeUndefined();
    }
  });

  it("is the route's: a larger id, number or text, body or query, is INVALID_SERVICE_ID", () => {
    expect(serviceIdFrom(MAX_SERVICE_ID, undefined)).toBe(MAX_SERVICE_ID);
    expect(serviceIdFrom(undefined, ' 999999999999999 ')).toBe(MAX_SERVICE_ID);
    for (const [body, query] of [
      [SIXTEEN_DIGITS, undefined],
      [String(SIXTEEN_DIGITS), undefined],
      [undefined, String(SIXTEEN_DIGITS)],
      [1e300, undefined],
      ['abc', undefined],
      [0, undefined],
      [1001, '1002'],
    ] as const) {
      const error = thrown(() => serviceIdFrom(body, query));
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'INVALID_SERVICE_ID', status: 400 });
    }
    expect(thrown(() => serviceIdFrom(undefined, undefined))).toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });

  it("is the CLI's", () => {
    expect(parseServiceId('999999999999999')).toBe(MAX_SERVICE_ID);
    for (const text of ['1234567890123456', '0', 'abc', '12.5']) {
      const error = thrown(() => parseServiceId(text));
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect((error as Error).message).toContain('at most 15 digits');
    }
  });

  it("is the sync jobs'", () => {
    expect(
      syncDeliverJobSchema.safeParse({ shop: 'default', serviceId: MAX_SERVICE_ID }).success,
    ).toBe(true);
    expect(
      syncDeliverJobSchema.safeParse({ shop: 'default', serviceId: SIXTEEN_DIGITS }).success,
    ).toBe(false);
    const items = [{ serviceId: SIXTEEN_DIGITS, fingerprint: 'f' }];
    expect(syncBatchJobSchema.safeParse({ shop: 'default', items }).success).toBe(false);
    const incident = {
      event: 'payment_incident',
      kind: 'refund',
      checkout_id: 'chk_000000000000000000000000',
      service_id: SIXTEEN_DIGITS,
      provider: 'sandbox',
      outcome: 'paid',
      at: new Date().toISOString(),
    };
    expect(syncIncidentJobSchema.safeParse({ shop: 'default', incident }).success).toBe(false);
  });

  it('keeps a service the platform lists out of range from the sync, and syncs the rest', async () => {
    const warnings: unknown[] = [];
    const queued: SyncItem[] = [];
    const page = { items: [{ id: SIXTEEN_DIGITS }, { id: 1001 }], offset: 0 };
    const deps = {
      platform: {
        iterateServicePages: async function* () {
          yield page;
        },
      },
      ledger: {
        fingerprints: (ids: readonly number[]) => Promise.resolve(ids.map(() => undefined)),
      },
      statuses: [4],
      log: {
        info: () => undefined,
        warn: (...args: unknown[]) => warnings.push(args),
        error: () => undefined,
      },
    } as unknown as Pick<SyncDeps, 'platform' | 'ledger' | 'statuses' | 'log'>;
    const queue = {
      deliver: (items: readonly SyncItem[]) => Promise.resolve(void queued.push(...items)),
      deliverAlone: () => Promise.resolve(),
    };
    await runSyncPass(deps, queue);
    expect(queued.map((item) => item.serviceId)).toEqual([1001]);
    expect(warnings).toEqual([
      ['service id out of range: not synced', { serviceId: SIXTEEN_DIGITS }],
    ]);
  });
});
