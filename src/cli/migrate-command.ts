import { Command } from 'commander';
import { loadMigrateConfig } from '../config';
import { CliFailure, EXIT, write, type CliIo } from './cli-io';

/**
 * `connector migrate [--dry-run]`: moves a previous release's data in Redis to the current
 * layout. Idempotent; with the connector's processes stopped (docs/operating.md, "Upgrading").
 */
export function migrateCommand(io: CliIo): Command {
  return new Command('migrate')
    .description(
      "move the previous release's data in Redis (checkouts, queues, sync ledger, connections under way) to the current layout, and keep checkout records CHECKOUT_RETENTION_DAYS after their outcome; stop the connector first",
    )
    .option('--dry-run', 'say what would move, and move nothing')
    .action(async (options: { dryRun?: boolean }) => {
      const { redis, retentionMs } = loadMigrateConfig(io.env);
      const report = await io.adapters.migrate(redis, {
        dryRun: options.dryRun === true,
        retentionMs,
      });
      const { checkouts, queues, ledger, rateLimits } = report.moved;
      const total = checkouts + queues + ledger + rateLimits;
      const verb = options.dryRun ? 'would move' : 'moved';
      const { extended } = report.retention;
      const connect = report.connect.moved + report.connect.dropped;
      await write(
        io.stdout,
        total === 0 && report.conflicts.length === 0 && extended === 0 && connect === 0
          ? `nothing to migrate: the data under QUEUE_PREFIX=${redis.prefix} is in the current layout\n`
          : `${verb} ${total} keys to the current layout: ${checkouts} of checkouts, ${queues} of queues, ${ledger} of the sync ledger, ${rateLimits} of rate limits\n`,
      );
      if (extended > 0) {
        const days = retentionMs / 86_400_000;
        await write(
          io.stdout,
          `${options.dryRun ? 'would keep' : 'kept'} ${extended} checkout records ${days} days after their outcome (CHECKOUT_RETENTION_DAYS)\n`,
        );
      }
      if (connect > 0) {
        await write(
          io.stdout,
          `${options.dryRun ? 'would move' : 'moved'} ${report.connect.moved} pending provider accounts of connections under way, and ${options.dryRun ? 'would drop' : 'dropped'} ${report.connect.dropped} states of the previous release (their owners open their link again)\n`,
        );
      }
      if (report.conflicts.length > 0) {
        for (const { from, to } of report.conflicts.slice(0, 20))
          await write(io.stderr, `  not moved: ${from} (${to} exists)\n`);
        throw new CliFailure(
          `${report.conflicts.length} keys were not moved: their new names exist already (did the new release run before this migration?). Nothing was overwritten; see docs/operating.md, "Upgrading".`,
          EXIT.failure,
        );
      }
    });
}
