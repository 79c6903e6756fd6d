#!/usr/bin/env node
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { ConfigError, loadConfig } from '../config';
import { createLogger } from '../infra/logger';
import { startPrivateRedis, type PrivateRedis } from '../infra/private-redis';
import { DEMO_CREDENTIALS, PlatformSimulator } from '../platform/simulator/platform-simulator';
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
      `could not start redis-server (${error instanceof Error ? error.message : String(error)}); install it (apt-get install redis-server) or set REDIS_URL`,
    );
  }
}

/**
 * The whole product on one machine, with no outside account: a private Redis, the platform
 * simulator and the connector, wired together.
 */
async function main(): Promise<void> {
  const { url: redisUrl, redis } = await redisForDemo();
  const token = randomBytes(18).toString('base64url');
  const port = Number(process.env.PORT ?? 3000);
  const simulator = new PlatformSimulator({
    connector: { checkoutUrl: `http://127.0.0.1:${port}/checkout`, token },
    logger: createLogger({
      level: 'info',
      format: 'pretty',
      secrets: [token],
      component: 'simulator',
    }),
  });
  const platformUrl = await simulator.start();
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'development',
    LOG_FORMAT: process.env.LOG_FORMAT ?? 'pretty',
    PORT: String(port),
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: 'demo',
    PLATFORM_BASE_URL: platformUrl,
    PLATFORM_EMAIL: DEMO_CREDENTIALS.email,
    PLATFORM_PASSWORD: DEMO_CREDENTIALS.password,
    PLATFORM_API_KEY: DEMO_CREDENTIALS.apiKey,
    CHECKOUT_ROUTE_PATH: '/checkout',
    CHECKOUT_ROUTE_TOKEN: token,
    PAYMENT_PROVIDER: 'sandbox',
  });
  const connector = await startConnector(config, { exit: () => undefined });

  say();
  say(`  platform simulator  ${platformUrl}  (${simulator.state.serviceCount} seeded services)`);
  say(`  connector           http://localhost:${port}`);
  say(`  redis               ${redisUrl}${redis ? ' (private, removed on exit)' : ''}`);
  say(`  health / metrics    http://localhost:${port}/healthz  http://localhost:${port}/metrics`);
  say();
  say('  Try the platform client against the simulator in another terminal:');
  say(
    `    PLATFORM_BASE_URL=${platformUrl} PLATFORM_EMAIL=${DEMO_CREDENTIALS.email} PLATFORM_PASSWORD=${DEMO_CREDENTIALS.password} PLATFORM_API_KEY=${DEMO_CREDENTIALS.apiKey} npx connector services list`,
  );
  say();
  say('  Coming next: the checkout flow (a checkout URL to open in a browser) and the dashboard.');
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
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
