import { eventually, type Harness } from './harness';

/**
 * The connector's settings in a drill. The reconciler, which within a minute heals what a lost
 * job or write left behind, does not run during it: every URL and every finish must come
 * through what the connector acknowledged, at once. A job that a worker had taken when its
 * primary died is taken up again within seconds (JOB_LOCK_MS and the stalled-job check).
 */
export const DRILL_ENV = { RECONCILE_INTERVAL_MS: '3600000', JOB_LOCK_MS: '5000' };

/** Services a drill of `failovers` sells: six per failover and twelve more. */
export function drillServices(failovers: number): number[] {
  return Array.from({ length: 6 * failovers + 12 }, (_, i) => 1001 + i);
}

/**
 * The failover drill (issue 19): a stream of checkouts, asked for and paid as the platform and
 * customers do (asking again on a 503, clicking Pay again on an error), while `failover` kills a
 * primary with SIGKILL and waits for the promotion, `failovers` times (the killed node rejoining
 * as a replica between, through the `rejoin` it answers). Nothing acknowledged may be lost: every
 * paid checkout's finish reaches the platform, no cancel is sent, and no service gets two
 * different checkout URLs. The harness runs with DRILL_ENV, so none of it is left to the
 * reconciler. How long after each promotion a new checkout was accepted, and after the last sale
 * every finish was at the platform, is printed (README cites it), not asserted: a loaded machine
 * only makes it slower.
 *
 * The harness's simulator needs `drillServices(failovers).length + failovers` services: one more
 * per failover, a probe checkout after each promotion.
 */
export async function runFailoverDrill(
  topology: string,
  h: Harness,
  failovers: number,
  failover: (round: number) => Promise<{ rejoin(): Promise<void> }>,
): Promise<void> {
  const services = drillServices(failovers);
  /** The platform asking for a checkout until it is accepted (it retries a 503). */
  const requestUntilAccepted = async (serviceId: number) => {
    let last: unknown;
    await eventually(
      async () => {
        const answer = await h.simulator.requestCheckout(serviceId);
        last = answer;
        return answer.status === 202 ? true : undefined;
      },
      60_000,
      `a checkout of ${serviceId} accepted`,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}; the last answer: ${JSON.stringify(last)}`);
    });
  };
  /** The customer clicking Pay until the page takes it. */
  const payUntilTaken = (url: string) =>
    eventually(
      async () => {
        const answer = await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' }).catch(
          () => undefined,
        );
        return answer?.status === 303 ? true : undefined;
      },
      60_000,
      `Pay taken on ${url}`,
    );
  /** One checkout from request to Pay. */
  const sell = async (serviceId: number) => {
    await requestUntilAccepted(serviceId);
    const url = await eventually(
      () => h.simulator.checkoutUrlFor(serviceId),
      60_000,
      `the URL of ${serviceId}`,
    );
    await payUntilTaken(url);
  };

  const sold: number[] = [];
  // Three customers at a time, all along.
  const queue = [...services];
  const stream = Promise.all(
    [0, 1, 2].map(async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        await sell(next);
        sold.push(next);
      }
    }),
  );
  const recoveries: number[] = [];
  for (let round = 1; round <= failovers; round++) {
    await eventually(() => (sold.length >= round * 6 ? true : undefined), 60_000, 'sales');
    const killed = await failover(round);
    const promotedAt = Date.now();
    // A new checkout asked for right after the promotion, until it is accepted.
    await requestUntilAccepted(1000 + services.length + round);
    recoveries.push(Date.now() - promotedAt);
    // The killed node rejoins as a replica, so the next round has one to promote.
    if (round < failovers) await killed.rejoin();
  }
  await stream;
  const soldAt = Date.now();

  const unfinished = () => {
    const finished = new Set(h.simulator.accepted('finish-checkout').map((c) => c.serviceId));
    return services.filter((id) => !finished.has(id));
  };
  await eventually(() => (unfinished().length === 0 ? true : undefined), 60_000, 'every finish')
    // What is missing, and where its finish is, says where it was lost.
    .catch(async (error: unknown) => {
      const missing = await Promise.all(
        unfinished().map(async (serviceId) => {
          const record = await h.connector.deps.store.latestForService(serviceId);
          const job = record
            ? await h.connector.jobs.notificationQueue.getJob(`finish-${record.checkoutId}`)
            : undefined;
          return { serviceId, record: record?.state, finishJob: (await job?.getState()) ?? 'none' };
        }),
      );
      throw new Error(`${String(error)}: ${JSON.stringify(missing)}`);
    });
  console.log(
    `${topology} drill: ${services.length} checkouts sold through ${failovers} failovers; a checkout accepted ${recoveries.join(', ')} ms after each promotion; every finish at the platform ${Date.now() - soldAt} ms after the last sale`,
  );
  expect(h.simulator.accepted('cancel-checkout')).toEqual([]);
  for (const id of services) {
    const urls = new Set(
      h.simulator
        .accepted('checkout-url')
        .filter((c) => c.serviceId === id)
        .map((c) => (c.body as { checkout_url: string }).checkout_url),
    );
    expect({ service: id, urls: urls.size }).toEqual({ service: id, urls: 1 });
  }
}
