import { z } from 'zod';
import { expiryMinutesVariable } from '../payments/payment-options';
import { httpUrl, isSimulated } from '../payments/provider-fields';
import { parseApiOrigins } from '../payments/provider-hosts';
import { commonShape } from './common-config';
import { connectIssues, connectShape } from './connect-config';
import { envShopApiIssues, envShopIssues, envShopShape } from './env-shop-config';
import { checkoutRetentionDays, nonNegativeInt, port, positiveInt, secret } from './env-values';
import { platformHostShape } from './platform-config';
import { redisShape } from './redis-config';
import { registryShape } from './registry-config';
import { syncIssues, syncShape } from './sync-config';

const providerApiOrigins = z
  .string()
  .superRefine((text, ctx) => {
    for (const problem of parseApiOrigins(text).problems)
      ctx.addIssue({ code: 'custom', message: problem });
  })
  .transform((text) => parseApiOrigins(text).origins)
  .optional()
  .describe(
    "Origins (`https://host:port`, comma-separated, no path) a provider may be sent to besides its official hosts: for the env shop's `*_API_URL` below and a shop document's `provider.apiUrl`; compared exactly (scheme, host, port), anything else is refused. Empty: only the providers' official hosts.",
  );

/** Every variable of the server process; the CLI's loaders take their part of it. */
export const serverShape = {
  ...commonShape,
  ...platformHostShape,
  ...envShopShape,
  ...registryShape,
  ROLE: z
    .enum(['all', 'api', 'worker'])
    .prefault('all')
    .describe(
      '`all` (HTTP and workers), `api` (HTTP only) or `worker` (workers, plus health and metrics).',
    ),
  PORT: port.prefault('3000').describe('HTTP port of the connector.'),
  PUBLIC_URL: httpUrl
    .optional()
    .describe(
      'Base URL customers and payment providers reach the connector at (default `http://localhost:$PORT`). With `NODE_ENV=production` it must be `https` (only a loopback address may be `http`).',
    ),
  PROVIDER_API_ORIGINS: providerApiOrigins,
  ...connectShape,
  ...redisShape,
  SANDBOX_IN_PRODUCTION: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .optional()
    .describe(
      'The sandbox takes no money, so with `NODE_ENV=production` it refuses to start (exit 78) unless this is `true` (unset: `false`): only for a deployment against a staging platform. Every page then says so and the start logs a warning.',
    ),
  CHECKOUT_EXPIRY_MINUTES: expiryMinutesVariable
    .prefault(60)
    .describe(
      'Minutes a checkout stays payable (5 to 43200, i.e. 30 days: a boleto needs days); then it expires and the platform gets a cancel. Every shop\'s unless it chose its own; shortened to what its provider accepts (Stripe: 1440; docs/payment-providers.md "Payment options").',
    ),
  CHECKOUT_RETENTION_DAYS: checkoutRetentionDays,
  CURRENCY: z
    .string()
    .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as BRL')
    .prefault('BRL')
    .describe('ISO 4217 currency of the charges.'),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .url('must be a URL such as http://otel-collector:4318')
    .optional()
    .describe(
      'OpenTelemetry: the OTLP endpoint traces go to (a collector, Jaeger, Tempo, Honeycomb), such as `http://otel-collector:4318`; unset, nothing is traced. The other standard variables (`OTEL_EXPORTER_OTLP_PROTOCOL`, `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_TRACES_SAMPLER`, `OTEL_RESOURCE_ATTRIBUTES`...) are read by the SDK itself: docs/operating.md "Following one payment".',
    ),
  OTEL_SERVICE_NAME: z
    .string()
    .min(1)
    .optional()
    .describe('OpenTelemetry: the service name of the traces (unset: `checkout-connector`).'),
  DASHBOARD_USER: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Basic auth user of the `/admin/queues` dashboard; the dashboard is off while it and `DASHBOARD_PASSWORD` are unset (set both or neither).',
    ),
  DASHBOARD_PASSWORD: secret(
    z
      .string()
      .min(12, 'must be at least 12 characters')
      .optional()
      .describe('Basic auth password of the `/admin/queues` dashboard, at least 12 characters.'),
  ),
  NOTIFY_MAX_ATTEMPTS: positiveInt
    .prefault('40')
    .describe('Attempts of one finish/cancel delivery before it lands in the failed set.'),
  NOTIFY_BACKOFF_MS: positiveInt
    .prefault('5000')
    .describe('Base delay of the delivery retry schedule, in milliseconds.'),
  JOB_LOCK_MS: positiveInt
    .min(
      5000,
      'must be at least 5000: a running job renews its lock every JOB_LOCK_MS / 2, and a renewal late on a busy event loop would let another worker run it a second time',
    )
    .prefault('60000')
    .describe(
      "How soon a dead worker's jobs are taken up again (ms): within `JOB_LOCK_MS` plus a stalled-job check (half of it, at most 30 s). A running job renews its lock every `JOB_LOCK_MS` / 2, however long it runs, so a slow call never loses it. At least 5000.",
    ),
  RECONCILE_INTERVAL_MS: positiveInt
    .min(100)
    .prefault('60000')
    .describe(
      'Milliseconds between reconciler passes, which heal lost webhooks, jobs and Redis writes (a checkout is first looked at half an interval after it changed, by a pass that works for at most 0.8 of one: a lost webhook heals within 2.3 intervals; docs/operating.md "Operations").',
    ),
  PIX_WATCH_DAYS: z.coerce
    .number({ error: 'must be a whole number of days' })
    .int('must be a whole number of days')
    .min(0, 'must be 0 to 365 (days)')
    .max(365, 'must be 0 to 365 (days)')
    .prefault(92)
    .describe(
      'Days a checkout paid by Pix is read again at its provider after the payment (0 to 365; 0 turns the watch off): once a day for 14 days, then once a week, so a return through the Central Bank\'s MED (up to 80 days to contest, 11 more to return) becomes a `med_return` incident. Keep it within `CHECKOUT_RETENTION_DAYS`: a record gone ends its watch. docs/payment-providers.md "Incidents after the outcome".',
    ),
  SHUTDOWN_TIMEOUT_MS: positiveInt
    .prefault('15000')
    .describe(
      'Milliseconds a graceful (SIGTERM/SIGINT) shutdown may take before the process exits anyway.',
    ),
  HTTP_HEADERS_TIMEOUT_MS: positiveInt
    .min(100)
    .prefault('10000')
    .describe(
      "A client has this long to send its request headers (Node's default, 60 s, lets slow clients hold connections).",
    ),
  HTTP_REQUEST_TIMEOUT_MS: positiveInt
    .min(100)
    .prefault('30000')
    .describe('A client has this long to send its whole request, body included.'),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: positiveInt
    .prefault('5000')
    .describe(
      "An idle kept-alive connection is closed after this long (keep it above your proxy's idle timeout).",
    ),
  HTTP_MAX_CONNECTIONS: positiveInt
    .prefault('1000')
    .describe('Connections served at once by one process; more are refused at once.'),
  TRUST_PROXY_HOPS: nonNegativeInt
    .max(10)
    .prefault('0')
    .describe(
      "Proxies (load balancer, ingress) in front of the connector whose `X-Forwarded-For` is trusted for the client's address. `0`: the address is the TCP peer's; a header a client sends is ignored.",
    ),
  RATE_LIMIT_WINDOW_SECONDS: positiveInt
    .max(3600)
    .prefault('60')
    .describe('The window the rate limits below count in, in seconds.'),
  RATE_LIMIT_CHECKOUT_FAILURES: nonNegativeInt
    .prefault('30')
    .describe(
      "Calls to the checkout route without the right token, per client address per window; the platform's calls never count, nor are refused. `0` turns it off.",
    ),
  RATE_LIMIT_WEBHOOK_FAILURES: nonNegativeInt
    .prefault('60')
    .describe(
      "Failed webhook calls (bad signature, unknown provider), and unsigned ones that acted on nothing (an API Pix call naming no charge of the shop's, or a Pix already handled), per address per window; a delivered event counts only while it is being answered.",
    ),
  RATE_LIMIT_PAGES: nonNegativeInt
    .prefault('300')
    .describe(
      "Requests to the customer pages (`/return`, the sandbox's page and buttons) per address per window.",
    ),
  RATE_LIMIT_DASHBOARD_FAILURES: nonNegativeInt
    .prefault('10')
    .describe('Wrong dashboard passwords per address per window; the right one is never refused.'),
  METRICS_PORT: port
    .optional()
    .describe(
      'Serve `/metrics` on this port instead of `PORT` (e.g. `9464`), on the interface `METRICS_HOST`; empty: on `PORT` (docs/security.md "Security").',
    ),
  METRICS_HOST: z
    .string()
    .min(1)
    .prefault('127.0.0.1')
    .describe(
      "The interface `METRICS_PORT` listens on (`127.0.0.1`: the host only; `0.0.0.0` for a pod's scraper).",
    ),
  WORKER_CONCURRENCY: positiveInt
    .max(200)
    .prefault('10')
    .describe(
      'Jobs each worker process runs at once, per queue (each waits mostly on the platform and the provider).',
    ),
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
    isSimulated(env.PAYMENT_PROVIDER) &&
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
  connectIssues(env, ctx);
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

export const CONFIG_VARIABLES = Object.keys(serverShape);

type ServerShape = typeof serverShape;
export type ServerVariable = keyof ServerShape;

/** The server's variables `names`, with their checks, defaults and messages. */
export function pick<K extends ServerVariable>(...names: K[]): Pick<ServerShape, K> {
  return Object.fromEntries(names.map((name) => [name, serverShape[name]])) as Pick<ServerShape, K>;
}
