#!/usr/bin/env node
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../config';
import { errorMessage } from '../errors';
import { DEFAULT_PROVIDER } from '../payments/providers';
import { createLogger } from '../infra/logger';
import { startPrivateRedis, type PrivateRedis } from './private-redis';
import { DEMO_CREDENTIALS, PlatformSimulator } from '../simulator/platform-simulator';
import { newKeyringEntry } from '../secrets/secret-box';
import { PortInUseError, startConnector, type RunningConnector } from '../main/compose';
import {
  addShopWithCli,
  demoSiteUrl,
  ENV_SHOP_NAME,
  requestShopCheckout,
  SECOND_SHOP,
} from './demo-shops';
import { DEMO_ENV_FILE, demoProblems, demoVariables, endOfDemo, Started } from './demo-lifecycle';
import { EXIT_CONFIG } from '../main/exit-codes';

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

interface DemoSecrets {
  token: string;
  dashboardPassword: string;
  secretKeys: string;
  prefix: string;
}

function demoEnv(secrets: DemoSecrets, redisUrl: string, platformUrl: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'development',
    PORT: process.env.PORT ?? '3000',
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: secrets.prefix,
    SHOP_SECRET_KEYS: secrets.secretKeys,
    SHOP_REFRESH_MS: '500',
    PLATFORM_BASE_URL: platformUrl,
    PLATFORM_EMAIL: DEMO_CREDENTIALS.email,
    PLATFORM_PASSWORD: DEMO_CREDENTIALS.password,
    PLATFORM_API_KEY: DEMO_CREDENTIALS.apiKey,
    CHECKOUT_ROUTE_PATH: '/checkout',
    CHECKOUT_ROUTE_TOKEN: secrets.token,
    SHOP_NAME: ENV_SHOP_NAME,
    SHOP_SITE_URL: demoSiteUrl(platformUrl, DEMO_CREDENTIALS.email, ENV_SHOP_NAME),
    PAYMENT_PROVIDER: DEFAULT_PROVIDER,
    DASHBOARD_USER: 'ops',
    DASHBOARD_PASSWORD: secrets.dashboardPassword,
  };
}

interface RunningDemo {
  secrets: DemoSecrets;
  redisUrl: string;
  privateRedis: boolean;
  platformUrl: string;
  simulator: PlatformSimulator;
  connector: RunningConnector;
  reach: string;
}

/** What every `npx connector` command needs to reach this demo: kept in .demo.env while it runs. */
function keepReach(
  started: Started,
  secrets: DemoSecrets,
  at: { redisUrl: string; platformUrl: string; publicUrl: string },
): string {
  const reach = demoVariables({
    REDIS_URL: at.redisUrl,
    QUEUE_PREFIX: secrets.prefix,
    SHOP_SECRET_KEYS: secrets.secretKeys,
    PLATFORM_BASE_URL: at.platformUrl,
    PLATFORM_EMAIL: DEMO_CREDENTIALS.email,
    PLATFORM_PASSWORD: DEMO_CREDENTIALS.password,
    PLATFORM_API_KEY: DEMO_CREDENTIALS.apiKey,
    CHECKOUT_ROUTE_TOKEN: secrets.token,
    SHOP_NAME: ENV_SHOP_NAME,
    PUBLIC_URL: at.publicUrl,
    NODE_ENV: 'development',
  });
  writeFileSync(DEMO_ENV_FILE, reach, { mode: 0o600 });
  started.track(async () => rmSync(DEMO_ENV_FILE, { force: true }));
  return reach;
}

/** Starts a private Redis (unless REDIS_URL names one), the simulator and the connector. */
async function startDemo(started: Started, host: string): Promise<RunningDemo> {
  const secrets: DemoSecrets = {
    token: randomBytes(18).toString('base64url'),
    dashboardPassword: randomBytes(9).toString('base64url'),
    secretKeys: newKeyringEntry('demo'),
    prefix: `demo-${randomBytes(3).toString('hex')}`,
  };
  // Checked before anything starts: a wrong variable leaves nothing running.
  const problems = demoProblems(process.env);
  if (problems.length > 0) throw new ConfigError(problems);
  loadConfig(demoEnv(secrets, 'redis://127.0.0.1:6379', 'http://127.0.0.1:1'));
  const pretty = (component: string) =>
    createLogger({
      level: 'info',
      format: 'pretty',
      secrets: [secrets.token, secrets.dashboardPassword, secrets.secretKeys],
      component,
    });
  const { url: redisUrl, redis } = await redisForDemo();
  if (redis) started.track(() => redis.close());
  const simulator = new PlatformSimulator({ logger: pretty('platform') });
  const platformUrl = await simulator.start(Number(process.env.SIMULATOR_PORT ?? 0), host);
  started.track(() => simulator.stop());
  const config = loadConfig(demoEnv(secrets, redisUrl, platformUrl));
  const connector = await startConnector(config, {
    logger: pretty('connector'),
    host,
    exit: () => undefined,
  });
  started.track(() => connector.shutdown.run('demo stopped'));
  const reach = keepReach(started, secrets, {
    redisUrl,
    platformUrl,
    publicUrl: connector.publicUrl,
  });
  return { secrets, redisUrl, privateRedis: !!redis, platformUrl, simulator, connector, reach };
}

/** Shop 1, the env shop: the platform asks for a checkout; answers its URL once it arrives. */
async function showEnvShop(demo: RunningDemo, serviceId: number): Promise<string | undefined> {
  const { simulator, connector, platformUrl, redisUrl } = demo;
  say();
  say(`  platform simulator  ${platformUrl}  (${simulator.state.serviceCount} seeded services)`);
  say(`  connector           ${connector.publicUrl}   health: /healthz  metrics: /metrics`);
  say(`  redis               ${redisUrl}${demo.privateRedis ? ' (private, removed on exit)' : ''}`);
  say(
    `  dashboard           ${connector.publicUrl}/admin/queues  (user ops, password ${demo.secrets.dashboardPassword})`,
  );
  say();
  say(`  Shop 1, "${ENV_SHOP_NAME}": the env shop ("default", from the environment's variables):`);
  say(`  the platform asks the connector for a checkout for service ${serviceId}...`);
  const answer = await simulator.requestCheckout(serviceId);
  say(`  connector answered ${answer.status} ${JSON.stringify(answer.body)}`);
  return waitFor(() => simulator.checkoutUrlFor(serviceId), 15_000);
}

/** Shop 2: its own platform account, added to the registry with the CLI; answers its URL. */
async function showRegistryShop(demo: RunningDemo, serviceId: number): Promise<string | undefined> {
  const { simulator, connector, platformUrl, redisUrl, secrets } = demo;
  simulator.state.addAccount(SECOND_SHOP.platform);
  const shopToken = await addShopWithCli(
    {
      REDIS_URL: redisUrl,
      QUEUE_PREFIX: secrets.prefix,
      SHOP_SECRET_KEYS: secrets.secretKeys,
      PLATFORM_BASE_URL: platformUrl,
      PUBLIC_URL: connector.publicUrl,
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
    },
    demoSiteUrl(platformUrl, SECOND_SHOP.platform.email, SECOND_SHOP.name),
  );
  await connector.registry.refresh();
  say();
  say(`  Shop 2, "${SECOND_SHOP.name}" (${SECOND_SHOP.id}), added to the registry with the CLI:`);
  say("  a 30 % deposit now and the balance later, by Pix or card, on the connector's own page");
  say(`    SHOP_SECRET_KEYS=... npx connector shops add ${SECOND_SHOP.id} --file shop.json`);
  say(`  its route: ${connector.publicUrl}/shops/${SECOND_SHOP.id}/checkout (its own token)`);
  say(`  the platform asks that route for a checkout for service ${serviceId}...`);
  say(`  connector answered ${await requestShopCheckout(connector, shopToken, serviceId)}`);
  const sent = await waitFor(
    () =>
      simulator
        .accepted('checkout-url')
        .find((c) => c.account === SECOND_SHOP.platform.email && c.serviceId === serviceId)
        ?.body as { checkout_url?: string } | undefined,
    15_000,
  );
  return sent?.checkout_url;
}

/** The checkout URLs, and what to try next. */
function showWhatNext(
  demo: RunningDemo,
  serviceId: number,
  urls: ReadonlyArray<readonly [string, string | undefined]>,
): void {
  say();
  for (const [shop, url] of urls) {
    if (url && new URL(url).pathname.startsWith('/pay/')) {
      say(`  Shop ${shop}: open its payment page in a browser, pay the deposit, then the balance:`);
      say(`    ${url}`);
    } else if (url) {
      say(`  Shop ${shop}: open the checkout in a browser, then Pay or Decline:`);
      say(`    ${url}`);
    } else {
      say(`  Shop ${shop}: no checkout URL arrived within 15 s; the log above says why.`);
    }
  }
  say();
  say(`  Ask for another checkout of the env shop (services 1001-1025; its URL shows in the log):`);
  say(
    `    curl -X POST ${demo.platformUrl}/__simulator/checkout-requests -H 'content-type: application/json' -d '{"service_id": ${serviceId + 2}}'`,
  );
  say("  See what the platform received (each call names the shop's account):");
  say(`    curl ${demo.platformUrl}/__simulator/calls`);
  say(`  Every \`npx connector\` command reaches this demo with these variables (also in`);
  say(
    `  ${path.resolve(DEMO_ENV_FILE)}, removed when the demo stops: \`source ${DEMO_ENV_FILE}\`):`,
  );
  say();
  for (const line of demo.reach.trimEnd().split('\n')) say(`    ${line}`);
  say();
  say(`    npx connector checkout status ${serviceId}`);
  say('    npx connector services list');
  say('    npx connector shops list');
  say();
  say('  Ctrl-C stops everything.');
  say();
}

/**
 * The whole product on one machine, no outside account: private Redis, the platform simulator, the
 * connector with the sandbox serving the env shop and a registry shop. Binds 127.0.0.1 unless HOST.
 */
async function main(started: Started, startedUp: () => void): Promise<void> {
  const demo = await startDemo(started, process.env.HOST || '127.0.0.1');
  startedUp();
  if (started.ending) return;
  demo.simulator.connectTo({
    checkoutUrl: `${demo.connector.url}/checkout`,
    token: demo.secrets.token,
  });
  const serviceId = demo.simulator.state.firstServiceId;
  const checkoutUrl = await showEnvShop(demo, serviceId);
  const secondUrl = await showRegistryShop(demo, serviceId + 1);
  showWhatNext(demo, serviceId, [
    ['default', checkoutUrl],
    [SECOND_SHOP.id, secondUrl],
  ]);
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
