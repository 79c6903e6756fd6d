/*
 * What one checkout costs the connector with each provider's real adapter against its loopback
 * fake, side by side in one run: the sandbox (the baseline: Redis only, no outside call), Stripe,
 * Mercado Pago, Asaas, and the API Pix (HTTPS with mutual TLS, the shop's client certificate, an
 * OAuth2 token held per shop). Each adapter is built directly, as the connector builds one per
 * shop, on a Redis of its own (startTestRedis: REDIS_URL's when set, keys deleted after).
 *
 *   1st:            the provider's first createCheckout in the process: its code's first run
 *                   (module loading, JIT) and first connection; one sample.
 *   cold:           after the warm-up, the first createCheckout of another adapter built new,
 *                   as for a shop added: Stripe's SDK and axios (the others) share kept-alive
 *                   agents across adapters, so it reuses a connection; Pix's agent is the
 *                   adapter's own (it carries the shop's client certificate), so it pays the
 *                   mTLS handshake and the token. One sample.
 *   createCheckout: what the produce job calls; BENCH_CALLS (200) sequential calls per round,
 *                   each a new checkout: median and p95, ms.
 *   getStatus:      the read the reconciler and the webhooks make, of each of those checkouts.
 *   throughput:     2 x BENCH_CALLS createCheckout with BENCH_CONCURRENCY (8) in flight, per s.
 *   CPU ms:         this process's CPU per sequential createCheckout (the fake's side included).
 *   conns:          client connections opened during the measured calls, of 4 x BENCH_CALLS per
 *                   round: a kept-alive adapter opens one per call in flight, and again only
 *                   after its fake closed them idle (Node's 5 s keepAliveTimeout: about as long
 *                   as the other providers' rounds in between), never one per call.
 * BENCH_ROUNDS (3) rounds after a warm-up, the providers' order rotated each round; latencies are
 * pooled over the rounds, throughput is the rounds' median. "x sandbox" divides by the sandbox's:
 * what a provider adds to a checkout over none (for throughput, below 1 is slower).
 *
 * Then Pix's handshake, BENCH_FRESH (50) calls each: the shop's adapter (its kept-alive agent,
 * its token held) against an adapter built fresh for every call (a new TLS handshake with the
 * client certificate, and a new token, every call), and the mTLS handshake alone, new and resumed
 * (an agent's TLS session cache resumes a session when it must connect again): why the agent and
 * the token are the shop's, made once.
 *
 * The fakes run in this process, on loopback: latencies and CPU include their side (for Pix,
 * both ends of the handshake) and no network. Read the ratios as what an adapter and its
 * protocol cost beside the baseline, not as a provider's real latency. No targets: on a shared
 * machine the numbers move; compare within one run.
 * Run: npm run bench:providers   (BENCH_CALLS=200 BENCH_CONCURRENCY=8 BENCH_ROUNDS=3
 * BENCH_FRESH=50)
 */
import { randomBytes } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { connect as tlsConnect } from 'node:tls';
import { newCheckoutId } from '../src/checkout/checkout-record';
import { createdCheckoutKey } from '../src/redis/keyspace';
import { pixChargeKey } from '../src/payments/pix/pix-keys';
import { sandboxKey } from '../src/payments/sandbox/sandbox-keys';
import { closeRedis, createRedis, waitForRedis, type RedisCommands } from '../src/redis/redis';
import { AsaasProvider } from '../src/payments/asaas/asaas-provider';
import { redisCreatedCheckouts } from '../src/payments/created-checkouts';
import { MercadoPagoProvider } from '../src/payments/mercadopago/mercadopago-provider';
import type { CheckoutRequest, PaymentProvider } from '../src/payments/payment-provider';
import { certificateFromPem } from '../src/payments/pix/pix-certificate';
import { redisPixCharges } from '../src/payments/pix/pix-charges';
import { PIX_PROFILES } from '../src/payments/pix/pix-profiles';
import { PixProvider } from '../src/payments/pix/pix-provider';
import { SandboxProvider } from '../src/payments/sandbox/sandbox-provider';
import { StripeProvider } from '../src/payments/stripe/stripe-provider';
import { FakeAsaas } from '../test/support/fake-asaas';
import { FakeMercadoPago } from '../test/support/fake-mercadopago';
import { FakePix } from '../test/support/fake-pix';
import { FakeStripe } from '../test/support/fake-stripe';
import { makePixCertificates, type PixCertificates } from '../test/support/pix-certificates';
import { startTestRedis } from '../test/support/redis-server';
import { median, percentile, safeRatio, showRatio } from './bench-support';

const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const FRESH = Number(process.env.BENCH_FRESH ?? 50);
const WARMUP = 20;
const SHOP = 'default';

/** Client connections (TCP, TLS) this process opens: Node publishes each on this channel. */
let connections = 0;
const countConnection = (): void => {
  connections += 1;
};

/**
 * One provider against its fake: `make` builds a new adapter of the shop, as the connector builds
 * one per shop; `provider` is the one measured; `keysOf`, the Redis keys a checkout leaves.
 */
interface Subject {
  name: string;
  make(): PaymentProvider;
  provider: PaymentProvider;
  keysOf(checkoutId: string): string[];
  close(): Promise<void>;
}

/** The Pix subject, with what the handshake comparison needs. */
interface PixSubject extends Subject {
  fake: FakePix;
  certs: PixCertificates;
  make(): PixProvider;
}

/** A subject measured with its first adapter made. */
function madeOnce(parts: Omit<Subject, 'provider'>): Subject {
  return { ...parts, provider: parts.make() };
}

const request = (checkoutId: string): CheckoutRequest => ({
  checkoutId,
  serviceId: 1001,
  amount: { amountMinor: 53_035, currency: 'BRL' },
  lines: [{ label: 'Corte', amountMinor: 53_035 }],
  description: 'Pedido 1001',
  returnUrl: `http://127.0.0.1:9/return/x?checkout_id=${checkoutId}`,
  cancelUrl: `http://127.0.0.1:9/return/x?checkout_id=${checkoutId}&cancelled=1`,
  createdAt: new Date(),
  expiresAt: new Date(Date.now() + 3_600_000),
});

function sandboxSubject(redis: RedisCommands, prefix: string): Subject {
  return madeOnce({
    name: 'sandbox',
    make: () => new SandboxProvider(redis, { prefix, shop: SHOP, publicUrl: 'http://127.0.0.1:9' }),
    keysOf: (id) => [sandboxKey(prefix, SHOP, id)],
    close: async () => {},
  });
}

async function stripeSubject(): Promise<Subject> {
  const fake = new FakeStripe();
  await fake.start();
  return madeOnce({
    name: 'stripe',
    make: () =>
      new StripeProvider({
        secretKey: fake.secretKey,
        webhookSecret: fake.webhookSecret,
        apiUrl: fake.url,
      }),
    keysOf: () => [],
    close: () => fake.stop(),
  });
}

async function mercadoPagoSubject(): Promise<Subject> {
  const fake = new FakeMercadoPago();
  await fake.start();
  return madeOnce({
    name: 'mercadopago',
    make: () =>
      new MercadoPagoProvider({
        accessToken: fake.accessToken,
        webhookSecret: fake.webhookSecret,
        apiUrl: fake.url,
        notificationUrl: 'http://127.0.0.1:9/webhooks/mercadopago',
      }),
    keysOf: () => [],
    close: () => fake.stop(),
  });
}

async function asaasSubject(redis: RedisCommands, prefix: string): Promise<Subject> {
  const fake = new FakeAsaas();
  await fake.start();
  return madeOnce({
    name: 'asaas',
    make: () =>
      new AsaasProvider({
        apiKey: fake.apiKey,
        webhookToken: fake.webhookToken,
        apiUrl: `${fake.url}/v3`,
        created: redisCreatedCheckouts(redis, prefix, SHOP, 'asaas'),
      }),
    keysOf: (id) => [createdCheckoutKey(prefix, SHOP, 'asaas', id)],
    close: () => fake.stop(),
  });
}

async function pixSubject(redis: RedisCommands, prefix: string): Promise<PixSubject> {
  const certs = await makePixCertificates();
  const fake = new FakePix({ certs });
  try {
    await fake.start();
  } catch (error) {
    await certs.remove();
    throw error;
  }
  const charges = redisPixCharges(redis, prefix, SHOP);
  const certificate = certificateFromPem(certs.clientPem);
  // As the registry builds a shop's: one adapter, one agent, one token, for all its calls.
  const make = (): PixProvider =>
    new PixProvider({
      profile: PIX_PROFILES.efi,
      endpoints: { api: fake.apiUrl, token: `${fake.url}/oauth/token` },
      clientId: fake.clientId,
      clientSecret: fake.clientSecret,
      certificate,
      pixKey: fake.pixKey,
      refundLatePix: true,
      webhookUrl: 'http://127.0.0.1:9/webhooks/pix/default',
      pageUrl: (checkoutId) => `http://127.0.0.1:9/pix/${checkoutId}`,
      charges,
    });
  return {
    name: 'pix',
    make,
    provider: make(),
    fake,
    certs,
    keysOf: (id) => [pixChargeKey(prefix, SHOP, id)],
    close: async () => {
      await fake.stop();
      await certs.remove();
    },
  };
}

/** Milliseconds `fn` takes. */
async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** CPU milliseconds (user + system) this process spent in `fn`, and `fn`'s own result. */
async function withCpu<T>(fn: () => Promise<T>): Promise<{ cpuMs: number; result: T }> {
  const before = process.cpuUsage();
  const result = await fn();
  const used = process.cpuUsage(before);
  return { cpuMs: (used.user + used.system) / 1000, result };
}

interface Stats {
  firstMs: number;
  coldMs: number;
  create: number[];
  status: number[];
  throughput: number[];
  cpuPerCreate: number[];
  connections: number;
  made: string[];
}

/** A checkout, created, with the reference its reads need. */
async function create(
  subject: Subject,
  stats: Stats,
  provider = subject.provider,
): Promise<{ checkoutId: string; providerRef: string }> {
  const checkoutId = newCheckoutId();
  stats.made.push(checkoutId);
  const { providerRef } = await provider.createCheckout(request(checkoutId));
  return { checkoutId, providerRef };
}

/** One round of one provider: sequential creates, their reads, then creates CONCURRENCY at once. */
async function round(subject: Subject, stats: Stats, calls: number, record: boolean) {
  const before = connections;
  const made: Array<{ checkoutId: string; providerRef: string }> = [];
  const { cpuMs } = await withCpu(async () => {
    for (let i = 0; i < calls; i += 1) {
      let created: { checkoutId: string; providerRef: string } | undefined;
      const ms = await timed(async () => {
        created = await create(subject, stats);
      });
      if (created) made.push(created);
      if (record) stats.create.push(ms);
    }
  });
  for (const ref of made) {
    const ms = await timed(() => subject.provider.getStatus(ref));
    if (record) stats.status.push(ms);
  }
  const total = 2 * calls;
  let next = 0;
  const ms = await timed(() =>
    Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < total) {
          next += 1;
          await create(subject, stats);
        }
      }),
    ),
  );
  if (!record) return;
  stats.cpuPerCreate.push(cpuMs / calls);
  stats.throughput.push(total / (ms / 1000));
  stats.connections += connections - before;
}

interface ModeRun {
  label: string;
  latencies: number[];
  cpuPerCall: number;
  connectionsPerCall: number;
  tokensPerCall: number;
}

/** `calls` sequential runs of `call`, with the connections and tokens they took. */
async function mode(
  label: string,
  pix: PixSubject,
  calls: number,
  call: () => Promise<unknown>,
): Promise<ModeRun> {
  const latencies: number[] = [];
  const conns = connections;
  const tokens = pix.fake.tokenRequests.length;
  const { cpuMs } = await withCpu(async () => {
    for (let i = 0; i < calls; i += 1) latencies.push(await timed(call));
  });
  return {
    label,
    latencies,
    cpuPerCall: cpuMs / calls,
    connectionsPerCall: (connections - conns) / calls,
    tokensPerCall: (pix.fake.tokenRequests.length - tokens) / calls,
  };
}

/**
 * The mTLS handshake alone: connects with the shop's certificate and closes once the handshake is
 * done; with `session`, resuming that TLS session of an earlier connection (as an agent's session
 * cache does). `keep`: closes only once the server gave its session (TLS 1.3 sends its ticket
 * just after the handshake), and resolves with it.
 */
function handshake(
  pix: PixSubject,
  options: { session?: Buffer; keep?: boolean } = {},
): Promise<{ session?: Buffer; reused: boolean }> {
  const { port } = new URL(pix.fake.url);
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({
      host: '127.0.0.1',
      port: Number(port),
      cert: pix.certs.clientCertPem,
      key: pix.certs.clientKeyPem,
      ...(options.session ? { session: options.session } : {}),
    });
    if (options.keep) {
      socket.once('session', (given: Buffer) => {
        socket.destroy();
        resolve({ session: given, reused: socket.isSessionReused() });
      });
    } else {
      socket.once('secureConnect', () => {
        const reused = socket.isSessionReused();
        socket.destroy();
        resolve({ reused });
      });
    }
    socket.once('error', reject);
    socket.once('close', () => resolve({ reused: false }));
  });
}

/** The shop's adapter against one built fresh per call, and the handshake alone. */
async function pixHandshakes(pix: PixSubject, made: string[]): Promise<ModeRun[]> {
  const kept = pix.provider;
  const runs: ModeRun[] = [];
  let read = 0;
  const checkout = () => {
    const checkoutId = newCheckoutId();
    made.push(checkoutId);
    return request(checkoutId);
  };
  // Reads of charges that exist: the first FRESH made by the kept adapter here.
  const refs: Array<{ checkoutId: string; providerRef: string }> = [];
  runs.push(
    await mode(
      'createCheckout, the shop’s adapter (kept-alive agent, token held)',
      pix,
      FRESH,
      async () => {
        const wanted = checkout();
        const created = await kept.createCheckout(wanted);
        refs.push({ checkoutId: wanted.checkoutId, providerRef: created.providerRef });
      },
    ),
  );
  runs.push(
    await mode('createCheckout, an adapter built fresh per call', pix, FRESH, () =>
      pix.make().createCheckout(checkout()),
    ),
  );
  runs.push(
    await mode('getStatus, the shop’s adapter', pix, FRESH, () =>
      kept.getStatus(refs[read++ % refs.length] ?? { checkoutId: '', providerRef: '' }),
    ),
  );
  runs.push(
    await mode('getStatus, an adapter built fresh per call', pix, FRESH, () =>
      pix.make().getStatus(refs[read++ % refs.length] ?? { checkoutId: '', providerRef: '' }),
    ),
  );
  runs.push(
    await mode('mTLS handshake alone, a new TLS session', pix, FRESH, () => handshake(pix)),
  );
  const { session } = await handshake(pix, { keep: true });
  let reused = 0;
  const resumed = await mode('mTLS handshake alone, resumed', pix, FRESH, async () => {
    if ((await handshake(pix, { session })).reused) reused += 1;
  });
  resumed.label = `${resumed.label} (${reused} of ${FRESH} resumed)`;
  runs.push(resumed);
  return runs;
}

const fmt = (n: number, digits = 1): string => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

async function main(): Promise<void> {
  const began = performance.now();
  subscribe('net.client.socket', countConnection);
  const redisServer = await startTestRedis();
  const redis = createRedis(redisServer.url, 'producer', 'bench-providers');
  const prefix = `bench-providers-${randomBytes(4).toString('hex')}`;
  const subjects: Subject[] = [];
  const stats = new Map<Subject, Stats>();
  let pixRuns: ModeRun[] = [];
  let pix: PixSubject | undefined;
  try {
    await waitForRedis(redis, 5000);
    subjects.push(sandboxSubject(redis, prefix));
    subjects.push(await stripeSubject());
    subjects.push(await mercadoPagoSubject());
    subjects.push(await asaasSubject(redis, prefix));
    pix = await pixSubject(redis, prefix);
    subjects.push(pix);

    for (const subject of subjects) {
      const entry: Stats = {
        firstMs: NaN,
        coldMs: NaN,
        create: [],
        status: [],
        throughput: [],
        cpuPerCreate: [],
        connections: 0,
        made: [],
      };
      stats.set(subject, entry);
      // The provider's first call in this process: its code's first run, its first connection.
      entry.firstMs = await timed(() => create(subject, entry));
    }
    for (const subject of subjects) {
      const entry = stats.get(subject) as Stats;
      await round(subject, entry, WARMUP, false);
      // Cold: once warm, a new adapter's first call, as a shop's first checkout once the
      // connector built its adapter (a shop added, or served again after a restart).
      const cold = subject.make();
      entry.coldMs = await timed(() => create(subject, entry, cold));
    }
    for (let r = 0; r < ROUNDS; r += 1) {
      const order = subjects.map((_, i) => subjects[(i + r) % subjects.length] as Subject);
      for (const subject of order) await round(subject, stats.get(subject) as Stats, CALLS, true);
    }
    pixRuns = await pixHandshakes(pix, (stats.get(pix) as Stats).made);

    // ---- report ----
    const base = stats.get(subjects[0] as Subject) as Stats;
    const lines = [
      `\nProvider checkouts: each adapter against its loopback fake, in this process; ${ROUNDS} rounds of ${CALLS} sequential calls, throughput at ${CONCURRENCY} in flight; ${cpus().length} cores, Node ${process.version}`,
      '',
      `  ${'provider'.padEnd(12)}${'1st'.padStart(6)}${'cold'.padStart(6)}  ${'createCheckout'.padStart(15)}  ${'getStatus'.padStart(13)}  ${'create/s'.padStart(8)}  ${'CPU ms'.padStart(6)}  ${'conns'.padStart(5)}   ${'x sandbox: create  status  create/s'}`,
      `  ${''.padEnd(12)}${'ms'.padStart(6)}${'ms'.padStart(6)}  ${'p50 / p95 ms'.padStart(15)}  ${'p50 / p95 ms'.padStart(13)}  ${''.padStart(8)}  ${'/create'.padStart(6)}`,
    ];
    for (const subject of subjects) {
      const s = stats.get(subject) as Stats;
      const ratio = (a: number, b: number) => showRatio(safeRatio(a, b)).padStart(6);
      lines.push(
        `  ${subject.name.padEnd(12)}${fmt(s.firstMs).padStart(6)}${fmt(s.coldMs).padStart(6)}  ${`${fmt(median(s.create), 2)} / ${fmt(percentile(s.create, 95), 2)}`.padStart(15)}  ${`${fmt(median(s.status), 2)} / ${fmt(percentile(s.status, 95), 2)}`.padStart(13)}  ${fmt(median(s.throughput), 0).padStart(8)}  ${fmt(median(s.cpuPerCreate), 2).padStart(6)}  ${String(s.connections).padStart(5)}   ${' '.repeat(10)}${ratio(median(s.create), median(base.create))}  ${ratio(median(s.status), median(base.status))}  ${ratio(median(s.throughput), median(base.throughput))}`,
      );
    }
    lines.push(
      `  (1st: the provider's first call in this process; cold: a new adapter's first call, for pix with its token and mTLS handshake; pix tokens asked in all: ${pix.fake.tokenRequests.length})`,
      '',
      `Pix: the shop's kept-alive adapter against one built fresh per call (a new mTLS handshake and token each), ${FRESH} sequential calls each`,
    );
    const keptCreate = median(pixRuns[0]?.latencies ?? []);
    for (const run of pixRuns) {
      lines.push(
        `  ${run.label.padEnd(70)} p50 ${fmt(median(run.latencies), 2).padStart(6)} ms  p95 ${fmt(percentile(run.latencies, 95), 2).padStart(6)} ms  CPU ${fmt(run.cpuPerCall, 2).padStart(5)} ms/call  conns/call ${fmt(run.connectionsPerCall, 2)}  tokens/call ${fmt(run.tokensPerCall, 2)}`,
      );
    }
    const freshCreate = median(pixRuns[1]?.latencies ?? []);
    lines.push(
      `  fresh / kept, createCheckout p50: ${showRatio(safeRatio(freshCreate, keptCreate))}   getStatus p50: ${showRatio(safeRatio(median(pixRuns[3]?.latencies ?? []), median(pixRuns[2]?.latencies ?? [])))}`,
      `\n(${((performance.now() - began) / 1000).toFixed(1)} s)`,
    );
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    for (const subject of subjects) await subject.close().catch(() => undefined);
    // A shared REDIS_URL keeps nothing of this run; a private one goes whole.
    if (!redisServer.private) {
      const keys = subjects.flatMap((subject) =>
        (stats.get(subject)?.made ?? []).flatMap((id) => subject.keysOf(id)),
      );
      for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
    }
    await closeRedis(redis);
    await redisServer.close();
    unsubscribe('net.client.socket', countConnection);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
