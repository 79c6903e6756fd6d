import type { Server } from 'node:http';
import { once } from 'node:events';
import type { Config } from '../config';
import { createApp } from '../http/app';
import { createLogger, type Logger } from '../infra/logger';
import { createMetrics } from '../infra/metrics';
import { closeRedis, createRedis, pingRedis, waitForRedis } from '../infra/redis';
import { closeHttpServer, Shutdown } from '../infra/shutdown';

export interface RunningConnector {
  server: Server;
  /** Where the HTTP API listens, e.g. http://127.0.0.1:3000. */
  url: string;
  logger: Logger;
  shutdown: Shutdown;
}

/**
 * The composition root: builds every dependency from the config, starts what the ROLE asks
 * for, and registers the shutdown steps in order (HTTP, then workers, then Redis).
 */
export async function startConnector(
  config: Config,
  options: { logger?: Logger; host?: string; exit?: (code: number) => void } = {},
): Promise<RunningConnector> {
  const logger =
    options.logger ??
    createLogger({ ...config.log, secrets: config.secrets, component: config.role });
  const metrics = createMetrics();
  const redis = createRedis(config.redis.url, 'producer', config.redis.prefix);
  redis.on('error', (error) =>
    logger.warn('redis connection error', { errMessage: error.message }),
  );
  if (!(await waitForRedis(redis, 5000))) {
    logger.warn('redis not reachable yet; /readyz answers 503 until it is', { timeoutMs: 5000 });
  }

  const app = createApp({ logger, metrics, isReady: () => pingRedis(redis) });
  const server = app.listen(config.port, options.host ?? '0.0.0.0');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;

  const shutdown = new Shutdown(logger, config.shutdownTimeoutMs, options.exit);
  shutdown.add('http', () => closeHttpServer(server, config.shutdownTimeoutMs - 2000));
  shutdown.add('redis', () => closeRedis(redis));

  logger.info('connector started', { role: config.role, port, publicUrl: config.publicUrl });
  return { server, url: `http://127.0.0.1:${port}`, logger, shutdown };
}
