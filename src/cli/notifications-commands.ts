import { Command, Option } from 'commander';
import { ERROR_CATALOGUE } from '../errors';
import type { FailedDelivery } from '../delivery/ports';
import type { QueueAccess } from './cli-adapters';
import { CliFailure, EXIT, formatOption, withQueues, write, type CliIo } from './cli-io';
import { parseShopId } from './shop-option';

/** `--shop <id>`; without it every shop's: operators look at the failed set whole. */
function onlyShop(): Option {
  return new Option('--shop <id>', "only this shop's (default: every shop's)").argParser(
    parseShopId,
  );
}

function ofShop(shop: string | undefined, word: 'of' | 'in' = 'of'): string {
  return shop === undefined ? '' : ` ${word} shop ${shop}`;
}

/** Failed deliveries are read this many at a time, so any number of them lists. */
const PAGE = 500;

interface RetryOptions {
  all?: boolean;
  shop?: string;
  since?: Date;
  until?: Date;
  code?: string;
  yes?: boolean;
}

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

/** How many deliveries a window replay retries without `--yes`. */
export const REPLAY_WITHOUT_YES = 100;

const AGO = /^(\d+)(m|h|d)$/;
const AGO_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `--since`/`--until`: ISO-8601 (without a zone, UTC) or a while ago (`30m`, `6h`, `2d`). */
export function parseTime(text: string, now = Date.now()): Date {
  const ago = AGO.exec(text);
  if (ago) return new Date(now - Number(ago[1]) * AGO_MS[ago[2] as keyof typeof AGO_MS]);
  const iso = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/;
  const zoned = /T.*(Z|[+-]\d{2}:\d{2})$/.test(text) || !text.includes('T') ? text : `${text}Z`;
  const at = iso.test(text) ? Date.parse(zoned) : NaN;
  if (Number.isNaN(at)) {
    throw new CliFailure(
      `not a time: ${text} (an ISO-8601 date or date-time, such as 2026-11-28T03:00:00Z, or a while ago: 30m, 6h, 2d)`,
      EXIT.usage,
    );
  }
  return new Date(at);
}

function parseCode(text: string): string {
  if (!Object.hasOwn(ERROR_CATALOGUE, text)) {
    throw new CliFailure(
      `not an error code: ${text} (the codes are in the README's "Error codes")`,
      EXIT.usage,
    );
  }
  return text;
}

interface Window {
  since: Date;
  until: Date;
  shop?: string;
  code?: string;
  yes?: boolean;
}

async function failedIn(access: QueueAccess, window: Window): Promise<FailedDelivery[]> {
  const found = await access.failedDeliveries.failedBetween(window.since, window.until);
  return found.filter(
    (delivery) =>
      (window.shop === undefined || delivery.shop === window.shop) &&
      (window.code === undefined || delivery.reason?.startsWith(`${window.code}:`)),
  );
}

/** Lists a window's failed deliveries, retries exactly those; over REPLAY_WITHOUT_YES: --yes. */
async function replayWindow(io: CliIo, access: QueueAccess, window: Window): Promise<void> {
  if (window.until <= window.since)
    throw new CliFailure('--until must be after --since', EXIT.usage);
  const found = await failedIn(access, window);
  const what = `${window.since.toISOString()} to ${window.until.toISOString()}${ofShop(window.shop)}${window.code ? `, ${window.code}` : ''}`;
  if (found.length === 0) {
    await write(io.stdout, `no failed deliveries from ${what}\n`);
    return;
  }
  await write(io.stdout, `${found.length} failed deliveries from ${what}:\n`);
  for (const delivery of found) {
    const row = toRow(delivery);
    await write(
      io.stdout,
      `  ${row.id}  shop ${row.shop ?? '?'}  ${row.kind}  service ${row.service_id}  ${row.failed_at ?? ''}  ${row.reason ?? ''}\n`,
    );
  }
  if (found.length > REPLAY_WITHOUT_YES && !window.yes) {
    throw new CliFailure(
      `${found.length} deliveries is more than ${REPLAY_WITHOUT_YES}: nothing retried; run again with --yes to retry them all`,
      EXIT.failure,
    );
  }
  let retried = 0;
  for (const delivery of found) {
    if (await access.failedDeliveries.retry(delivery.id, delivery.shop)) retried += 1;
  }
  // One retried meanwhile (the dashboard, another operator) is not retried twice.
  const gone = found.length - retried;
  await write(
    io.stdout,
    `retrying ${retried} failed deliveries${gone > 0 ? ` (${gone} no longer failed)` : ''}\n`,
  );
}

/** `notifications retry <job-id>` or `--all`: one failed delivery, or every one (of a shop). */
async function retryOneOrAll(
  io: CliIo,
  access: QueueAccess,
  jobId: string | undefined,
  options: RetryOptions,
): Promise<void> {
  const { shop } = options;
  if (options.all) {
    const count = await access.failedDeliveries.retryAll(shop);
    await write(io.stdout, `retrying ${count} failed deliveries${ofShop(shop)}\n`);
    return;
  }
  if (!(await access.failedDeliveries.retry(jobId ?? '', shop)))
    throw new CliFailure(`no failed delivery with id ${jobId}${ofShop(shop, 'in')}`, EXIT.failure);
  await write(io.stdout, `retrying ${jobId}\n`);
}

function windowOf(jobId: string | undefined, options: RetryOptions): Window | undefined {
  const ways = [jobId !== undefined, options.all === true, options.since !== undefined];
  if (ways.filter(Boolean).length !== 1)
    throw new CliFailure('give a job id, --all or --since (one of them)', EXIT.usage);
  if (options.since === undefined) {
    if (options.until || options.code || options.yes)
      throw new CliFailure('--until, --code and --yes go with --since', EXIT.usage);
    return undefined;
  }
  const { shop, code } = options;
  return {
    since: options.since,
    until: options.until ?? new Date(),
    ...(shop === undefined ? {} : { shop }),
    ...(code === undefined ? {} : { code }),
    yes: options.yes === true,
  };
}

function retryCommand(io: CliIo): Command {
  return new Command('retry')
    .description(
      'send failed deliveries again, from the first attempt: one, all, or those that failed in a window',
    )
    .argument('[job-id]', 'one job, as listed by `notifications failed`')
    .option('--all', 'every failed delivery (of --shop, when given)')
    .addOption(
      new Option(
        '--since <time>',
        'those that failed from this time (ISO-8601, such as 2026-11-28T03:00:00Z, or a while ago: 30m, 6h, 2d)',
      ).argParser((text) => parseTime(text)),
    )
    .addOption(
      new Option('--until <time>', 'and before this time (default: now)').argParser((text) =>
        parseTime(text),
      ),
    )
    .addOption(
      new Option('--code <error>', 'only those that failed with this error code').argParser(
        parseCode,
      ),
    )
    .option('--yes', `retry a window of more than ${REPLAY_WITHOUT_YES}`)
    .addOption(onlyShop())
    .action((jobId: string | undefined, options: RetryOptions) => {
      const window = windowOf(jobId, options);
      return withQueues(io, (access) =>
        window ? replayWindow(io, access, window) : retryOneOrAll(io, access, jobId, options),
      );
    });
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
  notifications.addCommand(retryCommand(io));
  return notifications;
}
