import { createServer, type Server } from 'node:http';
import { CheckoutEntry } from '../../../src/http/checkout-entry';
import { checkoutFrontDoor } from '../../../src/http/checkout-front-door';
import { createMetrics } from '../../../src/infra/metrics';
import { ROUTE_TOKEN, startHarness, type Harness } from '../../support/harness';
import { send as sendRaw } from '../../support/inbound-requests';

interface Sent {
  path?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** One request exactly as written; POST /checkout unless it says otherwise. */
const send = (url: string, sent: Sent) =>
  sendRaw(url, {
    method: sent.method ?? 'POST',
    path: sent.path ?? '/checkout',
    headers: sent.headers ?? {},
    body: Buffer.from(sent.body ?? ''),
  });

const json = { 'content-type': 'application/json', authorization: `Bearer ${ROUTE_TOKEN}` };

describe("the checkout route's front door", () => {
  let h: Harness;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    h = await startHarness();
    const env = h.connector.deps;
    const settings = { enabled: true, tokenMatches: (token?: string) => token === ROUTE_TOKEN };
    const find = (shop: string) => (shop === 'default' ? { deps: env, settings } : undefined);
    const entry = new CheckoutEntry(
      { cached: find, byId: async (shop) => find(shop) },
      '/checkout',
    );
    const door = checkoutFrontDoor({
      entry,
      logger: h.log.logger,
      metrics: createMetrics(),
    });
    // Whatever the door declines is answered 599 here (Express's, in the connector).
    server = createServer((req, res) => {
      if (!door(req, res)) res.writeHead(599).end('declined');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await h.stop();
  });

  it.each<[string, Sent]>([
    ['a JSON body with a Bearer token', { headers: json, body: '{"service_id": 1001}' }],
    [
      'the token as X-Api-Key, UTF-8 declared',
      {
        headers: { 'content-type': 'application/json; charset=utf-8', 'x-api-key': ROUTE_TOKEN },
        body: '{"service_id": 1002}',
      },
    ],
  ])('takes %s', async (_what, sent) => {
    const res = await send(url, sent);
    expect(res.status).toBe(202);
    expect(JSON.parse(res.body)).toMatchObject({ status: 'accepted' });
  });

  it.each<[string, Sent]>([
    ['another method', { method: 'GET', headers: json }],
    ['a query string', { path: '/checkout?service_id=1001', headers: json, body: '{}' }],
    ['another path', { path: '/checkout/', headers: json, body: '{}' }],
    ['no token', { headers: { 'content-type': 'application/json' }, body: '{}' }],
    ['a wrong token', { headers: { ...json, authorization: 'Bearer nope' }, body: '{}' }],
    [
      'a form',
      {
        headers: { ...json, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'service_id=1',
      },
    ],
    ['text', { headers: { ...json, 'content-type': 'text/plain' }, body: '{}' }],
    [
      'another charset',
      { headers: { ...json, 'content-type': 'application/json; charset=latin1' }, body: '{}' },
    ],
    ['a content coding', { headers: { ...json, 'content-encoding': 'gzip' }, body: '{}' }],
    ['a chunked body', { headers: { ...json, 'transfer-encoding': 'chunked' }, body: '{}' }],
    ['a body over the limit', { headers: json, body: `{"pad":"${'x'.repeat(110_000)}"}` }],
  ])('leaves %s to Express', async (_what, sent) => {
    expect((await send(url, sent)).status).toBe(599);
  });

  /** The same call through the door, and through Express (an empty query sends it there). */
  it.each([
    ['accepted', '{"service_id": 1003}'],
    ['a repeat', '{"service_id": 1003}'],
    ['malformed JSON', '{"service_id": '],
    ['a JSON string', '"1001"'],
    ['a JSON null', 'null'],
    ['an array', '[1001]'],
    ['no service_id', '{}'],
    ['a fraction', '{"service_id": 10.5}'],
    ['a numeric string', '{"service_id": " 1004 "}'],
    ['a negative', '{"service_id": -3}'],
    ['an object', '{"service_id": {"$gt": 1}}'],
    ['16 digits', '{"service_id": 1234567890123456}'],
    ['16 digits in a string', '{"service_id": "1234567890123456"}'],
    ['15 digits', '{"service_id": 999999999999999}'],
    ['absurdly large', '{"service_id": 123456789012345678901234567890}'],
    ['an empty body', ''],
  ])('answers %s exactly as the route in Express does', async (_what, body) => {
    const door = await send(h.url, { headers: json, body });
    const express = await send(h.url, { path: '/checkout?', headers: json, body });
    expect(door.status).toBe(express.status);
    const [a, b] = [JSON.parse(door.body), JSON.parse(express.body)] as Array<Record<string, any>>;
    if (door.status === 202) {
      expect(a).toEqual({ ...b, checkout_id: a?.checkout_id });
    } else {
      expect({ ...a?.error, request_id: 'x' }).toEqual({ ...b?.error, request_id: 'x' });
    }
  });
});
