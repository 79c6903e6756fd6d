import axios, { type AxiosResponse } from 'axios';
import { Command } from 'commander';
import { AppError } from '../errors';
import { isOpen, UnreadableRecord, type CheckoutRecord } from '../checkout/checkout-record';
import { checkoutRouteConfig, readConfig } from '../config';
import { checkoutStory, storyTable, type CheckoutStory } from './checkout-story';
import {
  checkoutEvidence,
  evidenceText,
  recordIdsOf,
  serviceEvidence,
  type Evidence,
  type ServiceEvidence,
} from './checkout-evidence';
import type { CheckoutRecords } from '../checkout/ports';
import { CliFailure, EXIT, formatOption, withQueues, write, type CliIo } from './cli-io';
import { parsePositiveInt, parseServiceId, platformClient } from './services-commands';
import { shopOption, shopPlatform } from './shop-option';
import {
  listUnreadable,
  statusUsage,
  unreadableStory,
  type UnreadableStory,
} from './unreadable-checkouts';

const REQUEST_TIMEOUT_MS = 10_000;
const POLL_MS = 200;

interface StartOptions {
  shop: string;
  url?: string;
  wait?: number;
  format: 'text' | 'json';
}

interface Accepted {
  service_id: number;
  checkout_id: string;
  status: string;
}

/** What the connector said, as one line; never the token. */
function refusal(response: AxiosResponse): string {
  const error = (response.data as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return typeof error?.message === 'string'
    ? `${error.message} (${String(error.code)})`
    : `the connector answered ${response.status}`;
}

async function askForCheckout(
  endpoint: string,
  token: string,
  serviceId: number,
): Promise<Accepted> {
  let response: AxiosResponse;
  try {
    response = await axios.post(
      endpoint,
      { service_id: serviceId },
      {
        headers: { authorization: `Bearer ${token}` },
        timeout: REQUEST_TIMEOUT_MS,
        validateStatus: () => true,
      },
    );
  } catch (error) {
    const reason = (error as { code?: string; message?: string }).code ?? String(error);
    throw new CliFailure(`cannot reach the connector at ${endpoint}: ${reason}`, EXIT.failure);
  }
  const body = response.data as Partial<Accepted> | null;
  if (response.status !== 202 || typeof body?.checkout_id !== 'string') {
    throw new CliFailure(`checkout refused: ${refusal(response)}`, EXIT.failure);
  }
  return body as Accepted;
}

/** Reads the checkout until it has a URL, ends, or `waitMs` passes. */
async function waitForUrl(
  store: Pick<CheckoutRecords, 'get'>,
  checkoutId: string,
  waitMs: number,
): Promise<CheckoutRecord | undefined> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const record = await store.get(checkoutId);
    if (record && (record.url || !isOpen(record.state))) return record;
    if (Date.now() >= deadline) return record;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function startCheckout(io: CliIo, serviceId: number, options: StartOptions): Promise<void> {
  const config = readConfig(checkoutRouteConfig(options.shop, options.url), io.env);
  const endpoint = `${config.connectorUrl}${config.routePath}`;
  const accepted = await askForCheckout(endpoint, config.routeToken, serviceId);
  let record: CheckoutRecord | undefined;
  if (options.wait !== undefined) {
    const access = await io.adapters.openQueues(config.redis, options.shop);
    try {
      record = await waitForUrl(access.store, accepted.checkout_id, options.wait * 1000);
    } finally {
      await access.close();
    }
  }
  const result = {
    ...accepted,
    ...(record ? { state: record.state, checkout_url: record.url } : {}),
  };
  if (options.format === 'json') {
    await write(io.stdout, `${JSON.stringify(result)}\n`);
  } else {
    await write(io.stdout, `checkout ${accepted.checkout_id} accepted for service ${serviceId}\n`);
    if (record?.url) await write(io.stdout, `${record.url}\n`);
  }
  if (options.wait === undefined || record?.url) return;
  throw new CliFailure(
    record
      ? `no checkout URL after ${options.wait} s: the checkout is ${record.state}${record.reason ? ` (${record.reason})` : ''}`
      : `checkout ${accepted.checkout_id} not found in Redis: are REDIS_URL and QUEUE_PREFIX the connector's?`,
    EXIT.failure,
  );
}

interface StatusOptions {
  format: 'table' | 'json';
  shop: string;
  unreadable?: boolean;
}

async function tellStory(
  io: CliIo,
  serviceId: number,
  options: { format: 'table' | 'json'; shop: string },
): Promise<void> {
  const { format, shop } = options;
  const stories: Array<CheckoutStory | UnreadableStory> = await withQueues(
    io,
    async (access) =>
      Promise.all(
        (
          await withPartCheckouts(access.store, await access.store.checkoutsOfService(serviceId))
        ).map(async ({ record, parts }) =>
          record instanceof UnreadableRecord
            ? unreadableStory(record)
            : checkoutStory(
                record,
                await access.deliveryHistory.ofCheckout(record.checkoutId),
                parts,
              ),
        ),
      ),
    shop,
  );
  if (stories.length === 0) {
    throw new CliFailure(
      `no checkouts of service ${serviceId} in shop ${shop} (kept 30 days after their outcome; are REDIS_URL, QUEUE_PREFIX and --shop right?)`,
      EXIT.failure,
    );
  }
  await write(
    io.stdout,
    format === 'json' ? `${JSON.stringify(stories, null, 2)}\n` : storyTable(stories),
  );
}

interface EvidenceOptions {
  format: 'text' | 'json';
  shop: string;
}

/** The platform's service for the evidence; what kept it from being read, when it was not. */
async function readServiceEvidence(
  io: CliIo,
  serviceId: number,
  shop: string,
): Promise<ServiceEvidence> {
  try {
    const lookup = await platformClient(io, await shopPlatform(io, shop)).getServiceAsSent(
      serviceId,
    );
    return lookup.found
      ? serviceEvidence(lookup.sent)
      : { read: false, reason: 'the platform has no such service now' };
  } catch (error) {
    // The connector's own messages (its errors and the CLI's) name no secret; another's might.
    const told = error instanceof AppError || error instanceof CliFailure;
    return { read: false, reason: told ? error.message : 'the platform could not be read' };
  }
}

async function showEvidence(io: CliIo, serviceId: number, options: EvidenceOptions) {
  const { shop } = options;
  const { checkouts, unreadable } = await withQueues(
    io,
    async (access) => {
      const listed = await withPartCheckouts(
        access.store,
        await access.store.checkoutsOfService(serviceId),
      );
      const records = listed.map(({ record }) => record);
      const readable = records.filter((r): r is CheckoutRecord => !(r instanceof UnreadableRecord));
      return {
        unreadable: records.flatMap((r) =>
          r instanceof UnreadableRecord ? [{ checkout_id: r.checkoutId, problem: r.problem }] : [],
        ),
        checkouts: await Promise.all(
          readable.map(async (record) =>
            checkoutEvidence(
              record,
              await access.deliveryHistory.ofCheckout(record.checkoutId),
              await access.deliveryHistory.ofRecords(recordIdsOf(record).map((r) => r.id)),
            ),
          ),
        ),
      };
    },
    shop,
  );
  if (checkouts.length === 0) {
    throw new CliFailure(
      `no checkout of service ${serviceId} in shop ${shop}${unreadable.length > 0 ? ` that can be read (${unreadable.length} cannot: checkout status --unreadable)` : ''}: kept CHECKOUT_RETENTION_DAYS after their outcome; are REDIS_URL, QUEUE_PREFIX and --shop right?`,
      EXIT.failure,
    );
  }
  const evidence: Evidence = {
    shop,
    service_id: serviceId,
    service: await readServiceEvidence(io, serviceId, shop),
    checkouts,
    unreadable,
  };
  await write(
    io.stdout,
    options.format === 'json' ? `${JSON.stringify(evidence, null, 2)}\n` : evidenceText(evidence),
  );
}

/** `checkout start|status`: ask the connector for a checkout as the platform does; tell its story. */
export function checkoutCommand(io: CliIo): Command {
  const checkout = new Command('checkout').description('checkouts for platform services');
  checkout
    .command('start')
    .description(
      "ask the running connector for a checkout for a service, as the platform does (the URL also goes to the platform's checkout-url)",
    )
    .argument('<service_id>', 'the service to collect payment for', parseServiceId)
    .option('--url <url>', "the connector's base URL (default: PUBLIC_URL, else localhost:PORT)")
    .option(
      '--wait <seconds>',
      'wait up to this long for the checkout URL and print it (reads Redis)',
      parsePositiveInt,
    )
    .addOption(formatOption(['text', 'json']))
    .addOption(shopOption())
    .action((serviceId: number, options: StartOptions) => startCheckout(io, serviceId, options));
  checkout
    .command('status')
    .description(
      "a service's checkouts, newest first: each step with its time (requested, URL sent, paid, declined or expired, finish or cancel delivered, attempts and last error), and any record that cannot be read; reads Redis",
    )
    .argument('[service_id]', 'the service', parseServiceId)
    .option(
      '--unreadable',
      "instead: the shop's checkout records that cannot be read, which the reconciler parked",
    )
    .addOption(formatOption(['table', 'json']))
    .addOption(shopOption())
    .action((serviceId: number | undefined, options: StatusOptions) => {
      if ((serviceId === undefined) === (options.unreadable === undefined)) throw statusUsage();
      return serviceId === undefined
        ? listUnreadable(io, options)
        : tellStory(io, serviceId, options);
    });
  checkout
    .command('evidence')
    .description(
      "what a shop needs to answer a MED claim or a chargeback: the service as the platform describes it (customer, ERP order), each checkout's items and amounts, the provider's ids (payment, Pix txid and end-to-end id, authorization code), the card, the payer's name and document, every step with its time, and the ERP's acknowledgements; reads Redis and the platform, writes nothing",
    )
    .argument('<service_id>', 'the service', parseServiceId)
    .addOption(formatOption(['text', 'json']))
    .addOption(shopOption())
    .action((serviceId: number, options: EvidenceOptions) => showEvidence(io, serviceId, options));
  return checkout;
}

/**
 * The service's checkouts, each planned one followed by its part checkouts (every part has its
 * own story and evidence); a planned one carries its parts, for its plan's lines.
 */
async function withPartCheckouts(
  store: Pick<CheckoutRecords, 'getMany'>,
  records: Array<CheckoutRecord | UnreadableRecord>,
): Promise<Array<{ record: CheckoutRecord | UnreadableRecord; parts: CheckoutRecord[] }>> {
  const listed: Array<{ record: CheckoutRecord | UnreadableRecord; parts: CheckoutRecord[] }> = [];
  for (const record of records) {
    const ids = record instanceof UnreadableRecord ? [] : (record.partCheckouts ?? []);
    const read = ids.length > 0 ? await store.getMany(ids) : [];
    const parts = read.filter(
      (one): one is CheckoutRecord => one !== undefined && !(one instanceof UnreadableRecord),
    );
    listed.push({ record, parts });
    for (const one of read) if (one !== undefined) listed.push({ record: one, parts: [] });
  }
  return listed;
}
