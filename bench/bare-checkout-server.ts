/*
 * The baseline of the inbound benchmark: a bare node:http server doing the very same Redis work
 * as the checkout route (the connector's own requestCheckout over its own store and queues:
 * the open-for-service script, the produce job, the expiry job), with nothing around it: no
 * Express, no middleware, no logging, no metrics, no rate limit. Prints "bare listening <port>".
 */
import { createServer } from 'node:http';
import { requestCheckout } from '../src/checkout/request-checkout';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/infra/logger';
import { createRedis, waitForRedis } from '../src/redis/redis';
import { createDependencies } from '../src/main/dependencies';
import { shopOrEnv } from '../src/shop/shop-id';

const config = loadConfig(process.env);
const silent = createLogger({ level: 'error', format: 'json', secrets: [] });
const redis = createRedis(config.redis.url, 'producer', 'bare');
if (!config.envShop) throw new Error('the bare server serves the env shop: set PLATFORM_EMAIL');
const bearer = `Bearer ${config.envShop.routeToken}`;

async function main(): Promise<void> {
  // A producer connection fails a command sent before it is ready (no offline queue).
  if (!(await waitForRedis(redis, 5000))) throw new Error('no Redis at REDIS_URL');
  const built = await createDependencies(config, {
    redis,
    logger: silent,
    publicUrl: config.publicUrl,
  });
  built.registry.stop();
  const envShop = built.directory.cached(shopOrEnv(undefined));
  if (!envShop) throw new Error('no env shop: set PLATFORM_EMAIL');
  const envDeps = envShop.deps;

  const server = createServer((req, res) => {
    if (req.headers.authorization !== bearer) {
      res.writeHead(401).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const serviceId = Number(
        (JSON.parse(Buffer.concat(chunks).toString()) as { service_id: unknown }).service_id,
      );
      requestCheckout(envDeps, serviceId).then(
        (result) => {
          const body = JSON.stringify({
            service_id: serviceId,
            checkout_id: result.kind === 'accepted' ? result.checkoutId : undefined,
            status: 'accepted',
          });
          res.writeHead(202, { 'content-type': 'application/json' }).end(body);
        },
        () => res.writeHead(500).end(),
      );
    });
  });
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    const address = server.address();
    console.log(`bare listening ${typeof address === 'object' && address ? address.port : 0}`);
  });
}
void main();
process.on('SIGTERM', () => process.exit(0));
