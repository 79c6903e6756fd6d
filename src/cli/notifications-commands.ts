import { Command, Option } from 'commander';
import { Queue } from 'bullmq';
import { loadQueueConfig } from '../config';
import { redisOptions } from '../infra/redis';
import { QUEUES } from '../jobs/queue-names';
import { CliFailure, EXIT, write, type CliIo } from './cli-io';

async function withQueue<T>(io: CliIo, fn: (queue: Queue) => Promise<T>): Promise<T> {
  const { redis } = loadQueueConfig(io.env);
  const queue = new Queue(QUEUES.notifications, {
    connection: redisOptions(redis.url, 'producer', 'connector-cli'),
    prefix: redis.prefix,
  });
  try {
    return await fn(queue);
  } finally {
    await queue.close();
  }
}

const FAILED_PAGE = 1000;

/** `notifications failed|retry`: the failed set of finish/cancel deliveries. */
export function notificationsCommand(io: CliIo): Command {
  const notifications = new Command('notifications').description(
    'finish/cancel deliveries to the platform',
  );
  notifications
    .command('failed')
    .description('deliveries that gave up (the platform refused them, or every attempt failed)')
    .addOption(
      new Option('--format <format>', 'output format').choices(['table', 'json']).default('table'),
    )
    .action((options: { format: 'table' | 'json' }) =>
      withQueue(io, async (queue) => {
        const jobs = await queue.getFailed(0, FAILED_PAGE - 1);
        const rows = jobs.map((job) => ({
          id: job.id,
          kind: job.name,
          service_id: (job.data as { serviceId?: number }).serviceId,
          checkout_id: (job.data as { checkoutId?: string }).checkoutId,
          attempts: job.attemptsMade,
          failed_at: job.finishedOn ? new Date(job.finishedOn).toISOString() : undefined,
          reason: job.failedReason,
        }));
        if (options.format === 'json') {
          await write(io.stdout, `${JSON.stringify(rows, null, 2)}\n`);
          return;
        }
        if (rows.length === 0) {
          await write(io.stdout, 'no failed deliveries\n');
          return;
        }
        for (const row of rows) {
          await write(
            io.stdout,
            `${row.id}  ${row.kind}  service ${row.service_id}  attempts ${row.attempts}  ${row.failed_at ?? ''}\n    ${row.reason}\n`,
          );
        }
      }),
    );
  notifications
    .command('retry')
    .description('send failed deliveries again, from the first attempt')
    .argument('[job-id]', 'one job, as listed by `notifications failed`')
    .option('--all', 'every failed delivery')
    .action((jobId: string | undefined, options: { all?: boolean }) =>
      withQueue(io, async (queue) => {
        if (!jobId === !options.all)
          throw new CliFailure('give a job id or --all (not both)', EXIT.usage);
        if (options.all) {
          const failed = await queue.getFailedCount();
          await queue.retryJobs({ state: 'failed', count: 1000 });
          await write(io.stdout, `retrying ${failed} failed deliveries\n`);
          return;
        }
        const job = await queue.getJob(jobId ?? '');
        if (!job || !(await job.isFailed()))
          throw new CliFailure(`no failed delivery with id ${jobId}`, EXIT.failure);
        await job.retry('failed');
        await write(io.stdout, `retrying ${jobId}\n`);
      }),
    );
  return notifications;
}
