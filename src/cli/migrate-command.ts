import { Command } from 'commander';
import { migrateConfig, readConfig } from '../config';
import type { CliAdapters } from './cli-adapters';
import { CliFailure, EXIT, write, type CliIo } from './cli-io';

/** `connector migrate`: idempotent, with the processes stopped (docs/operating.md "Upgrading"). */
export function migrateCommand(io: CliIo): Command {
  return new Command('migrate')
    .description(
      "move the previous release's data in Redis (checkouts, queues, sync ledger, connections under way) to the current layout, keep checkout records CHECKOUT_RETENTION_DAYS after their outcome, and put the checkouts paid by Pix in the last PIX_WATCH_DAYS in the watch; stop the connector first",
    )
    .option('--dry-run', 'say what would move, and move nothing')
    .action(async (options: { dryRun?: boolean }) => {
      const dryRun = options.dryRun === true;
      const { redis, retentionMs, pixWatchDays } = readConfig(migrateConfig, io.env);
      const report = await io.adapters.migrate(redis, { dryRun, retentionMs, pixWatchDays });
      await write(io.stdout, reportLines(report, { dryRun, retentionMs, prefix: redis.prefix }));
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

type MigrateReport = Awaited<ReturnType<CliAdapters['migrate']>>;

function reportLines(
  report: MigrateReport,
  { dryRun, retentionMs, prefix }: { dryRun: boolean; retentionMs: number; prefix: string },
): string {
  const { checkouts, queues, ledger, rateLimits } = report.moved;
  const total = checkouts + queues + ledger + rateLimits;
  const { extended } = report.retention;
  const { watched } = report.watch;
  const connect = report.connect.moved + report.connect.dropped;
  const lines = [
    total === 0 && report.conflicts.length === 0 && extended === 0 && connect === 0 && watched === 0
      ? `nothing to migrate: the data under QUEUE_PREFIX=${prefix} is in the current layout`
      : `${dryRun ? 'would move' : 'moved'} ${total} keys to the current layout: ${checkouts} of checkouts, ${queues} of queues, ${ledger} of the sync ledger, ${rateLimits} of rate limits`,
  ];
  if (extended > 0)
    lines.push(
      `${dryRun ? 'would keep' : 'kept'} ${extended} checkout records ${retentionMs / 86_400_000} days after their outcome (CHECKOUT_RETENTION_DAYS)`,
    );
  if (watched > 0)
    lines.push(
      `${dryRun ? 'would put' : 'put'} ${watched} checkouts paid by Pix in the watch, read again until PIX_WATCH_DAYS after their payment`,
    );
  if (connect > 0)
    lines.push(
      `${dryRun ? 'would move' : 'moved'} ${report.connect.moved} pending provider accounts of connections under way, and ${dryRun ? 'would drop' : 'dropped'} ${report.connect.dropped} states of the previous release (their owners open their link again)`,
    );
  return lines.map((line) => `${line}\n`).join('');
}
