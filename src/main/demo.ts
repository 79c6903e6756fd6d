#!/usr/bin/env node
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { ConfigError, loadConfig } from '../config';
import { errorMessage } from '../errors';
import { createLogger } from '../infra/logger';
import { startPrivateRedis, type PrivateRedis } from '../infra/private-redis';
import { DEMO_CREDENTIALS, PlatformSimulator } from '../simulator/platform-simulator';
import { startConnector } from './compose';
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

/**
 * The whole product on one machine, with no outside account: a private Redis, the platform
 * simulator and the connector with the sandbox provider. The simulator asks for a checkout
 * for a seeded service, and the checkout URL is printed to open in a browser.
 */
async function main(): Promise<void> {
  const { url: redisUrl, redis } = await redisForDemo();
  const token = randomBytes(18).toString('base64url');
  const dashboardPassword = randomBytes(9).toString('base64url');
  const port = Number(process.env.PORT ?? 3000);
  const pretty = (component: string) =>
    createLogger({
      level: 'info',
      format: 'pretty',
      secrets: [token, dashboardPassword],
      component,
    });
  const simulator = new PlatformSimulator({ logger: pretty('platform') });
  const platformUrl = await simulator.start(Number(process.env.SIMULATOR_PORT ?? 0));
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'development',
    PORT: String(port),
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: `demo-${randomBytes(3).toString('hex')}`,
    PLATFORM_BASE_URL: platformUrl,
    PLATFORM_EMAIL: DEMO_CREDENTIALS.email,
    PLATFORM_PASSWORD: DEMO_CREDENTIALS.password,
    PLATFORM_API_KEY: DEMO_CREDENTIALS.apiKey,
    CHECKOUT_ROUTE_PATH: '/checkout',
    CHECKOUT_ROUTE_TOKEN: token,
    PAYMENT_PROVIDER: 'sandbox',
    DASHBOARD_USER: 'ops',
    DASHBOARD_PASSWORD: dashboardPassword,
  });
  const connector = await startConnector(config, {
    logger: pretty('connector'),
    exit: () => undefined,
  });
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
  say(`  The platform asks the connector for a checkout for service ${serviceId}...`);
  const answer = await simulator.requestCheckout(serviceId);
  say(`  connector answered ${answer.status} ${JSON.stringify(answer.body)}`);
  const checkoutUrl = await waitFor(() => simulator.checkoutUrlFor(serviceId), 15_000);
  say();
  if (checkoutUrl) {
    say(`  Open the checkout in a browser, then Pay or Decline:`);
    say(`    ${checkoutUrl}`);
  } else {
    say('  No checkout URL arrived within 15 s; the log above says why.');
  }
  say();
  say('  Ask for another checkout (services 1001-1025):');
  say(
    `    curl -X POST ${platformUrl}/__simulator/checkout-requests -H 'content-type: application/json' -d '{"service_id": 1002}'`,
  );
  say('  See what the platform received:');
  say(`    curl ${platformUrl}/__simulator/calls`);
  say('  Ctrl-C stops everything.');
  say();

  await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')]);
  await connector.shutdown.run('demo stopped');
  await simulator.stop();
  await redis?.close();
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    for (const problem of error.problems) process.stderr.write(`config error: ${problem}\n`);
    process.exit(EXIT_CONFIG);
  }
  process.stderr.write(`demo failed: ${errorMessage(error)}\n`);
  process.exit(1);
});
