import { z } from 'zod';
import { expiryMinutesVariable } from '../payments/payment-options';
import { httpUrl } from '../payments/provider-fields';
import { parseApiOrigins } from '../payments/provider-hosts';
import { commonShape } from './common-config';
import { envShopApiIssues, envShopIssues, envShopShape } from './env-shop-config';
import { nonNegativeInt, port, positiveInt } from './env-values';
import { platformHostShape } from './platform-config';
import { redisShape } from './redis-config';
import { registryShape } from './registry-config';
import { syncIssues, syncShape } from './sync-config';

/**
 * PROVIDER_API_ORIGINS: the origins a provider may be sent to besides its official hosts (a
 * loopback fake in tests, a proxy of the operator's), for the env shop and every shop document.
 */
const providerApiOrigins = z
  .string()
  .superRefine((text, ctx) => {
    for (const problem of parseApiOrigins(text).problems)
      ctx.addIssue({ code: 'custom', message: problem });
  })
  .transform((text) => parseApiOrigins(text).origins)
  .optional();

/** Every variable of the server process; the CLI's loaders take their part of it. */
export const serverShape = {
  ...commonShape,
  ...platformHostShape,
  ...envShopShape,
  ...registryShape,
  ROLE: z.enum(['all', 'api', 'worker']),
  PORT: port,
  PUBLIC_URL: httpUrl.optional(),
  PROVIDER_API_ORIGINS: providerApiOrigins,
  ...redisShape,
  SANDBOX_IN_PRODUCTION: z.enum(['true', 'false'], { error: 'must be true or false' }).optional(),
  CHECKOUT_EXPIRY_MINUTES: expiryMinutesVariable,
  CURRENCY: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as BRL'),
  DASHBOARD_USER: z.string().min(1).optional(),
  DASHBOARD_PASSWORD: z.string().min(12, 'must be at least 12 characters').optional(),
  NOTIFY_MAX_ATTEMPTS: positiveInt,
  NOTIFY_BACKOFF_MS: positiveInt,
  // BullMQ renews a running job's lock every JOB_LOCK_MS / 2, so the lock bounds no job's run
  // time: it says how soon a dead worker's jobs are taken up again (within JOB_LOCK_MS plus a
  // stalled-job check). Below 5 s a renewal could come late on a busy event loop, and another
  // worker would run the job a second time.
  JOB_LOCK_MS: positiveInt.min(
    5000,
    'must be at least 5000: a running job renews its lock every JOB_LOCK_MS / 2, and a renewal late on a busy event loop would let another worker run it a second time',
  ),
  RECONCILE_INTERVAL_MS: positiveInt.min(100),
  SHUTDOWN_TIMEOUT_MS: positiveInt,
  HTTP_HEADERS_TIMEOUT_MS: positiveInt.min(100),
  HTTP_REQUEST_TIMEOUT_MS: positiveInt.min(100),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: positiveInt,
  HTTP_MAX_CONNECTIONS: positiveInt,
  TRUST_PROXY_HOPS: nonNegativeInt.max(10),
  RATE_LIMIT_WINDOW_SECONDS: positiveInt.max(3600),
  RATE_LIMIT_CHECKOUT_FAILURES: nonNegativeInt,
  RATE_LIMIT_WEBHOOK_FAILURES: nonNegativeInt,
  RATE_LIMIT_PAGES: nonNegativeInt,
  RATE_LIMIT_DASHBOARD_FAILURES: nonNegativeInt,
  METRICS_PORT: port.optional(),
  METRICS_HOST: z.string().min(1),
  WORKER_CONCURRENCY: positiveInt.max(200),
  ...syncShape,
};

/** https, or http on a loopback address (a local trial, a test). */
function isSafePublicUrl(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  return (
    protocol === 'https:' ||
    hostname === 'localhost' ||
    hostname === '[::1]' ||
    /^127(\.\d{1,3}){3}$/.test(hostname)
  );
}

export const serverSchema = z.object(serverShape).superRefine((env, ctx) => {
  if (
    env.NODE_ENV === 'production' &&
    env.PLATFORM_EMAIL !== undefined &&
    env.PAYMENT_PROVIDER === 'sandbox' &&
    env.SANDBOX_IN_PRODUCTION !== 'true'
  ) {
    ctx.addIssue({
      code: 'custom',
      path: ['PAYMENT_PROVIDER'],
      message:
        'the sandbox takes no real money and refuses NODE_ENV=production; choose a real provider, or set SANDBOX_IN_PRODUCTION=true on purpose for a staging platform',
    });
  }
  if (env.NODE_ENV === 'production' && env.PUBLIC_URL && !isSafePublicUrl(env.PUBLIC_URL)) {
    ctx.addIssue({
      code: 'custom',
      path: ['PUBLIC_URL'],
      message:
        'must be https in production (customers and providers reach it over the internet); only a loopback address may be http',
    });
  }
  envShopIssues(env, env.CHECKOUT_EXPIRY_MINUTES, ctx);
  envShopApiIssues(env, ctx);
  syncIssues(env, ctx);
  if ((env.DASHBOARD_USER === undefined) !== (env.DASHBOARD_PASSWORD === undefined)) {
    ctx.addIssue({
      code: 'custom',
      path: ['DASHBOARD_PASSWORD'],
      message: 'DASHBOARD_USER and DASHBOARD_PASSWORD go together: set both or neither',
    });
  }
});

export type ServerEnv = z.output<typeof serverSchema>;

/** Every variable the connector reads, for the .env.example sync test and the docs. */
export const CONFIG_VARIABLES = Object.keys(serverShape);
