import { eventually, startHarness, type Harness, WAIT_DEADLINE_MS } from './harness';

/*
 * The worlds the checkout-flow suites share, split by concern over checkout-flow.test.ts,
 * checkout-flow.errors.test.ts and checkout-flow.security.test.ts. Call one at the top of a
 * describe: it starts a harness before the file's tests and stops it after them; read `h` inside
 * tests.
 */

/** A POST as a browser or the platform sends it: the answer's status, body (JSON if it parses) and headers. */
export async function post(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(url, { method: 'POST', body, headers, redirect: 'manual' });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // an HTML page or an empty redirect
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** A harness started before the describe's tests and stopped after them. */
function harnessHooks(options: Parameters<typeof startHarness>[0]): () => Harness {
  let h: Harness | undefined;
  beforeAll(async () => {
    h = await startHarness(options);
  });
  afterAll(() => h?.stop());
  return () => {
    if (!h) throw new Error('the harness is not started outside a test');
    return h;
  };
}

/** A checkout through the sandbox provider, from the platform's request to its page and outcome. */
export function sandboxFlowWorld() {
  const harness = harnessHooks({ start: { produceBackoffMs: 50 } });
  return {
    get h(): Harness {
      return harness();
    },
    /** The checkout URL the platform was sent for the service, once it has been. */
    checkoutUrlOf: (serviceId: number) =>
      eventually(
        () => harness().simulator.checkoutUrlFor(serviceId),
        WAIT_DEADLINE_MS,
        `checkout url of ${serviceId}`,
      ),
    /** The platform's accepted calls to `endpoint` for the service. */
    calls: (endpoint: 'checkout-url' | 'finish-checkout' | 'cancel-checkout', serviceId: number) =>
      harness()
        .simulator.accepted(endpoint)
        .filter((c) => c.serviceId === serviceId),
  };
}

/**
 * The checkout route as callers reach it. `privateRedis` for a suite that stops Redis: its own
 * redis-server, whatever REDIS_URL says.
 */
export function checkoutRouteWorld(options: { privateRedis?: boolean } = {}) {
  const harness = harnessHooks({ privateRedis: options.privateRedis });
  return {
    get h(): Harness {
      return harness();
    },
    route: () => `${harness().url}/checkout`,
    json: { 'content-type': 'application/json' },
  };
}
