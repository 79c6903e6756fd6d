import { Command, Option } from 'commander';
import { loadQueueConfig } from '../config';
import type { FailedDelivery } from '../delivery/ports';
import type { QueueAccess } from './cli-adapters';
import { CliFailure, EXIT, formatOption, write, type CliIo } from './cli-io';
import { parseShopId } from './shop-option';

async function withQueues<T>(io: CliIo, fn: (access: QueueAccess) => Promise<T>): Promise<T> {
  const { redis } = loadQueueConfig(io.env);
  const access = await io.adapters.openQueues(redis);
  try {
    return await fn(access);
  } finally {
    await access.close();
  }
}

/**
 * `--shop <id>` on the failed set: only that shop's. Without it, every shop's (each row names
 * its shop): the failed set is one operators look at whole.
 */
function onlyShop(): Option {
  return new Option('--shop <id>', "only this shop's (default: every shop's)").argParser(
    parseShopId,
  );
}

/** " of shop <id>" (or " in shop <id>") when the command is narrowed to one shop, else "". */
function ofShop(shop: string | undefined, word: 'of' | 'in' = 'of'): string {
  return shop === undefined ? '' : ` ${word} shop ${shop}`;
}

/** Failed deliveries are read this many at a time, so any number of them lists. */
const PAGE = 500;

function toRow(delivery: FailedDelivery) {
  return {
    id: delivery.id,
    shop: delivery.shop,
    kind: delivery.kind,
    service_id: delivery.serviceId,
    checkout_id: delivery.checkoutId,
    attempts: delivery.attempts,
    failed_at: delivery.failedAt,
    reason: delivery.reason,
  };
}

async function listFailed(
  io: CliIo,
  access: QueueAccess,
  options: { format: 'table' | 'json'; shop?: string },
) {
  const { format, shop } = options;
  let listed = 0;
  if (format === 'json') await write(io.stdout, '[');
  for (let offset = 0; ; offset += PAGE) {
    const page = await access.failedDeliveries.page(offset, PAGE);
    for (const delivery of page) {
      if (shop !== undefined && delivery.shop !== shop) continue;
      const row = toRow(delivery);
      await write(
        io.stdout,
        format === 'json'
          ? `${listed === 0 ? '\n' : ',\n'}  ${JSON.stringify(row)}`
          : `${row.id}  shop ${row.shop ?? '?'}  ${row.kind}  service ${row.service_id}  attempts ${row.attempts}  ${row.failed_at ?? ''}\n    ${row.reason}\n`,
      );
      listed += 1;
    }
    if (page.length < PAGE) break;
  }
  if (format === 'json') await write(io.stdout, listed === 0 ? ']\n' : '\n]\n');
  else if (listed === 0) await write(io.stdout, `no failed deliveries${ofShop(shop)}\n`);
}

/** `notifications failed|retry`: the failed set of finish/cancel deliveries. */
export function notificationsCommand(io: CliIo): Command {
  const notifications = new Command('notifications').description(
    'finish/cancel deliveries to the platform',
  );
  notifications
    .command('failed')
    .description('deliveries that gave up (the platform refused them, or every attempt failed)')
    .addOption(formatOption(['table', 'json']))
    .addOption(onlyShop())
    .action((options: { format: 'table' | 'json'; shop?: string }) =>
      withQueues(io, (access) => listFailed(io, access, options)),
    );
  notifications
    .command('retry')
    .description('send failed deliveries again, from the first attempt')
    .argument('[job-id]', 'one job, as listed by `notifications failed`')
    .option('--all', 'every failed delivery (of --shop, when given)')
    .addOption(onlyShop())
    .action((jobId: string | undefined, options: { all?: boolean; shop?: string }) => {
      if (!jobId === !options.all)
        throw new CliFailure('give a job id or --all (not both)', EXIT.usage);
      const { shop } = options;
      return withQueues(io, async ({ failedDeliveries }) => {
        if (options.all) {
          const count = await failedDeliveries.retryAll(shop);
          await write(io.stdout, `retrying ${count} failed deliveries${ofShop(shop)}\n`);
          return;
        }
        if (!(await failedDeliveries.retry(jobId ?? '', shop)))
          throw new CliFailure(
            `no failed delivery with id ${jobId}${ofShop(shop, 'in')}`,
            EXIT.failure,
          );
        await write(io.stdout, `retrying ${jobId}\n`);
      });
    });
  return notifications;
}
