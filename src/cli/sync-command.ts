import { setTimeout as sleep } from 'node:timers/promises';
import { Command } from 'commander';
import { readConfig, syncCommandConfig, type SyncCommandConfig } from '../config';
import type { SyncAccess } from './cli-adapters';
import { syncOnce, type OnceCounts } from '../sync/sync-once';
import { CliFailure, EXIT, formatOption, write, type CliIo } from './cli-io';
import { forTerminal } from './terminal-text';
import { shopOption, shopPlatform } from './shop-option';

interface SyncOptions {
  shop: string;
  once?: boolean;
  format: 'text' | 'json';
}

const COUNTS = ['seen', 'new', 'changed', 'unchanged', 'delivered', 'failed'] as const;

function countsLine(counts: OnceCounts): string {
  return `${COUNTS.map((name) => `${name} ${counts[name]}`).join('  ')}\n`;
}

async function runSync(io: CliIo, options: SyncOptions): Promise<void> {
  const config = readConfig(syncCommandConfig, io.env);
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
  let anyFailed: boolean;
  try {
    anyFailed = await passes(io, options, config, access);
  } finally {
    await access.close();
  }
  if (anyFailed && options.once) {
    throw new CliFailure(
      'some services were not delivered (listed above); run again to retry them',
      EXIT.failure,
    );
  }
}

/** One pass with --once, else a pass every SYNC_INTERVAL until a signal: whether any failed. */
async function passes(
  io: CliIo,
  options: SyncOptions,
  config: SyncCommandConfig,
  access: SyncAccess,
): Promise<boolean> {
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
      const line = options.format === 'json' ? `${JSON.stringify(counts)}\n` : countsLine(counts);
      await write(io.stdout, line);
      if (options.once) break;
      // Until the next pass, or less when a signal stops the command.
      await sleep(config.sync.intervalMs ?? 0, undefined, { signal: stop.signal }).catch(() => {});
    } while (!stop.signal.aborted);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  return anyFailed;
}

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
