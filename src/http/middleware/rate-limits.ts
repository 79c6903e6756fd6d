import type { Request, RequestHandler, Response } from 'express';
import { rateLimit, type RateLimitExceededEventHandler } from 'express-rate-limit';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import type { RateLimitConfig } from '../../config';
import { AppError, errorMessage } from '../../errors';
import { rateLimitPrefix } from '../../redis/keyspace';
import type { Logger } from '../../infra/logger';
import { scriptSha } from '../../redis/redis-scripts';

/**
 * One raw Redis command, its name and arguments. rate-limit-redis is used in its cluster form
 * (`sendCommandCluster`), which works on one server as well; its SCRIPT LOAD is keyless, so the
 * sender must load the script where the key's EVALSHA will run (src/redis/redis.ts
 * `sendRawCommand` loads it on every primary).
 */
export type SendRedisCommand = (command: string[]) => Promise<unknown>;

/** The limiters of the public endpoints; a limit set to 0 has none. */
export interface RateLimiters {
  checkout?: RequestHandler;
  webhooks?: RequestHandler;
  pages?: RequestHandler;
  dashboard?: RequestHandler;
  admin?: RequestHandler;
}

/**
 * rate-limit-redis loads its Lua scripts when it is built, and keeps the promise; were Redis away
 * then, that promise would reject with no one awaiting it. A failed SCRIPT LOAD answers the SHA1
 * it would have had: the first EVALSHA then meets NOSCRIPT, and the store loads the script again.
 */
function storeCommand(send: SendRedisCommand) {
  return async (details: { command: string[] }): Promise<RedisReply> => {
    const [command = '', ...rest] = details.command;
    try {
      return (await send(details.command)) as RedisReply;
    } catch (error) {
      if (command.toUpperCase() === 'SCRIPT' && rest[0]?.toUpperCase() === 'LOAD') {
        return scriptSha(rest[1] ?? '');
      }
      throw error;
    }
  };
}

const COUNTED_AS_FAILURE = 'countedAsFailure';

/**
 * Marks a webhook call answered 2xx that the webhook limiter is to count as a failure: one that
 * proved no origin and acted on nothing (src/checkout/handle-provider-webhook.ts
 * `answeredForNothing`). Before the answer is sent: the limiter looks when it is.
 */
export function countAsFailure(res: Response): void {
  res.locals[COUNTED_AS_FAILURE] = true;
}

function countedAsFailure(res: Response): boolean {
  return res.statusCode >= 400 || res.locals[COUNTED_AS_FAILURE] === true;
}

function refusal(name: string, limit: number, windowMs: number): RateLimitExceededEventHandler {
  return (_req, res, next) => {
    const retryAfter = res.getHeader('retry-after');
    next(
      new AppError(
        'RATE_LIMITED',
        `Too many requests from this address; try again in ${String(retryAfter ?? windowMs / 1000)} s.`,
        { details: [{ field: 'limit', problem: `${name}: ${limit} per ${windowMs / 1000} s` }] },
      ),
    );
  };
}

/** Requests that carry valid credentials: the limiters never count (nor slow) them. */
export interface TrustedRequests {
  /** The platform's token on the checkout route. */
  checkout: (req: Request) => boolean;
  dashboard?: (req: Request) => boolean;
  admin?: (req: Request) => boolean;
}

/**
 * Per client address, counted in Redis so every api process shares the counts, answered with
 * 429 RATE_LIMITED, `Retry-After` and the IETF `RateLimit`/`RateLimit-Policy` headers. The
 * address is the TCP peer's unless TRUST_PROXY_HOPS says proxies stand in front (app.ts sets
 * Express's `trust proxy` from it).
 *
 * The checkout route and the dashboard count only requests without valid credentials (a wrong
 * token or password, none at all on the route): the platform and the operator are never counted,
 * however many calls they make at once, and cost no Redis round trip. Webhooks cannot be judged
 * before their body is verified, so there every call counts while in flight and a delivered one
 * is taken back when answered (express-rate-limit's skipSuccessfulRequests), unless its answer
 * says it counts (`countAsFailure`: an unsigned call that acted on nothing). Customer pages count
 * every request. Redis failing lets requests through (the routes then answer 503 if they need it).
 */
export function rateLimiters(
  settings: RateLimitConfig,
  redis: { send: SendRedisCommand; prefix: string },
  logger: Logger,
  trusted: TrustedRequests,
): RateLimiters {
  const { windowMs } = settings;
  const at = { prefix: redis.prefix, windowMs, send: storeCommand(redis.send), logger };
  const dashboardTrusted = trusted.dashboard ?? (() => false);
  return {
    checkout: limiter(at, 'checkout', settings.checkoutFailures, { skip: trusted.checkout }),
    webhooks: limiter(at, 'webhooks', settings.webhookFailures, { failuresOnly: true }),
    pages: limiter(at, 'pages', settings.pages),
    // A browser asks without credentials first, for the page and each asset: only a wrong
    // password counts, not the challenge.
    dashboard: limiter(at, 'dashboard', settings.dashboardFailures, {
      skip: (req) => req.headers.authorization === undefined || dashboardTrusted(req),
    }),
    // Machines call the admin API: every call without the right token counts.
    admin: limiter(at, 'admin', settings.adminFailures, { skip: trusted.admin ?? (() => false) }),
  };
}

function limiter(
  at: { prefix: string; windowMs: number; send: ReturnType<typeof storeCommand>; logger: Logger },
  name: string,
  limit: number,
  counting: { failuresOnly?: boolean; skip?: (req: Request) => boolean } = {},
): RequestHandler | undefined {
  if (limit === 0) return undefined;
  const warn = (error: unknown, message?: string) =>
    at.logger.warn('rate limiter', {
      limiter: name,
      errMessage: message,
      cause: errorMessage(error),
    });
  return rateLimit({
    windowMs: at.windowMs,
    limit,
    identifier: name,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    skipSuccessfulRequests: counting.failuresOnly ?? false,
    requestWasSuccessful: (_req, res) => !countedAsFailure(res),
    ...(counting.skip ? { skip: counting.skip } : {}),
    passOnStoreError: true,
    store: new RedisStore({
      sendCommandCluster: at.send,
      prefix: rateLimitPrefix(at.prefix, name),
    }),
    // Its errors (the store failing: requests pass) and warnings alike are warnings here.
    logger: { error: warn, warn },
    handler: refusal(name, limit, at.windowMs),
  });
}
