import { Command } from 'commander';
import { loadSyncConfig } from '../config';
import { syncOnce, type OnceCounts } from '../sync/sync-once';
import { CliFailure, EXIT, formatOption, write, type CliIo } from './cli-io';
import { forTerminal } from './terminal-text';
import { shopOption, shopPlatform } from './shop-option';

interface SyncOptions {
  shop: string;
  once?: boolean;
  format: 'text' | 'json';
}

const COUNTS: ReadonlyArray<keyof OnceCounts> = [
  'seen',
  'new',
  'changed',
  'unchanged',
  'delivered',
  'failed',
];

function countsLine(counts: OnceCounts): string {
  return `${COUNTS.map((name) => `${name} ${counts[name]}`).join('  ')}\n`;
}

/** Waits `ms`, or less when `stop` fires. */
function pause(ms: number, stop: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    stop.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

async function runSync(io: CliIo, options: SyncOptions): Promise<void> {
  const config = loadSyncConfig(io.env);
  if (!options.once && config.sync.intervalMs === undefined) {
    throw new CliFailure(
      'SYNC_INTERVAL is unset: give --once for one pass, or set SYNC_INTERVAL (e.g. 5m) to sync continuously',
      EXIT.config,
    );
  }
  const account = await shopPlatform(io, options.shop);
  const access = await io.adapters.openSync({
    ...config,
    shop: options.shop,
    platform: account.platform,
    secrets: [...config.secrets, ...account.secrets],
    log: { ...config.log, level: io.env.LOG_LEVEL ?? 'warn' },
    stderr: io.stderr,
  });
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  if (!options.once) {
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  let anyFailed = false;
  try {
    do {
      const counts = await syncOnce(access.deps, {
        concurrency: config.concurrency,
        pageSize: config.platform.pageSize,
        onFailure: (failure) =>
          io.stderr.write(forTerminal(`failed: service ${failure.serviceId}: ${failure.reason}\n`)),
      });
      anyFailed ||= counts.failed > 0;
      await write(
        io.stdout,
        options.format === 'json' ? `${JSON.stringify(counts)}\n` : countsLine(counts),
      );
      if (options.once) break;
      await pause(config.sync.intervalMs ?? 0, stop.signal);
    } while (!stop.signal.aborted);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await access.close();
  }
  if (anyFailed && options.once) {
    throw new CliFailure(
      'some services were not delivered (listed above); run again to retry them',
      EXIT.failure,
    );
  }
}

/** `sync [--once]`: services into the ERP, in the foreground. */
export function syncCommand(io: CliIo): Command {
  return new Command('sync')
    .description(
      'send new and changed services (statuses SYNC_STATUSES) to the ERP (ERP_SINK): one pass with --once, else a pass every SYNC_INTERVAL until stopped',
    )
    .option('--once', 'one pass: wait for its deliveries, print the counts, exit 1 if any failed')
    .addOption(formatOption(['text', 'json'], 'output format of the counts'))
    .addOption(shopOption())
    .action((options: SyncOptions) => runSync(io, options));
}
