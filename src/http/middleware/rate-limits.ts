import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { rateLimit } from 'express-rate-limit';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import type { RateLimitConfig } from '../../config';
import { AppError } from '../../errors';
import type { Logger } from '../../infra/logger';

/** One raw Redis command, as ioredis's `call` sends it. */
export type SendRedisCommand = (command: string, ...args: string[]) => Promise<unknown>;

/** The limiters of the public endpoints; a limit set to 0 has none. */
export interface RateLimiters {
  checkout?: RequestHandler;
  webhooks?: RequestHandler;
  pages?: RequestHandler;
  dashboard?: RequestHandler;
}

/**
 * rate-limit-redis loads its Lua scripts when it is built, and keeps the promise; were Redis away
 * then, that promise would reject with no one awaiting it. A failed SCRIPT LOAD answers the SHA1
 * it would have had: the first EVALSHA then meets NOSCRIPT, and the store loads the script again.
 */
function storeCommand(send: SendRedisCommand) {
  return async (...args: string[]): Promise<RedisReply> => {
    const [command = '', ...rest] = args;
    try {
      return (await send(command, ...rest)) as RedisReply;
    } catch (error) {
      if (command.toUpperCase() === 'SCRIPT' && rest[0]?.toUpperCase() === 'LOAD') {
        return createHash('sha1')
          .update(rest[1] ?? '')
          .digest('hex');
      }
      throw error;
    }
  };
}

/**
 * Per client address, counted in Redis so every api process shares the counts, answered with
 * 429 RATE_LIMITED, `Retry-After` and the IETF `RateLimit`/`RateLimit-Policy` headers. The
 * address is the TCP peer's unless TRUST_PROXY_HOPS says proxies stand in front (app.ts sets
 * Express's `trust proxy` from it). Where the limit counts failures only, the platform's and the
 * providers' accepted calls never count, so normal traffic is never throttled; Redis failing
 * lets requests through (the routes themselves then answer 503 if they need Redis).
 */
export function rateLimiters(
  settings: RateLimitConfig,
  redis: { send: SendRedisCommand; prefix: string },
  logger: Logger,
): RateLimiters {
  const sendCommand = storeCommand(redis.send);
  const limiter = (name: string, limit: number, failuresOnly: boolean, extra = {}) => {
    if (limit === 0) return undefined;
    return rateLimit({
      ...extra,
      windowMs: settings.windowMs,
      limit,
      identifier: name,
      standardHeaders: 'draft-8',
      legacyHeaders: false,
      skipSuccessfulRequests: failuresOnly,
      passOnStoreError: true,
      store: new RedisStore({ sendCommand, prefix: `${redis.prefix}:rl:${name}:` }),
      logger: {
        error: (error: unknown, message?: string) =>
          logger.warn('rate limiter', {
            limiter: name,
            errMessage: message,
            cause: error instanceof Error ? error.message : String(error),
          }),
        warn: (error: unknown, message?: string) =>
          logger.warn('rate limiter', { limiter: name, errMessage: message, cause: String(error) }),
      },
      handler: (_req, res, next) => {
        const retryAfter = res.getHeader('retry-after');
        next(
          new AppError(
            'RATE_LIMITED',
            `Too many requests from this address; try again in ${String(retryAfter ?? settings.windowMs / 1000)} s.`,
            {
              details: [
                { field: 'limit', problem: `${name}: ${limit} per ${settings.windowMs / 1000} s` },
              ],
            },
          ),
        );
      },
    });
  };
  return {
    checkout: limiter('checkout', settings.checkoutFailures, true),
    webhooks: limiter('webhooks', settings.webhookFailures, true),
    pages: limiter('pages', settings.pages, false),
    // A browser asks without credentials first, for the page and each asset: only a wrong
    // password counts, not the challenge.
    dashboard: limiter('dashboard', settings.dashboardFailures, true, {
      skip: (req: Request) => req.headers.authorization === undefined,
      requestWasSuccessful: (_req: Request, res: Response) => res.statusCode !== 401,
    }),
  };
}
