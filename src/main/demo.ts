#!/usr/bin/env node
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { runCli } from '../cli/program';
import { ConfigError, loadConfig } from '../config';
import { errorMessage } from '../errors';
import { DEFAULT_PROVIDER } from '../payments/providers';
import { createLogger } from '../infra/logger';
import { startPrivateRedis, type PrivateRedis } from '../infra/private-redis';
import { DEMO_CREDENTIALS, PlatformSimulator } from '../simulator/platform-simulator';
import { newKeyringEntry } from '../secrets/secret-box';
import { cliAdapters } from './cli-adapters';
import { PortInUseError, startConnector, type RunningConnector } from './compose';
import { DEMO_ENV_FILE, demoProblems, demoVariables, endOfDemo, Started } from './demo-lifecycle';
import { EXIT_CONFIG } from './exit-codes';

const say = (line = ''): boolean => process.stdout.write(`${line}\n`);

async function redisForDemo(): Promise<{ url: string; redis?: PrivateRedis }> {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL };
  try {
    const redis = await startPrivateRedis();
    return { url: redis.url, redis };
  } catch (error) {
    throw new Error(
      `could not start redis-server (${errorMessage(error)}); install it (apt-get install redis-server) or set REDIS_URL`,
    );
  }
}

async function waitFor<T>(probe: () => T | undefined, timeoutMs: number): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

/** The env shop's name in the demo (SHOP_NAME). */
const ENV_SHOP_NAME = 'Móveis Aurora';

/**
 * A demo shop's site (`siteUrl`, SHOP_SITE_URL): the simulator's page of that shop's orders,
 * where the customer's "Voltar à loja" leads.
 */
function demoSiteUrl(platformUrl: string, account: string, name: string): string {
  const query = new URLSearchParams({ account, name });
  return `${platformUrl}/__simulator/shop?${query.toString()}`;
}

/** The second shop of the demo: a registry shop with a platform account of its own. */
const SECOND_SHOP = {
  id: 'marcenaria-demo',
  name: 'Marcenaria Demo',
  platform: {
    email: 'marcenaria-demo@example.com',
    password: randomBytes(9).toString('base64url'),
    apiKey: randomBytes(12).toString('hex'),
  },
  provider: { name: DEFAULT_PROVIDER },
};

/**
 * Adds the second shop with `connector shops add`, as an operator would (run in this process,
 * the document on its stdin), and answers the route token it printed once.
 */
async function addShopWithCli(env: Record<string, string>, siteUrl: string): Promise<string> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let printed = '';
  stdout.on('data', (chunk: Buffer) => (printed += chunk.toString('utf8')));
  stderr.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  const { id, ...document } = SECOND_SHOP;
  const code = await runCli(['shops', 'add', id, '--file', '-'], {
    env,
    stdout,
    stderr,
    stdin: Readable.from([JSON.stringify({ ...document, siteUrl })]),
    adapters: cliAdapters,
  });
  const token = /route token: +(\S+)/.exec(printed)?.[1];
  if (code !== 0 || !token) throw new Error(`connector shops add exited ${code}`);
  return token;
}

/** Asks a registry shop's route for a checkout, as the platform would for that shop. */
async function requestShopCheckout(
  connector: RunningConnector,
  token: string,
  serviceId: number,
): Promise<number> {
  const response = await fetch(`${connector.url}/shops/${SECOND_SHOP.id}/checkout`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ service_id: serviceId }),
  });
  await response.body?.cancel();
  return response.status;
}

/**
 * The whole product on one machine, with no outside account: a private Redis, the platform
 * simulator and the connector with the sandbox provider, serving two shops: the env shop (the
 * environment's variables) and a second shop added to the registry with `connector shops add`.
 * Each is asked for a checkout as the platform would, and both checkout URLs are printed. It
 * binds 127.0.0.1 unless HOST says otherwise; whatever ends it stops all it started.
 */
// eslint-disable-next-line max-lines-per-function -- the demo's script, step by step (issue 31 rewrites the demo)
async function main(started: Started, startedUp: () => void): Promise<void> {
  const token = randomBytes(18).toString('base64url');
  const dashboardPassword = randomBytes(9).toString('base64url');
  const secretKeys = newKeyringEntry('demo');
  const host = process.env.HOST || '127.0.0.1';
  const prefix = `demo-${randomBytes(3).toString('hex')}`;
  const demoEnv = (redisUrl: string, platformUrl: string) => ({
    ...process.env,
    NODE_ENV: 'development',
    PORT: process.env.PORT ?? '3000',
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: prefix,
    SHOP_SECRET_KEYS: secretKeys,
    SHOP_REFRESH_MS: '500',
    PLATFORM_BASE_URL: platformUrl,
    PLATFORM_EMAIL: DEMO_CREDENTIALS.email,
    PLATFORM_PASSWORD: DEMO_CREDENTIALS.password,
    PLATFORM_API_KEY: DEMO_CREDENTIALS.apiKey,
    CHECKOUT_ROUTE_PATH: '/checkout',
    CHECKOUT_ROUTE_TOKEN: token,
    SHOP_NAME: ENV_SHOP_NAME,
    SHOP_SITE_URL: demoSiteUrl(platformUrl, DEMO_CREDENTIALS.email, ENV_SHOP_NAME),
    PAYMENT_PROVIDER: DEFAULT_PROVIDER,
    DASHBOARD_USER: 'ops',
    DASHBOARD_PASSWORD: dashboardPassword,
  });
  // Checked before anything starts: a wrong variable leaves nothing running.
  const problems = demoProblems(process.env);
  if (problems.length > 0) throw new ConfigError(problems);
  loadConfig(demoEnv('redis://127.0.0.1:6379', 'http://127.0.0.1:1'));

  const pretty = (component: string) =>
    createLogger({
      level: 'info',
      format: 'pretty',
      secrets: [token, dashboardPassword, secretKeys],
      component,
    });
  const { url: redisUrl, redis } = await redisForDemo();
  if (redis) started.track(() => redis.close());
  const simulator = new PlatformSimulator({ logger: pretty('platform') });
  const platformUrl = await simulator.start(Number(process.env.SIMULATOR_PORT ?? 0), host);
  started.track(() => simulator.stop());
  const config = loadConfig(demoEnv(redisUrl, platformUrl));
  const connector = await startConnector(config, {
    logger: pretty('connector'),
    host,
    exit: () => undefined,
  });
  started.track(() => connector.shutdown.run('demo stopped'));
  // What every `npx connector` command needs to reach this demo: said, and kept in .demo.env.
  const reach = demoVariables({
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: prefix,
    SHOP_SECRET_KEYS: secretKeys,
    PLATFORM_BASE_URL: platformUrl,
    PLATFORM_EMAIL: DEMO_CREDENTIALS.email,
    PLATFORM_PASSWORD: DEMO_CREDENTIALS.password,
    PLATFORM_API_KEY: DEMO_CREDENTIALS.apiKey,
    CHECKOUT_ROUTE_TOKEN: token,
    SHOP_NAME: ENV_SHOP_NAME,
    PUBLIC_URL: connector.publicUrl,
    NODE_ENV: 'development',
  });
  writeFileSync(DEMO_ENV_FILE, reach, { mode: 0o600 });
  started.track(async () => rmSync(DEMO_ENV_FILE, { force: true }));
  startedUp();
  if (started.ending) return;
  simulator.connectTo({ checkoutUrl: `${connector.url}/checkout`, token });

  const serviceId = simulator.state.firstServiceId;
  say();
  say(`  platform simulator  ${platformUrl}  (${simulator.state.serviceCount} seeded services)`);
  say(`  connector           ${connector.publicUrl}   health: /healthz  metrics: /metrics`);
  say(`  redis               ${redisUrl}${redis ? ' (private, removed on exit)' : ''}`);
  say(
    `  dashboard           ${connector.publicUrl}/admin/queues  (user ops, password ${dashboardPassword})`,
  );
  say();
  say(`  Shop 1, "${ENV_SHOP_NAME}": the env shop ("default", from the environment's variables):`);
  say(`  the platform asks the connector for a checkout for service ${serviceId}...`);
  const answer = await simulator.requestCheckout(serviceId);
  say(`  connector answered ${answer.status} ${JSON.stringify(answer.body)}`);
  const checkoutUrl = await waitFor(() => simulator.checkoutUrlFor(serviceId), 15_000);

  // Shop 2: its own platform account, added to the registry with the CLI.
  simulator.state.addAccount(SECOND_SHOP.platform);
  const shopToken = await addShopWithCli(
    {
      REDIS_URL: redisUrl,
      QUEUE_PREFIX: prefix,
      SHOP_SECRET_KEYS: secretKeys,
      PLATFORM_BASE_URL: platformUrl,
      PUBLIC_URL: connector.publicUrl,
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
    },
    demoSiteUrl(platformUrl, SECOND_SHOP.platform.email, SECOND_SHOP.name),
  );
  await connector.registry.refresh();
  const secondServiceId = serviceId + 1;
  say();
  say(`  Shop 2, "${SECOND_SHOP.name}" (${SECOND_SHOP.id}), added to the registry with the CLI:`);
  say(`    SHOP_SECRET_KEYS=... npx connector shops add ${SECOND_SHOP.id} --file shop.json`);
  say(`  its route: ${connector.publicUrl}/shops/${SECOND_SHOP.id}/checkout (its own token)`);
  say(`  the platform asks that route for a checkout for service ${secondServiceId}...`);
  say(`  connector answered ${await requestShopCheckout(connector, shopToken, secondServiceId)}`);
  const secondUrl = await waitFor(
    () =>
      simulator
        .accepted('checkout-url')
        .find((c) => c.account === SECOND_SHOP.platform.email && c.serviceId === secondServiceId)
        ?.body as { checkout_url?: string } | undefined,
    15_000,
  );
  say();
  for (const [shop, url] of [
    ['default', checkoutUrl],
    [SECOND_SHOP.id, secondUrl?.checkout_url],
  ] as const) {
    if (url) {
      say(`  Shop ${shop}: open the checkout in a browser, then Pay or Decline:`);
      say(`    ${url}`);
    } else {
      say(`  Shop ${shop}: no checkout URL arrived within 15 s; the log above says why.`);
    }
  }
  say();
  say(`  Ask for another checkout of the env shop (services 1001-1025; its URL shows in the log):`);
  say(
    `    curl -X POST ${platformUrl}/__simulator/checkout-requests -H 'content-type: application/json' -d '{"service_id": ${secondServiceId + 1}}'`,
  );
  say("  See what the platform received (each call names the shop's account):");
  say(`    curl ${platformUrl}/__simulator/calls`);
  say(`  Every \`npx connector\` command reaches this demo with these variables (also in`);
  say(
    `  ${path.resolve(DEMO_ENV_FILE)}, removed when the demo stops: \`source ${DEMO_ENV_FILE}\`):`,
  );
  say();
  for (const line of reach.trimEnd().split('\n')) say(`    ${line}`);
  say();
  say(`    npx connector checkout status ${serviceId}`);
  say('    npx connector services list');
  say('    npx connector shops list');
  say();
  say('  Ctrl-C stops everything.');
  say();
}

const started = new Started();
let startedUp: () => void = () => undefined;
/** Settles once what the demo starts is all started (or it failed): then all of it can be stopped. */
const startup = new Promise<void>((resolve) => (startedUp = resolve));
// From the first line on: whatever ends the demo stops what it started, then exits.
void endOfDemo().then(async (reason) => {
  say(`  demo ending (${reason}): stopping what it started...`);
  await startup;
  await started.stopAll();
  process.exit(0);
});
main(started, startedUp).catch(async (error: unknown) => {
  startedUp();
  // Ending already (Ctrl-C while it went on): what failed is what was being stopped.
  if (started.ending) return;
  await started.stopAll();
  if (error instanceof ConfigError) {
    for (const problem of error.problems) process.stderr.write(`config error: ${problem}\n`);
    process.exit(EXIT_CONFIG);
  }
  process.stderr.write(
    error instanceof PortInUseError
      ? `${error.message}\n`
      : `demo failed: ${errorMessage(error)}\n`,
  );
  process.exit(1);
});
