import { Command, InvalidArgumentError, Option } from 'commander';
import { loadPlatformConfig } from '../config';
import { createLogger } from '../infra/logger';
import { PlatformClient, type ServiceFilters } from '../platform/platform-client';
import { CliFailure, EXIT, write, type CliIo } from './cli-io';
import { LIST_FORMATS, listWriter, type ListFormat } from './service-formats';

export function parsePositiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) <= 0)
    throw new InvalidArgumentError('must be a positive integer');
  return Number(value);
}

function parseFilter(value: string, previous: ServiceFilters): ServiceFilters {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError('must be key=value');
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

function platformClient(io: CliIo): PlatformClient {
  const config = loadPlatformConfig(io.env);
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
  status?: number;
  filter: ServiceFilters;
  format: ListFormat;
  pageSize?: number;
  max?: number;
}

async function listServices(io: CliIo, options: ListOptions): Promise<void> {
  const client = platformClient(io);
  const filters: ServiceFilters = {
    ...options.filter,
    ...(options.status ? { status: options.status } : {}),
  };
  const writer = listWriter(options.format);
  let index = 0;
  await write(io.stdout, writer.header());
  const onPage = (page: { items: unknown[]; count: number | undefined }): void => {
    const total = page.count === undefined ? '' : ` of ${page.count}`;
    io.stderr.write(`fetched ${index + page.items.length}${total}\n`);
  };
  for await (const item of client.iterateServices(filters, {
    pageSize: options.pageSize,
    onPage,
  })) {
    if (options.max !== undefined && index >= options.max) break;
    await write(io.stdout, writer.item(item, index));
    index += 1;
  }
  await write(io.stdout, writer.footer());
}

/** `services list|get|link`: the platform's services from the command line. */
export function servicesCommand(io: CliIo): Command {
  const services = new Command('services').description("read and link the platform's services");
  services
    .command('list')
    .description('every service matching the filters, following the pages')
    .option(
      '--status <code>',
      'only services with this status code (4, 6, 7, 9...)',
      parsePositiveInt,
    )
    .option('--filter <key=value>', 'any other platform filter, repeatable', parseFilter, {})
    .addOption(
      new Option('--format <format>', 'output format').choices(LIST_FORMATS).default('table'),
    )
    .option(
      '--page-size <n>',
      'services per request (default PLATFORM_PAGE_SIZE)',
      parsePositiveInt,
    )
    .option('--max <n>', 'stop after this many services', parsePositiveInt)
    .action((options: ListOptions) => listServices(io, options));
  services
    .command('get')
    .description('one service in full, as JSON')
    .argument('<id>', 'service id', parsePositiveInt)
    .action(async (id: number) => {
      const lookup = await platformClient(io).getService(id);
      if (!lookup.found) throw new CliFailure(`service ${id} not found`, EXIT.failure);
      await write(io.stdout, `${JSON.stringify(lookup.service, null, 2)}\n`);
    });
  services
    .command('link')
    .description('store the ERP order code on a service (PUT internal_code)')
    .argument('<id>', 'service id', parsePositiveInt)
    .argument('<erp-order-code>', 'the order code in the ERP')
    .action(async (id: number, code: string) => {
      const linked = await platformClient(io).linkService(id, code);
      if (!linked) throw new CliFailure(`service ${id} not found`, EXIT.failure);
      await write(io.stdout, `service ${id} linked to ERP order ${code}\n`);
    });
  return services;
}
