import { Command, InvalidArgumentError } from 'commander';
import { currencyConfig, readConfig } from '../config';
import { createLogger } from '../infra/logger';
import { PlatformClient, type ServiceFilters } from '../platform/platform-client';
import { Presets, SingleBar } from 'cli-progress';
import { AppError } from '../errors';
import { partCheckoutsOf, servicePaymentOf } from '../checkout/plan-checkout';
import { formatMoney } from '../html/page-layout';
import { CliFailure, EXIT, formatOption, withQueues, write, type CliIo } from './cli-io';
import { serviceSummary } from './service-summary';
import { LIST_FORMATS, listWriter, type ListFormat } from './service-formats';
import { shopOption, shopPlatform } from './shop-option';
import { SERVICE_ID_RULE, serviceIdOfText } from '../shop/service-id';

export function parseServiceId(value: string): number {
  const id = serviceIdOfText(value);
  if (id === undefined) throw new InvalidArgumentError(`must be ${SERVICE_ID_RULE}`);
  return id;
}

export function parsePositiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) <= 0)
    throw new InvalidArgumentError('must be a positive integer');
  return Number(value);
}

function parseFilter(value: string, previous: ServiceFilters | undefined): ServiceFilters {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError('must be key=value');
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

export function platformClient(
  io: CliIo,
  config: Awaited<ReturnType<typeof shopPlatform>>,
): PlatformClient {
  const logger = createLogger({
    ...config.log,
    level: io.env.LOG_LEVEL ?? 'warn',
    secrets: config.secrets,
    stream: io.stderr,
    component: 'cli',
  });
  // A person is waiting: a short retry of GETs on a transient failure (the server's jobs make
  // one attempt and leave retries to their queues).
  return new PlatformClient({
    ...config.platform,
    logger,
    pageSize: config.platform.pageSize,
    getRetries: 2,
  });
}

interface ListOptions {
  shop: string;
  status?: number;
  filter?: ServiceFilters;
  format: ListFormat;
  pageSize?: number;
  limit?: number;
  all?: boolean;
}

/** A progress bar on stderr, only when stderr is a terminal (never in a pipe or a log). */
function progressBar(io: CliIo): {
  update(done: number, total: number | undefined): void;
  stop(): void;
} {
  if (!(io.stderr as { isTTY?: boolean }).isTTY)
    return { update: () => undefined, stop: () => undefined };
  const bar = new SingleBar(
    {
      stream: io.stderr,
      format: 'services {bar} {value}/{total} | {duration_formatted}',
      hideCursor: true,
      clearOnComplete: true,
    },
    Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, total) {
      if (!started) {
        bar.start(total ?? done, done);
        started = true;
      } else {
        if (total !== undefined) bar.setTotal(total);
        bar.update(done);
      }
    },
    stop: () => {
      if (started) bar.stop();
    },
  };
}

async function listServices(io: CliIo, options: ListOptions): Promise<void> {
  if (options.all && options.limit !== undefined)
    throw new CliFailure('give --all or --limit, not both', EXIT.usage);
  const config = await shopPlatform(io, options.shop);
  const client = platformClient(io, config);
  const filters: ServiceFilters = {
    ...options.filter,
    ...(options.status ? { status: options.status } : {}),
  };
  const defaultPage = config.platform.pageSize;
  // Without --all: --limit services (one page of PLATFORM_PAGE_SIZE when not given).
  const limit = options.all ? undefined : (options.limit ?? defaultPage);
  const pageSize =
    options.pageSize ?? (limit === undefined ? defaultPage : Math.min(limit, defaultPage));
  const writer = listWriter(options.format);
  const progress = progressBar(io);
  let index = 0;
  let total: number | undefined;
  await write(io.stdout, writer.header());
  try {
    for await (const item of client.iterateServices(filters, {
      pageSize,
      onPage: (page) => {
        total = page.count === undefined ? undefined : Math.min(page.count, limit ?? page.count);
        progress.update(index, total);
      },
    })) {
      if (limit !== undefined && index >= limit) break;
      await write(io.stdout, writer.item(item, index));
      index += 1;
      progress.update(index, total);
    }
  } finally {
    progress.stop();
  }
  await write(io.stdout, writer.footer());
}

/** `services list|get|link`: the platform's services from the command line. */
export function servicesCommand(io: CliIo): Command {
  const services = new Command('services').description("read and link the platform's services");
  listCommand(services, io);
  getCommand(services, io);
  linkCommand(services, io);
  return services;
}

function listCommand(services: Command, io: CliIo): void {
  services
    .command('list')
    .description('services matching the filters: one page, --limit N of them, or --all')
    .option(
      '--status <code>',
      'only services with this status code (4, 6, 7, 9...)',
      parsePositiveInt,
    )
    // No default value: commander would print it ("default: {}") in the help.
    .option('--filter <key=value>', 'any other platform filter, repeatable', parseFilter)
    .addOption(formatOption(LIST_FORMATS))
    .option(
      '--page-size <n>',
      'services per request (default PLATFORM_PAGE_SIZE)',
      parsePositiveInt,
    )
    .option(
      '--limit <n>',
      'at most this many services, following pages as needed (default: one page, PLATFORM_PAGE_SIZE)',
      parsePositiveInt,
    )
    .option('--all', 'every matching service, following every page')
    .addOption(shopOption())
    .action((options: ListOptions) => listServices(io, options));
}

function getCommand(services: Command, io: CliIo): void {
  services
    .command('get')
    .description(
      "one service: status and dates, labour, materials, parts with edge banding and drills, and the amount a checkout would charge; with REDIS_URL, a planned order's payment page and balance due",
    )
    .argument('<id>', 'service id', parseServiceId)
    .addOption(
      formatOption(
        ['text', 'json'],
        'output format: a readable summary, or the JSON the platform sent',
      ),
    )
    .option('--json', 'the same as --format json')
    .addOption(shopOption())
    .action(
      async (id: number, options: { format: 'text' | 'json'; json?: boolean; shop: string }) => {
        const asJson = options.json === true || options.format === 'json';
        const currency = asJson ? undefined : readConfig(currencyConfig, io.env);
        const client = platformClient(io, await shopPlatform(io, options.shop));
        const lookup = await client.getService(id);
        if (!lookup.found) throw new CliFailure(`service ${id} not found`, EXIT.failure);
        await write(
          io.stdout,
          currency === undefined
            ? `${JSON.stringify(lookup.sent, null, 2)}\n`
            : `${await serviceSummary(lookup.service, currency)}${await planLines(io, id, options.shop)}`,
        );
      },
    );
}

function linkCommand(services: Command, io: CliIo): void {
  services
    .command('link')
    .description('store the ERP order code on a service (PUT internal_code)')
    .argument('<id>', 'service id', parseServiceId)
    .argument('<erp-order-code>', 'the order code in the ERP')
    .addOption(shopOption())
    .action(async (id: number, code: string, options: { shop: string }) => {
      const client = platformClient(io, await shopPlatform(io, options.shop));
      const linked = await client.linkService(id, code);
      if (!linked) throw new CliFailure(`service ${id} not found`, EXIT.failure);
      await write(io.stdout, `service ${id} linked to ERP order ${code}\n`);
    });
}

/**
 * A planned order's payment, when REDIS_URL says where the connector keeps it: its page, for the
 * ERP to send the customer, what is paid and the balance due. Nothing without REDIS_URL (the
 * command reads only the platform then), nor for a service without a planned checkout; Redis
 * away is said in one line, the summary printed.
 */
async function planLines(io: CliIo, serviceId: number, shop: string): Promise<string> {
  if (!io.env.REDIS_URL) return '';
  try {
    const payment = await withQueues(
      io,
      async ({ store }) => {
        const record = await store.latestForService(serviceId);
        return record
          ? servicePaymentOf(record, await partCheckoutsOf({ store }, record))
          : undefined;
      },
      shop,
    );
    return payment ? paymentText(payment) : '';
  } catch (error) {
    const told = error instanceof CliFailure || error instanceof AppError;
    return `\npayment: not read from Redis (${told ? error.message : 'unreachable'})\n`;
  }
}

function paymentText(payment: Record<string, unknown>): string {
  const currency = String(payment.currency);
  const money = (minor: unknown) => formatMoney(Number(minor), currency);
  const due = payment.balance_due as { amount_minor: number; due_date: string | null } | null;
  const lines = [
    '',
    `payment page  ${String(payment.payment_page ?? '-')}`,
    `  ${String(payment.state)}: paid ${money(payment.paid)} of ${money(payment.order_total)}${due ? `; balance ${money(due.amount_minor)}${due.due_date ? ` due ${due.due_date}` : ''}` : ''}`,
  ];
  return `${lines.join('\n')}\n`;
}
