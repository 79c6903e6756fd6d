import type { Job, Queue } from 'bullmq';
import { shopOfCheckout } from '../checkout/checkout-record';
import type { CheckoutRecords } from '../checkout/ports';
import type {
  DeliveryHistory,
  DeliveryProgress,
  FailedDeliveries,
  FailedDelivery,
  RecordDelivery,
} from '../delivery/ports';
import { jobIds } from './queue-names';

/** Failed jobs read at a time when one shop's are retried. */
const RETRY_PAGE = 500;

/** The shop of a notification job: its data's, else the one its checkout id names. */
function shopOf(job: { data: unknown }): string | undefined {
  const data = job.data as { shop?: unknown; checkoutId?: unknown } | null;
  if (typeof data?.shop === 'string') return data.shop;
  return typeof data?.checkoutId === 'string' ? shopOfCheckout(data.checkoutId) : undefined;
}

export class BullmqFailedDeliveries implements FailedDeliveries {
  constructor(
    private readonly queue: Queue,
    /** The store of a shop: a job's checkout is read from its own shop's. */
    private readonly storeOf: (shop: string) => Pick<CheckoutRecords, 'get'>,
    /**
     * The incarnation of the shop stored under an id now ('' for none; undefined when no shop
     * is): a job of another one is a removed shop's, never listed nor retried as the shop's now.
     */
    private readonly incarnationOf?: (shop: string) => Promise<string | undefined>,
  ) {}

  /** The shop a job is of now: its id, or `<id> (removed)` when it is a removed incarnation's. */
  private async ownerOf(job: { data: unknown }): Promise<string | undefined> {
    const shop = shopOf(job);
    if (shop === undefined || !this.incarnationOf) return shop;
    const given = (job.data as { incarnation?: unknown } | null)?.incarnation;
    const incarnation = typeof given === 'string' ? given : '';
    return (await this.incarnationOf(shop)) === incarnation ? shop : `${shop} (removed)`;
  }

  async page(offset: number, limit: number): Promise<FailedDelivery[]> {
    return this.described(await this.queue.getFailed(offset, offset + limit - 1));
  }

  async failedBetween(since: Date, until: Date): Promise<FailedDelivery[]> {
    // The failed set is scored by when each job failed (BullMQ's finishedOn).
    // ioredis underneath (BullMQ's client interface names fewer commands than it has).
    const client = (await this.queue.client) as unknown as {
      zrangebyscore(key: string, min: number, max: string): Promise<string[]>;
    };
    const key = this.queue.keys.failed ?? '';
    const ids = await client.zrangebyscore(key, since.getTime(), `(${until.getTime()}`);
    const jobs = await Promise.all(ids.map((id) => this.queue.getJob(id)));
    return this.described(jobs.filter((job): job is Job => job !== undefined));
  }

  /** Failed jobs as the CLI and the dashboard show them: each with its service and its shop. */
  private async described(listed: readonly (Job | undefined)[]): Promise<FailedDelivery[]> {
    const jobs = listed.filter((job): job is Job => Boolean(job?.id));
    // A job names only its checkout: the service comes from the checkout's record.
    const records = await Promise.all(
      jobs.map((job) => {
        const checkoutId = (job.data as { checkoutId?: unknown }).checkoutId;
        if (typeof checkoutId !== 'string') return undefined;
        const shop = shopOfCheckout(checkoutId);
        return shop ? this.storeOf(shop).get(checkoutId) : undefined;
      }),
    );
    const owners = await Promise.all(jobs.map((job) => this.ownerOf(job)));
    return jobs.flatMap((job, i) => {
      if (!job.id) return [];
      const data = job.data as { checkoutId?: string };
      return [
        {
          id: job.id,
          shop: owners[i],
          kind: job.name,
          serviceId: records[i]?.serviceId,
          checkoutId: data.checkoutId,
          attempts: job.attemptsMade,
          failedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : undefined,
          reason: job.failedReason,
        },
      ];
    });
  }

  async retry(id: string, shop?: string): Promise<boolean> {
    const job = await this.queue.getJob(id);
    if (!job || (shop !== undefined && (await this.ownerOf(job)) !== shop)) return false;
    if (!(await job.isFailed())) return false;
    await job.retry('failed');
    return true;
  }

  async retryAll(shop?: string): Promise<number> {
    if (shop === undefined) {
      const failed = await this.queue.getFailedCount();
      // BullMQ moves them in batches of `count` until none is left.
      await this.queue.retryJobs({ state: 'failed', count: 1000 });
      return failed;
    }
    // One shop's: its jobs are picked out of the failed set, a page at a time. A job retried
    // leaves the set, so the next page is read from where this one's survivors end.
    let retried = 0;
    let offset = 0;
    for (;;) {
      const page = await this.queue.getFailed(offset, offset + RETRY_PAGE - 1);
      if (page.length === 0) return retried;
      let kept = 0;
      for (const job of page) {
        if (job && (await this.ownerOf(job)) === shop) {
          await job.retry('failed');
          retried += 1;
        } else {
          kept += 1;
        }
      }
      offset += kept;
    }
  }
}

/**
 * A checkout's finish and cancel jobs, as its story shows them (kept 7 days when delivered), and
 * its payment records' deliveries to the ERP (the sync queue's `payment` jobs), read only.
 */
export class BullmqDeliveryHistory implements DeliveryHistory {
  constructor(
    private readonly queue: Queue,
    /** The sync queue, opened when first asked for (the CLI reads it for the evidence only). */
    private readonly sync?: () => Queue,
  ) {}

  async ofCheckout(checkoutId: string): Promise<DeliveryProgress[]> {
    const kinds = ['finish', 'cancel'] as const;
    const jobs = await Promise.all(
      kinds.map((kind) => this.queue.getJob(jobIds.notify(kind, checkoutId))),
    );
    const found = jobs.flatMap((job, i) => (job ? [{ job, kind: kinds[i] ?? 'finish' }] : []));
    return Promise.all(
      found.map(async ({ job, kind }) => ({ kind, ...(await progressOf(this.queue, job)) })),
    );
  }

  async ofRecords(recordIds: readonly string[]): Promise<RecordDelivery[]> {
    const sync = this.sync?.();
    if (!sync) return [];
    const jobs = await Promise.all(recordIds.map((id) => sync.getJob(jobIds.syncPayment(id))));
    return Promise.all(
      jobs.flatMap((job, i) =>
        job ? [progressOf(sync, job).then((p) => ({ recordId: recordIds[i] ?? '', ...p }))] : [],
      ),
    );
  }
}

/** Where a job stands, as a story tells it. */
async function progressOf(queue: Queue, job: Job): Promise<Omit<DeliveryProgress, 'kind'>> {
  const state = await job.getState();
  // BullMQ scores a delayed job by its due time in ms, shifted left by 12 bits.
  const score =
    state === 'delayed'
      ? await (await queue.client).zscore(queue.keys.delayed ?? '', job.id ?? '')
      : null;
  return {
    state,
    attempts: job.attemptsMade,
    lastError: job.failedReason || undefined,
    finishedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : undefined,
    nextAttemptAt: score ? new Date(Math.floor(Number(score) / 4096)).toISOString() : undefined,
  };
}
